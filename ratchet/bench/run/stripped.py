"""The goldens a team would have blessed had it never declared faults: what R7's "without faults" is measured on.

`ratchet bench run --strip-faults` scores the same edits against goldens of the same tasks recorded on a
world that never fails: each golden that declares faults is re-recorded by the run's agent under the
unchanged skills, with its seed and clock and without its fault declarations (a replay of the golden
stripped of `faults` meets none). Goldens without faults are kept as shipped. The run is stored under
its configuration's name plus STRIPPED_SUFFIX, so it sits beside the run with faults in one results.json.
"""

from __future__ import annotations

from ratchet.bench.build.benchdata import BenchData
from ratchet.bench.data.models import STRIPPED_SUFFIX
from ratchet.config.gate import GateConfig
from ratchet.core.chat import ChatModel
from ratchet.core.clock import frozen_clock
from ratchet.core.errors import InfraError
from ratchet.gate.replay import Replayer
from ratchet.goldens.trace import Trace


def stripped_config(config: GateConfig) -> GateConfig:
    """The configuration renamed for a run over stripped goldens (the gate itself is unchanged)."""
    return config.model_copy(
        update={
            "name": config.name + STRIPPED_SUFFIX,
            "description": f"{config.description} Goldens re-recorded without their seeded faults.".strip(),
        }
    )


def strip_faults(data: BenchData, agent: ChatModel) -> BenchData:
    """`data` with every golden that declares faults replaced by a recording of its task without them."""
    tasks = {task.id: task for task in data.tasks}
    faulted = {tid: golden for tid, golden in data.goldens.items() if golden.faults and tid in tasks}
    if not faulted:
        return data
    project = data.project
    replayer = Replayer(
        project,
        tree=project.root,
        head_skills=data.base_skills,
        base_skills=data.base_skills,
        agent=agent,
        clock=frozen_clock,
    )
    goldens: dict[str, Trace] = dict(data.goldens)
    for task_id, golden in sorted(faulted.items()):
        bare = golden.model_copy(update={"faults": [], "fault_run": 0})
        trace = replayer.run(tasks[task_id], bare, data.base_skills, purpose="bless")
        if trace.status != "ok":
            raise InfraError(f"golden {task_id} could not be re-recorded without its faults ({trace.status})")
        goldens[task_id] = trace
    return BenchData(
        project=data.project,
        tasks=data.tasks,
        goldens=goldens,
        base_skills=data.base_skills,
        skill_texts=data.skill_texts,
        edits=data.edits,
        labels=data.labels,
        digest=data.digest,
        info=data.info,
    )

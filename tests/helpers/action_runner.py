"""Run a composite action's `run:` steps the way a GitHub Actions runner does, without GitHub.

    job = run_action(ROOT / "action.yml", workspace, with_={"config": "cascade"},
                     github={"base_ref": "main", ...}, env={...}, skip={"Install Ratchet"})
    job.exit_code("Decide"), job.outputs["check"]["decision"], job.log

What it does as a runner does: `${{ inputs.x }}` (the `with:` value or the input's default, itself
an expression), `${{ github.x }}`, `${{ runner.x }}` and `${{ steps.<id>.outputs.<name> }}`
substituted into `run` and `env`; a fresh GITHUB_OUTPUT and GITHUB_ENV file per step, read back
after it; a step without `if:` runs only while no step has failed, `if: always()` runs anyway.
`uses:` steps are not run (they are GitHub's actions); they are recorded with their resolved
`with:` so a test can check what they would get. Any other `if:` on a run step is refused, so a
condition the emulator cannot evaluate cannot pass silently.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPR = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


@dataclass
class Job:
    steps: list[tuple[str, int | None]] = field(default_factory=list)  # (name, exit code; None = skipped)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    uses: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)  # (name, action, with)
    log: str = ""

    def exit_code(self, name: str) -> int | None:
        return dict(self.steps)[name]

    @property
    def failed(self) -> bool:
        return any(code for _, code in self.steps)


def _read_pairs(path: Path) -> dict[str, str]:
    pairs = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line:
            name, _, value = line.partition("=")
            pairs[name] = value
    return pairs


def run_action(
    action: Path,
    workspace: Path,
    *,
    with_: dict[str, str],
    github: dict[str, str],
    runner: dict[str, str],
    env: dict[str, str],
    skip: set[str],
) -> Job:
    spec: dict[str, Any] = yaml.safe_load(action.read_text(encoding="utf-8"))
    job = Job()
    job_env: dict[str, str] = {}

    def resolve(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            scope, _, rest = match.group(1).partition(".")
            if scope == "inputs":
                if rest in with_:
                    return with_[rest]
                return resolve(str(spec["inputs"][rest].get("default", "")))
            if scope == "github":
                return github.get(rest, "")
            if scope == "runner":
                return runner[rest]
            if scope == "steps":
                step_id, kind, name = rest.split(".")
                assert kind == "outputs", match.group(0)
                return job.outputs.get(step_id, {}).get(name, "")
            raise AssertionError(f"expression the emulator does not know: {match.group(0)}")

        return _EXPR.sub(one, text)

    temp = Path(runner["temp"])
    for index, step in enumerate(spec["runs"]["steps"]):
        name = step.get("name", step.get("uses", f"step {index}"))
        condition = step.get("if")
        if "uses" in step:
            job.uses.append((name, step["uses"], {k: resolve(str(v)) for k, v in step.get("with", {}).items()}))
            continue
        if name in skip:
            job.steps.append((name, None))
            continue
        if condition is None:
            if job.failed:
                job.steps.append((name, None))
                continue
        else:
            assert condition == "always()", f"{name}: the emulator runs only if: always() run steps"
        output_file, env_file = temp / f"output-{index}", temp / f"env-{index}"
        output_file.write_text("", encoding="utf-8")
        env_file.write_text("", encoding="utf-8")
        step_env = {
            **env,
            **job_env,
            **{k: resolve(str(v)) for k, v in step.get("env", {}).items()},
            "GITHUB_OUTPUT": str(output_file),
            "GITHUB_ENV": str(env_file),
        }
        shell = step.get("shell")
        assert shell == "bash", f"{name}: composite run steps need shell: bash"
        done = subprocess.run(
            ["bash", "-e", "-c", resolve(step["run"])],
            cwd=workspace,
            env=step_env,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        job.log += f"## {name}\n{done.stdout}{done.stderr}"
        job.steps.append((name, done.returncode))
        if "id" in step:
            job.outputs[step["id"]] = _read_pairs(output_file)
        job_env.update(_read_pairs(env_file))
    return job

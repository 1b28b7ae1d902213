"""Demo repositories whose simulator varies, and noise records measured in them through the CLI.

base = set_sim_noise(demo_repo, 0.5)               # ratchet.yaml gains `sim_noise: 0.5`, committed
code, out, err = noise_cli(demo_repo, "--repeats", "12")   # `ratchet noise` through typer's CliRunner
base = commit_records(demo_repo, FX_TASKS, repeats=20)     # measured, then committed with the goldens
apply_edit(demo_repo, FX_COSMETIC)                 # an edit the simulator cannot see, on its own branch
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.goldens.noise import NoiseRecord, parse_noise_record
from ratchet.goldens.trace import NOISE_SUFFIX
from ratchet.setup.demo import DemoEdit
from tests.helpers.gitrepo import commit, git

runner = CliRunner()

FX_TASKS = tuple(f"fx-expense-converter-{n:02d}" for n in range(1, 11))
TRIAGE_TASKS = tuple(f"github-triage-{n:02d}" for n in range(1, 11))


def _prose_before_first_section(text: str) -> str:
    # A sentence of prose the simulated agent never acts on: under a quiet simulator every replay is `same`.
    # Not an HTML comment: the minimal runner drops those, so the diff proves such an edit cosmetic and the
    # check replays nothing (ratchet.gate.static), and these tests are about replays.
    if "\n## " not in text:
        raise AssertionError("the demo skill has no '## ' section to put a sentence before")
    return text.replace("\n## ", "\n\nTake your time with it.\n## ", 1)


FX_COSMETIC = DemoEdit(
    branch="edit/fx-cosmetic",
    skill="fx-expense-converter",
    message="fx-expense-converter: add a sentence of prose",
    expected="PASS",
    apply=_prose_before_first_section,
)


def set_sim_noise(repo: Path, chance: float) -> str:
    """Commit `sim_noise: chance` into the repo's ratchet.yaml; return the commit."""
    config = repo / "ratchet.yaml"
    lines = [line for line in config.read_text(encoding="utf-8").splitlines() if not line.startswith("sim_noise:")]
    return commit(repo, {"ratchet.yaml": "\n".join([*lines, f"sim_noise: {chance}"]) + "\n"}, f"sim_noise {chance}")


def noise_cli(repo: Path, *args: str) -> tuple[int, str, str]:
    """`ratchet noise ARGS` on `repo` (its .ratchet/ as the work area): exit code, stdout, stderr."""
    result = runner.invoke(app, ["noise", *args, "--project", str(repo), "--work", str(repo / ".ratchet")])
    return result.exit_code, result.stdout, result.stderr


def noise_files(repo: Path) -> dict[str, bytes]:
    """Every noise record under goldens/, by repo path, as bytes."""
    return {
        path.relative_to(repo).as_posix(): path.read_bytes()
        for path in sorted((repo / "goldens").glob(f"*/*{NOISE_SUFFIX}"))
    }


def golden_paths(repo: Path) -> dict[str, Path]:
    """Task id -> its golden file (noise records left out)."""
    return {
        path.stem: path for path in sorted((repo / "goldens").glob("*/*.json")) if not path.name.endswith(NOISE_SUFFIX)
    }


def read_record(path: Path) -> NoiseRecord:
    return parse_noise_record(path.read_text(encoding="utf-8"), source=str(path))


def commit_records(repo: Path, task_ids: tuple[str, ...], *, repeats: int) -> str:
    """Measure the goldens of `task_ids` with `ratchet noise`, commit the records; return the commit."""
    code, out, err = noise_cli(repo, *task_ids, "--repeats", str(repeats))
    if code != 0:
        raise AssertionError(f"ratchet noise failed ({code}): {out}{err}")
    git(repo, "add", "-A", "goldens")
    git(repo, "commit", "-q", "--no-verify", "-m", f"noise records ({repeats} repeats)")
    return git(repo, "rev-parse", "HEAD")

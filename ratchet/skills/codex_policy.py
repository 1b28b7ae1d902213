"""Codex's per-skill policy file, `agents/openai.yaml`: may the model pick the skill itself?

Why: Codex leaves a skill whose `policy.allow_implicit_invocation` is false out of the list the
model reads, so only an explicit `$name` mention runs it; a replay that let the matcher fire it
would test a routing no user sees. The file is optional and belongs to one client, so a broken
one is a warning naming it and its line, never an error that stops the gate (and never a crash:
it is read with the bounded YAML reader, like every other YAML input).
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, Field

from ratchet.core.yamlio import MAX_YAML_BYTES, YamlLimitError, compose_yaml

POLICY_FILE = Path("agents") / "openai.yaml"
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})


class PolicyNote(BaseModel):
    """A warning about the policy file: its path, 1-based line where known, and what to fix."""

    path: str
    line: int | None = None
    message: str


class CodexPolicy(BaseModel):
    """What agents/openai.yaml says about implicit invocation."""

    allow_implicit: bool | None = Field(default=None, description="None when the file or the key is absent.")
    notes: list[PolicyNote] = Field(default_factory=list)


def _child(mapping: yaml.MappingNode, key: str) -> yaml.Node | None:
    for k, v in mapping.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            found: yaml.Node = v
            return found
    return None


def read_codex_policy(folder: Path) -> CodexPolicy:
    """The skill folder's agents/openai.yaml policy; a missing file is no policy, a bad one a note."""
    path = folder / POLICY_FILE
    source = str(path)
    if not path.is_file():
        return CodexPolicy()

    def note(message: str, line: int | None = None) -> CodexPolicy:
        return CodexPolicy(
            notes=[PolicyNote(path=source, line=line, message=f"{message}; Codex may read it otherwise")]
        )

    try:
        if path.stat().st_size > MAX_YAML_BYTES:
            return note(f"refused: larger than {MAX_YAML_BYTES} bytes")
        root = compose_yaml(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        return note(f"not UTF-8 text (byte {exc.start})")
    except OSError as exc:
        return note(f"cannot read: {exc.strerror}")
    except YamlLimitError as exc:
        return note(exc.message, exc.line)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return note(f"not valid YAML: {problem}", mark.line + 1 if mark is not None else None)
    if root is None:
        return CodexPolicy()
    if not isinstance(root, yaml.MappingNode):
        return note("must be a YAML mapping (interface:, policy:, ...)", root.start_mark.line + 1)
    policy = _child(root, "policy")
    if policy is None:
        return CodexPolicy()
    if not isinstance(policy, yaml.MappingNode):
        return note("'policy' must be a mapping (allow_implicit_invocation: true|false)", policy.start_mark.line + 1)
    value = _child(policy, "allow_implicit_invocation")
    if value is None:
        return CodexPolicy()
    text = value.value if isinstance(value, yaml.ScalarNode) else None
    if text in _TRUE:
        return CodexPolicy(allow_implicit=True)
    if text in _FALSE:
        return CodexPolicy(allow_implicit=False)
    return note("'policy.allow_implicit_invocation' must be true or false", value.start_mark.line + 1)

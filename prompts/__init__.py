"""Prompt templates, one text file per role and planner.

Templates use `string.Template` placeholders ($task, $inventory ...) so the many braces
of the DEPS code form need no escaping. A file may hold several chat messages, each
starting with a line `@@ ROLE` (system, user or assistant).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from string import Template

_DIR = Path(__file__).parent


@cache
def load(name: str) -> str:
    path = _DIR / f"{name}.txt"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in _DIR.glob("*.txt")))
        raise FileNotFoundError(f"no prompt named {name!r}; known prompts: {known}")
    return path.read_text(encoding="utf-8")


def render(name: str, **values: object) -> str:
    return Template(load(name)).safe_substitute({k: str(v) for k, v in values.items()})


def chat(name: str, **values: object) -> list:
    """The template as LangChain chat messages."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    roles = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [roles[role](content) for role, content in messages(name, **values)]


def messages(name: str, **values: object) -> list[tuple[str, str]]:
    """Split a rendered template into (role, content) chat messages."""
    out: list[tuple[str, str]] = []
    role, lines = None, []
    for line in render(name, **values).splitlines():
        if line.startswith("@@ "):
            if role is not None:
                out.append((role, "\n".join(lines).strip()))
            role, lines = line[3:].strip(), []
        else:
            lines.append(line)
    if role is not None:
        out.append((role, "\n".join(lines).strip()))
    return out

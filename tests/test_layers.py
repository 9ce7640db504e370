"""The layers run one way, down (docs/architecture.md):
worlds <- skills <- nodes <- agent <- training <- evaluation <- experiments.

Read from the source with `ast`, every import counts, wherever it stands (inside a function
too), so a lazy import cannot hide a climb. There is no exception: the commands that the
layers above the agent add to `deps` (`train`, `eval`, `compare`, `bench`) reach the CLI
through the `deps.commands` entry points, which the agent loads by name, never by import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ORDER = ("worlds", "skills", "nodes", "agent", "training", "evaluation", "experiments")  # bottom to top


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in ORDER:
        for f in (ROOT / pkg).rglob("*.py"):
            rel = f.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = f
    return out


MODULES = _modules()


def _imports(path: Path, module: str) -> set[str]:
    """The project modules `path` imports (absolute and relative), resolved to known modules."""
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base_pkg = package.split(".")
                base_pkg = base_pkg[: len(base_pkg) - (node.level - 1)]
                base = ".".join(base_pkg + ([node.module] if node.module else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


GRAPH = {m: _imports(p, m) for m, p in MODULES.items()}


def _layer(module: str) -> int:
    return ORDER.index(module.split(".")[0])


def test_the_layers_are_the_ones_the_design_names():
    assert {m.split(".")[0] for m in MODULES} == set(ORDER)
    assert len(MODULES) > 30  # the scan found the code, not an empty tree


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_never_climb_a_layer(module):
    rel = MODULES[module].relative_to(ROOT).as_posix()
    climbs = sorted(dep for dep in GRAPH[module] if _layer(dep) > _layer(module))
    assert not climbs, f"{rel} imports {climbs}, a higher layer than {module.split('.')[0]}/"


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph, or None (iterative DFS, colours)."""
    colour = {n: 0 for n in graph}
    for start in graph:
        if colour[start]:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        colour[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
                path.pop()
                continue
            if nxt not in graph:
                continue
            if colour[nxt] == 1:
                return path[path.index(nxt) :] + [nxt]
            if colour[nxt] == 0:
                colour[nxt] = 1
                stack.append((nxt, iter(sorted(graph[nxt]))))
                path.append(nxt)
    return None


def test_no_import_cycle_between_files():
    assert _cycle(GRAPH) is None, " -> ".join(_cycle(GRAPH) or [])


def test_no_import_cycle_between_folders():
    folders: dict[str, set[str]] = {}
    for m, deps in GRAPH.items():
        src = m.rpartition(".")[0] if not MODULES[m].name == "__init__.py" else m
        folders.setdefault(src, set())
        for d in deps:
            dst = d.rpartition(".")[0] if not MODULES[d].name == "__init__.py" else d
            if dst != src and not dst.startswith(src + ".") and not src.startswith(dst + "."):
                folders[src].add(dst)
    for d in {x for deps in folders.values() for x in deps}:
        folders.setdefault(d, set())
    assert _cycle(folders) is None, " -> ".join(_cycle(folders) or [])


def test_the_checker_sees_a_climb_and_a_cycle():
    """The rules above can fail: a planted climb and a planted cycle are caught."""
    fake = {"worlds.a": {"agent.b"}, "agent.b": {"worlds.a"}}
    assert _cycle(fake) == ["worlds.a", "agent.b", "worlds.a"]
    assert _layer("agent.b") > _layer("worlds.a")

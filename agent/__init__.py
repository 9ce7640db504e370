"""The agent: the graph's assembly, the runner, the CLI and the LLM back-ends.

From Python (docs/python-api.md):

    from agent import make_graph, run_episode
"""

from __future__ import annotations

from typing import Any

__all__ = ["make_graph", "run_episode"]


def __getattr__(name: str) -> Any:  # imported on first use, so `import agent.cli` stays light
    if name in __all__:
        from agent import api

        return getattr(api, name)
    raise AttributeError(f"module 'agent' has no attribute {name!r}")

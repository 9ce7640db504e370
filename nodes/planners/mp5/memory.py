"""MP5's performer memory (appendix A.2.2): the action sequences that reached a
sub-objective, stored with the situation they were planned in, and the 2 nearest given
to the planner as demonstrations next time.

Kept in `<memory>/performer/` (nodes/planners/mp5/store.py), across episodes and runs.
The memory folder is `--memory DIR`, else $XDG_CACHE_HOME/deps-agent/mp5 (by default
~/.cache/deps-agent/mp5), so a second `deps run` reuses what the first learned.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from nodes.planners.mp5.store import VectorStore, open_store


def default_folder() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "deps-agent" / "mp5"


def memory_folder(setting: str | None) -> Path:
    return Path(setting).expanduser() if setting else default_folder()


def _key(subobjective: str, perceived: str) -> str:
    """What a sequence is found by: the sub-objective and the scene it was planned in."""
    return f"{subobjective} | {perceived}"


class PerformerMemory:
    def __init__(self, folder: str | Path):
        self.store: VectorStore = open_store(Path(folder) / "performer", "performer")

    def __len__(self) -> int:
        return len(self.store)

    def recall(self, subobjective: str, perceived: str, k: int = 2) -> list[dict[str, Any]]:
        """The k stored sequences nearest to this sub-objective in this scene, best first."""
        return self.recall_many([(subobjective, perceived)], k)[0]

    def recall_many(self, queries: list[tuple[str, str]], k: int = 2) -> list[list[dict[str, Any]]]:
        rows = self.store.search_many([_key(s, p) for s, p in queries], k)
        return [[dict(r, score=round(s, 3)) for s, r in row] for row in rows]

    def remember(self, subobjective: str, perceived: str, actions: str, **meta: Any) -> bool:
        """Store a sequence that worked; False when the same one is already stored for it."""
        with self.store.lock:
            if any(r.get("subobjective") == subobjective and r.get("actions") == actions for r in self.store.records):
                return False
            self.store.add(
                [_key(subobjective, perceived)],
                [{"subobjective": subobjective, "situation": perceived, "actions": actions, **meta}],
            )
            return True

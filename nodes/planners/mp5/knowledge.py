"""MP5's knowledge memory (appendix A.2.1): facts the parser retrieves while it breaks a
task into sub-objectives.

The facts are the knowledge base's own recipe book, one line per obtainable item ("How to
get stone_pickaxe: craft 1 stone_pickaxe from 3 cobblestone + 2 stick at a
crafting_table"), plus the short notes of worlds/data/knowledge_notes.yaml, embedded once
and kept in `<memory>/knowledge-<version>/`.  A look-up takes the nearest facts; when none
of them is about the item asked for (the store lacks it), the fact is written from the
knowledge base and added, as MP5's authors added missing knowledge by hand.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from nodes.planners.mp5.store import VectorStore, open_store
from worlds.options import best_option, how_to_make

NOTES = Path(__file__).resolve().parents[3] / "worlds" / "data" / "knowledge_notes.yaml"


def fact_text(kb: Any, item: str) -> str:
    return f"How to get {item}: {how_to_make(kb, item)}"


def _notes() -> list[dict[str, Any]]:
    with open(NOTES, encoding="utf-8") as f:
        return yaml.safe_load(f) or []


class KnowledgeMemory:
    def __init__(self, folder: str | Path, kb: Any):
        self.kb = kb
        self._seen: dict[str, dict[str, Any]] = {}
        self.store: VectorStore = open_store(Path(folder) / f"knowledge-{kb.version}", "knowledge")
        with self.store.lock:
            if not len(self.store):
                self._fill()

    def _fill(self) -> None:
        kb = self.kb
        names = sorted({*kb.item_names(), *(g for g in kb.groups() if not kb.is_item(g))})
        items = [n for n in names if best_option(kb, n) is not None]
        texts = [fact_text(kb, n) for n in items]
        records: list[dict[str, Any]] = [{"item": n, "fact": t} for n, t in zip(items, texts)]
        for note in _notes():
            texts.append(note["note"])
            records.append({"item": None, "about": list(note["items"]), "fact": note["note"]})
        self.store.add(texts, records)

    def lookup(self, item: str, k: int = 5) -> dict[str, Any]:
        return self.lookup_many([item], k)[0]

    def lookup_many(self, items: list[str], k: int = 5) -> list[dict[str, Any]]:
        """For each item, the fact about it among the k nearest to "How to get ITEM", with the
        notes that name it: {fact, score, notes, supplemented}.  Answers are kept per item."""
        todo = [i for i in dict.fromkeys(items) if i not in self._seen]
        for item, hits in zip(todo, self.store.search_many([f"How to get {i}" for i in todo], k)):
            fact = next(((s, r) for s, r in hits if r.get("item") == item), None)
            supplemented = False
            if fact is None:   # not in the store: write it from the knowledge base and keep it
                text = fact_text(self.kb, item)
                self.store.add([text], [{"item": item, "fact": text}])
                fact, supplemented = (1.0, {"fact": text}), True
            notes = [r["fact"] for _, r in hits if item in (r.get("about") or [])]
            self._seen[item] = {"fact": fact[1]["fact"], "score": round(fact[0], 3), "notes": notes,
                                "supplemented": supplemented}
        return [self._seen[i] for i in items]

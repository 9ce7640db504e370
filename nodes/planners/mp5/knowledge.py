"""MP5's knowledge memory (appendix A.2.1): facts the parser retrieves while it breaks a
task into sub-objectives.

The facts are the knowledge base's own recipe book, one line per obtainable item ("How to
get stone_pickaxe: craft 1 stone_pickaxe from 3 cobblestone + 2 stick on a
crafting_table", worlds/facts.py), plus the short notes of worlds/data/knowledge_notes.yaml,
embedded once and kept in `<memory>/knowledge-<version>/`.  A look-up is exact first: a
name the knowledge base knows gets its own fact and the notes about it (issue 23: facts by
exact look-up first); a free-text name gets the nearest facts of the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from nodes.planners.mp5.store import VectorStore, open_store
from worlds.facts import fact
from worlds.options import best_option

NOTES = Path(__file__).resolve().parents[3] / "worlds" / "data" / "knowledge_notes.yaml"


def fact_text(kb: Any, item: str) -> str:
    return f"How to get {item}: {fact(kb, item) or 'unknown'}"


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
        """For each item, its fact and the notes that name it: {fact, score, notes, supplemented}.
        Exact look-up first: a name the knowledge base knows gets its own fact and notes with
        no search (score 1.0); any other name (free text) the fact about it among the k nearest
        to "How to get ITEM", else the nearest fact.  Answers are kept per item."""
        for item in dict.fromkeys(items):
            canon = self.kb.canonical(item)
            if item in self._seen or canon is None:
                continue
            notes = [
                r["fact"]
                for r in self.store.records
                if item in (r.get("about") or []) or canon in (r.get("about") or [])
            ]
            self._seen[item] = {"fact": fact_text(self.kb, canon), "score": 1.0, "notes": notes, "supplemented": False}
        todo = [i for i in dict.fromkeys(items) if i not in self._seen]
        for item, hits in zip(todo, self.store.search_many([f"How to get {i}" for i in todo], k)):
            fact = next(((s, r) for s, r in hits if r.get("item") == item), None)
            supplemented = False
            if fact is None and hits:  # a free-text name: the nearest fact
                fact = hits[0]
            if fact is None:  # an empty store: nothing to say
                fact, supplemented = (0.0, {"fact": ""}), True
            notes = [r["fact"] for _, r in hits if item in (r.get("about") or [])]
            self._seen[item] = {
                "fact": fact[1]["fact"],
                "score": round(fact[0], 3),
                "notes": notes,
                "supplemented": supplemented,
            }
        return [self._seen[i] for i in items]

    def nearest_facts(self, names: list[str]) -> list[str]:
        """The fact the memory gives for each name (nodes/facts.py asks for names the knowledge
        base does not know)."""
        return [found["fact"] for found in self.lookup_many(list(names))]

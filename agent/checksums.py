"""sha256 of files, cached per path, size and mtime (a GGUF model is ~100 MB): what a
dataset card or an adapter names its base model by."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_SHA_CACHE: dict[tuple[str, int, int], str] = {}


def file_sha256(path: str | os.PathLike) -> str:
    """sha256 of a file (cached per path, size and mtime: the GGUF is ~100 MB)."""
    p = Path(path).resolve()
    st = p.stat()
    key = (str(p), st.st_size, int(st.st_mtime_ns))
    if key not in _SHA_CACHE:
        h = hashlib.sha256()
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _SHA_CACHE[key] = h.hexdigest()
    return _SHA_CACHE[key]

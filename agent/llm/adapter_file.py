"""Reading a GGUF LoRA adapter before serving it: its metadata, and the base model it was made for
(training/gguf_export.py writes these files).

An adapter records the base model's identity (deps.base_model.file / .sha256), which
`adapter_info` reads back so a server refuses an adapter made for another base model.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from nodes.settings import SettingsError

KEY_BASE_FILE = "deps.base_model.file"
KEY_BASE_SHA = "deps.base_model.sha256"


class AdapterError(SettingsError):
    """Not a LoRA adapter we can convert or serve; one line."""


_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


def read_gguf_kv(path: str | os.PathLike) -> tuple[dict[str, Any], int]:
    """The metadata of a GGUF file (arrays skipped, not read) and its tensor count; a streaming
    reader of the header only, fast even for a model file with a large vocabulary."""
    import struct

    def rd(f, fmt: str) -> Any:
        n = struct.calcsize(fmt)
        b = f.read(n)
        if len(b) != n:
            raise EOFError("truncated")
        return struct.unpack(fmt, b)[0]

    def rstr(f) -> str:
        n = rd(f, "<Q")
        if n > 1 << 24:
            raise ValueError("string too long")
        return f.read(n).decode("utf-8", errors="replace")

    def skip(f, t: int) -> None:
        if t in _SCALARS:
            f.seek(struct.calcsize(_SCALARS[t]), 1)
        elif t == 8:
            f.seek(rd(f, "<Q"), 1)
        elif t == 9:
            et, n = rd(f, "<I"), rd(f, "<Q")
            if et in _SCALARS:
                f.seek(n * struct.calcsize(_SCALARS[et]), 1)
            else:
                for _ in range(n):
                    skip(f, et)
        else:
            raise ValueError(f"unknown value type {t}")

    out: dict[str, Any] = {}
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            raise ValueError("no GGUF magic")
        rd(f, "<I")
        n_tensors, n_kv = rd(f, "<Q"), rd(f, "<Q")
        if n_kv > 1 << 20:
            raise ValueError("implausible header")
        for _ in range(n_kv):
            key, t = rstr(f), rd(f, "<I")
            if t in _SCALARS:
                out[key] = rd(f, _SCALARS[t])
            elif t == 8:
                out[key] = rstr(f)
            else:
                skip(f, t)
    return out, n_tensors


def adapter_info(path: str | os.PathLike) -> dict[str, Any]:
    """{architecture, alpha, tensors, base_model: {file, sha256} | None} of a GGUF LoRA adapter;
    AdapterError (one line) if the file is not one."""
    p = Path(path)
    if not p.is_file():
        raise AdapterError(f"adapter {p}: no such file")
    try:
        kv, n_tensors = read_gguf_kv(p)
    except OSError as e:
        raise AdapterError(f"adapter {p}: cannot read it ({e.strerror})") from e
    except (ValueError, EOFError, UnicodeDecodeError) as e:
        raise AdapterError(
            f"{p} is not a GGUF file ({e}); expected a GGUF LoRA adapter (deps train llm writes one)"
        ) from e
    kind = kv.get("general.type")
    if kind != "adapter" or kv.get("adapter.type") != "lora":
        raise AdapterError(
            f"{p} is a GGUF {kind or 'model'} file, not a LoRA adapter (general.type 'adapter', adapter.type 'lora')"
        )
    if not n_tensors:
        raise AdapterError(f"{p} is a LoRA adapter with no tensors")
    base = None
    if kv.get(KEY_BASE_SHA):
        base = {"file": kv.get(KEY_BASE_FILE) or "?", "sha256": kv[KEY_BASE_SHA]}
    return {
        "architecture": kv.get("general.architecture"),
        "alpha": kv.get("adapter.lora.alpha"),
        "tensors": n_tensors,
        "base_model": base,
    }


def is_adapter(path: str | os.PathLike) -> bool:
    """True if `path` is a GGUF whose general.type is 'adapter' (cheap: reads only the header)."""
    try:
        adapter_info(path)
        return True
    except AdapterError:
        return False

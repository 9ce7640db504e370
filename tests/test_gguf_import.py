"""A shipped GGUF adapter read back into PEFT's form (training/gguf_import.py) is the same adapter:
written out again by training/gguf_export.py it gives the shipped file's tensors exactly, and a
name or file that is not such an adapter is refused in one line."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from agent.llm.adapter_file import AdapterError
from tests.shipped_adapter import SMOLLM2_135M
from training.gguf_export import _permute, write_lora_gguf
from training.gguf_import import _unpermute, gguf_rank_alpha, read_lora_gguf

SHIPPED = Path(__file__).resolve().parents[1] / "agent" / "adapters" / "reader" / "adapter.gguf"


def test_unpermute_inverts_the_rotary_permutation():
    rng = np.random.default_rng(0)
    for rows, heads, kv in ((576, 9, 9), (192, 9, 3), (64, 4, 2)):
        w = rng.normal(size=(rows, 16)).astype(np.float32)
        assert np.array_equal(_unpermute(_permute(w, heads, kv), heads, kv), w)
        assert not np.array_equal(_permute(w, heads, kv), w)


def test_the_shipped_reader_round_trips(tmp_path):
    import gguf

    state = read_lora_gguf(SHIPPED, config=SMOLLM2_135M)
    assert len(state) == 420 and gguf_rank_alpha(SHIPPED) == (16, 32.0)
    assert "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight" in state
    again = write_lora_gguf(tmp_path / "again.gguf", state, config=SMOLLM2_135M, alpha=32.0)
    old = {t.name: np.array(t.data) for t in gguf.GGUFReader(str(SHIPPED)).tensors}
    new = {t.name: np.array(t.data) for t in gguf.GGUFReader(str(again)).tensors}
    assert old.keys() == new.keys()
    assert all(np.array_equal(old[k], new[k]) for k in old)


def test_not_an_adapter_is_one_line(tmp_path):
    bad = tmp_path / "adapter.gguf"
    bad.write_bytes(b"not a gguf file at all")
    with pytest.raises(AdapterError, match="not a readable GGUF LoRA adapter"):
        gguf_rank_alpha(bad)
    with pytest.raises(AdapterError, match="is not a LoRA weight"):
        read_lora_gguf(
            SHIPPED, config=SimpleNamespace(num_hidden_layers=2, num_attention_heads=9, num_key_value_heads=3)
        )
    with pytest.raises(AdapterError, match="does not fit a model of 7 heads"):
        read_lora_gguf(SHIPPED, config=SimpleNamespace(num_hidden_layers=30, num_attention_heads=7))

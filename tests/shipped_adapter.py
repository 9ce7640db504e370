"""The check every shipped held-out adapter passes: it is the file its card describes, on the packaged base
model, reachable as local:KEY, and its card lists the held-out items of the rule (tests for reader, deps-reader)."""

from __future__ import annotations

import json
from types import SimpleNamespace

from agent.llm import parse_llm_spec
from agent.llm.adapter_file import adapter_info
from agent.llm.local_server import ADAPTERS, find_adapter, find_model
from training.data import base_model_id, file_sha256
from training.whole_game import split_items

# Items the knowledge base names at 1.11.2 since the shipped adapters were trained, which the rule
# (training/whole_game.py) holds out: no adapter's data could hold them, as they had no name then.
NAMED_SINCE = {"sunflower": "2026-12-02: 1.11.2's four tall flowers named apart from double_plant"}

SMOLLM2_135M = SimpleNamespace(num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3)  # its config's shape


def check_shipped_adapter(key: str, kb) -> None:
    path = ADAPTERS[key]
    card = json.loads((path.parent / "card.json").read_text())
    assert card["adapter"]["sha256"] == file_sha256(path)
    assert card["base_model"] == base_model_id(find_model("smollm2")) == adapter_info(path)["base_model"]
    assert find_adapter(key) == path and find_model(key) == find_model("smollm2")
    held = set(split_items(kb).held_out)
    assert set(card["data"]["held_out_items"]) <= held  # every item held out then is held out now
    assert held - set(card["data"]["held_out_items"]) <= set(NAMED_SINCE)  # and the rule drew only items named since
    assert parse_llm_spec(f"local:{key}").model == key

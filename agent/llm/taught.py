"""The run settings a shipped adapter was taught and measured with, filled in where a run leaves
them unset: `deps run "obtain a cake" --llm local:deps-reader` plans as the adapter's card measured
it, not with the settings of a planner it was never taught (whose LLM explainer it answers with
hundreds of tokens of made-up recipes).

Each adapter's card.json may hold `run_settings`:

    {"planner": "deps", "explainer": "game", "max_rounds": 30, "knowledge": "target",
     "options": {"deps": {"recipe_grammar": true, "history_chars": 2000}}}

They apply only to a run of that planner; a setting the user gave always wins."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from agent.llm.local_server import ADAPTERS_DIR
from nodes.registry import flag_of, get, option_fields
from nodes.settings import RunSettings

CORE = ("explainer", "knowledge", "max_rounds")  # the RunSettings fields a card may set


def taught(llm: str, planner: str) -> dict[str, Any]:
    """The card's `run_settings` of the shipped adapter `llm` names (`local:NAME`), when they are
    for `planner`; else {}."""
    kind, _, name = llm.strip().partition(":")
    card = ADAPTERS_DIR / name.lower() / "card.json"
    if kind.lower() != "local" or not name or "/" in name or not card.is_file():
        return {}
    found = json.loads(card.read_text(encoding="utf-8")).get("run_settings") or {}
    return found if found.get("planner") == planner else {}


def fill(settings: RunSettings, given: Collection[str]) -> list[str]:
    """Set each of the adapter's taught settings that is not in `given` (core field names, and
    `part.option` for a part's options); returns them as the flags that would have set them."""
    wanted = taught(settings.llm, settings.planner)
    filled: list[str] = []
    for key in CORE:
        if key in wanted and key not in given and getattr(settings, key) != wanted[key]:
            setattr(settings, key, wanted[key])
            filled.append(f"--{key.replace('_', '-')} {wanted[key]}")
    for part, values in (wanted.get("options") or {}).items():
        fields = {f.name: f for f in option_fields(get("planner", part))}
        chosen = {k: v for k, v in values.items() if f"{part}.{k}" not in given and k in fields}
        chosen = {k: v for k, v in chosen.items() if getattr(settings.option(part), k) != v}
        if chosen:
            settings.configure(part, **chosen)
            filled += [flag_of(fields[k]) if v is True else f"{flag_of(fields[k])} {v}" for k, v in chosen.items()]
    return filled

"""The run settings a shipped adapter was taught and measured with, filled in where a run leaves
them unset: `deps run "obtain a cake" --llm local:deps-reader` plans as the adapter's card measured
it, not with the settings of a planner it was never taught (whose LLM explainer it answers with
hundreds of tokens of made-up recipes).

Each adapter's card.json may hold `run_settings`:

    {"planner": "deps", "explainer": "game", "max_rounds": 30, "knowledge": "target",
     "options": {"deps": {"recipe_grammar": true, "history_chars": 2000}}}

They apply only to a run of that planner; a setting the user gave always wins. An adapter given by
its path (`--llm local:OUT/adapter.gguf`) is read the same way from the card beside it: `deps train
llm --init` carries the settings of the adapter it went on from into the card it writes.

The DEPS planner's relay (`--relay`, nodes/planners/llm.py) hands the dialogue to a second
adapter once the first plan fails. Its `auto` is resolved here: `local:deps-reader` where the
run's --llm is the default embedded model (whose re-plans repeat its first plan), else none.
The run's later rounds are the relay's, so the relay adapter's card fills the run's core
settings (its explainer, rounds, knowledge) where the user left them unset; its planner
options (recipe grammar, history) go to the relay's own dialogue only (ChatModelHandle.taught)."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from agent.llm.local_server import ADAPTERS_DIR, DEFAULT_LOCAL_MODEL, LOCAL_MODELS
from nodes.registry import flag_of, get, option_fields
from nodes.settings import RunSettings, SettingsError

CORE = ("explainer", "knowledge", "max_rounds")  # the RunSettings fields a card may set
DEFAULT_RELAY = "local:deps-reader"  # what `--relay auto` means for the default embedded model
RELAYING = "deps"  # the planner whose dialogue a relay takes over


def taught(llm: str, planner: str | None = None) -> dict[str, Any]:
    """The card's `run_settings` of the shipped adapter `llm` names (`local:NAME`), when they are
    for `planner` (any planner when None); else {}."""
    kind, _, name = llm.strip().partition(":")
    if kind.lower() != "local" or not name:
        return {}
    if name.endswith(".gguf"):  # a trained adapter: the card `deps train llm` wrote beside it, if it is its card
        card = Path(name).expanduser().parent / "card.json"
        try:
            data = json.loads(card.read_text(encoding="utf-8"))
            if data.get("adapter", {}).get("file") != Path(name).name:
                return {}
        except (OSError, ValueError, AttributeError):
            return {}
    else:
        card = ADAPTERS_DIR / name.lower() / "card.json"
        if "/" in name or not card.is_file():
            return {}
        data = json.loads(card.read_text(encoding="utf-8"))
    found = data.get("run_settings") or {}
    return found if planner is None or found.get("planner") == planner else {}


def relay(settings: RunSettings) -> str | None:
    """The model the DEPS dialogue is handed to after its first plan fails (`--relay`, with
    `auto` resolved), or None; SettingsError where it names no shipped embedded model."""
    if settings.planner != RELAYING:
        return None
    chosen = settings.option(RELAYING).relay
    if chosen == "auto":
        kind, _, name = settings.llm.strip().lower().partition(":")
        return DEFAULT_RELAY if kind == "local" and name in ("", DEFAULT_LOCAL_MODEL) else None
    if chosen == "none":
        return None
    name = chosen.partition(":")[2].lower()
    if name not in LOCAL_MODELS:
        raise SettingsError(
            f"--relay {chosen[:80]!r} names no embedded model; accepted: auto, none, or "
            f"{', '.join('local:' + k for k in LOCAL_MODELS)}"
        )
    return f"local:{name}"


def fill(settings: RunSettings, given: Collection[str]) -> list[str]:
    """Set each of the adapter's taught settings that is not in `given` (core field names, and
    `part.option` for a part's options); returns them as the flags that would have set them.
    With a relay, `auto` is resolved and the relay adapter's core settings are filled the same way."""
    wanted = taught(settings.llm, settings.planner)
    filled: list[str] = []
    if settings.planner == RELAYING:
        handed = relay(settings)
        settings.configure(RELAYING, relay=handed or "none")  # stored resolved: run.json says what ran
        if handed and not wanted:
            wanted = {k: v for k, v in taught(handed).items() if k in CORE}
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


def whose(settings: RunSettings) -> str:
    """Which model's card `fill` read: the run's own adapter, else its relay ('MODEL, which re-plans')."""
    if taught(settings.llm, settings.planner) or settings.planner != RELAYING:
        return settings.llm
    handed = settings.option(RELAYING).relay
    return settings.llm if handed in ("auto", "none") else f"{handed}, which re-plans,"

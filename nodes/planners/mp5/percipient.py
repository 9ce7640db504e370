"""MP5's Percipient: answers the patroller's questions about what the agent observes now.

MP5 used a multimodal LLM on the game's image; here the default answers from the
observation's symbols, so the loop runs offline: the world's `context_state()` (the text
world tells its biome and time of day; the grid world also the mobs and blocks within two
cells).  What the observation does not hold is answered as unknown, never guessed.
Swap it with `--percipient package.module:factory`: the factory returns an object with
`answer(question, observation) -> str`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from nodes.settings import SettingsError
from worlds.context_tasks import matches, terms


@dataclass(frozen=True)
class Question:
    factor: str  # biome | time | weather | brightness | thing
    about: str = ""  # the thing asked about (tree, pig, stone...), for factor "thing"

    @property
    def text(self) -> str:
        if self.factor == "thing":
            return f"Is there a {self.about} in view?"
        return {
            "biome": "Which biome am I in?",
            "time": "Is it day or night?",
            "weather": "What is the weather?",
            "brightness": "Is it bright enough to see?",
        }.get(self.factor, f"What is the {self.factor}?")


def _kind(thing: str) -> str:
    return "mobs" if thing in terms()["mobs"] else "blocks"


class SymbolPercipient:
    """Reads the answer off the observation's symbols (a normalised context_state dict)."""

    name = "symbols"

    def answer(self, question: Question, observation: dict[str, Any]) -> str:
        if question.factor == "thing":
            kind = _kind(question.about)
            if kind not in observation:
                return f"{question.about}: cannot tell (this world reports no {kind} in view)"
            seen = matches(question.about, observation[kind], kind)
            return f"{question.about}: {'in view' if seen else 'not in view'}"
        key = "time_of_day" if question.factor == "time" else question.factor
        if key not in observation:
            return f"{question.factor}: cannot tell"
        return f"{question.factor}: {observation[key]}"


def make_percipient(spec: str | None) -> Any:
    if not spec:
        return SymbolPercipient()
    module_name, _, attr = spec.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as e:
        raise SettingsError(
            f"cannot load percipient {spec!r} ({e}); accepted: package.module:factory on the Python path"
        ) from None
    obj = factory()
    if not callable(getattr(obj, "answer", None)):
        raise SettingsError(f"percipient {spec!r} has no answer(question, observation) method")
    return obj

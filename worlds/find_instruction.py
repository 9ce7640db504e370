"""A find instruction in words -> a context task, as MP5's context-dependent tasks are written:

    "find a pig during the nighttime in a rainy day"     -> find pig; time night; weather rain
    "find a cow near the water in the desert by day"      -> find cow; near water; biome desert; time day
    "find a zombie at night"                              -> find zombie; time night

The thing and what it is near are the words of worlds/data/context_terms.yaml (tree, grass,
water, and its mobs); a biome is one of the game's (worlds/data/minedojo.json, 1.11's names);
the world says whether it builds it. Each clause may come in any
order; a word that is none of them is refused in one line naming the forms accepted. The task
is judged like an `mp5-context` one (worlds/context_tasks.py), with the spawn biome set where
a biome is named, as that suite does.
"""

from __future__ import annotations

import re
from functools import lru_cache

from worlds.context_tasks import terms
from worlds.minedojo.ids import data as minedojo_data
from worlds.tasks import CUSTOM_MAX_STEPS, SuiteError
from worlds.types import Task

FORMS = (
    "find THING [near THING] [in the BIOME] [at night | by day] [in the rain | on a sunny day] "
    "[in enough light], "
    'e.g. "find a pig during the nighttime in a rainy day"'
)
_A = r"(?:(?:a|an|the|some)\s+)?"
# (pattern, condition, value): a value None takes the matched word (a thing or a biome)
_CLAUSES: tuple[tuple[str, str, str | None], ...] = (
    (rf"(?:near|next to|beside)\s+{_A}(?P<w>[a-z_]+)", "near", None),
    (rf"with\s+{_A}(?P<w>[a-z_]+)\s+(?:next to|near|beside)\s+it", "near", None),
    (r"(?:during|in|at)\s+(?:the\s+)?(?:night|nighttime|night-time)|at\s+night|by\s+night", "time", "night"),
    (r"(?:during|in)\s+(?:the\s+)?(?:day|daytime|day-time)|by\s+day", "time", "day"),
    (r"(?:in|on)\s+(?:a\s+)?(?:rainy\s+day|rainy\s+weather)|in\s+the\s+rain|while\s+it\s+rains", "weather", "rain"),
    (r"(?:in|on)\s+(?:a\s+)?(?:sunny\s+day|clear\s+day|sunny\s+weather|clear\s+weather)", "weather", "clear"),
    (r"the\s+weather\s+is\s+(?:sunny|clear)(?:\s+day)?", "weather", "clear"),
    (r"the\s+weather\s+is\s+(?:rainy|rain)(?:\s+day)?|it\s+is\s+raining", "weather", "rain"),
    (r"the\s+brightness\s+is\s+sufficient|in\s+(?:sufficient|enough)\s+light", "brightness", "sufficient"),
    (rf"(?:in|on)\s+{_A}(?P<w>[a-z_]+(?:\s+(?:forest|taiga|hills))?)(?:\s+biome)?", "biome", None),
)


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[frozenset[str], frozenset[str]]:
    words = terms()  # the context tasks' own reading of context_terms.yaml
    things = frozenset(words["blocks"]) | frozenset(words["mobs"])
    biomes = frozenset(minedojo_data()["biomes"])  # worlds/data/minedojo.json, read once
    return things, biomes


def is_find(text: str) -> bool:
    return bool(re.match(r"\s*(?:find|look for|go find)\s", (text or "").lower()))


def find_task_from_instruction(text: str) -> Task:
    """The context task an instruction asks for; SuiteError (one line) when a word is not understood."""
    raw = " ".join((text or "").split())
    rest = re.sub(r"^(?:find|look for|go find)\s+", "", raw.lower().rstrip(".!"))
    things, biomes = _vocabulary()
    head = re.match(rf"{_A}(?P<w>[a-z_]+)\s*", rest)
    thing = head.group("w") if head else ""
    thing = thing[:-1] if thing not in things and thing.endswith("s") and thing[:-1] in things else thing
    if thing not in things:
        raise SuiteError(f"instruction {raw!r}: cannot find {thing!r}; accepted things: {', '.join(sorted(things))}")
    rest = rest[head.end() :] if head else ""
    conditions: dict[str, str] = {}
    while rest:
        rest = re.sub(r"^(?:and|,)\s*", "", rest)
        for pattern, key, value in _CLAUSES:
            m = re.match(rf"(?:{pattern})(?:\s+|,\s*|$)", rest)
            if not m:
                continue
            word = value or m.group("w").replace(" ", "_")
            if key == "near" and word not in things:
                raise SuiteError(f"instruction {raw!r}: {word!r} is not a thing to be near; accepted: {FORMS}")
            if key == "biome" and word not in biomes:
                raise SuiteError(f"instruction {raw!r}: unknown biome {word!r}; accepted: {', '.join(sorted(biomes))}")
            if key in conditions and conditions[key] != word:
                raise SuiteError(f"instruction {raw!r}: two {key}s ({conditions[key]}, {word}); accepted: {FORMS}")
            conditions[key] = word
            rest = rest[m.end() :]
            break
        else:
            raise SuiteError(f"instruction {raw!r}: cannot read {rest[:40]!r}; accepted: {FORMS}")
    tid = "custom-find-" + "-".join([thing, *(conditions[k] for k in sorted(conditions))])
    return Task(
        id=tid,
        group="custom",
        instruction=raw,
        target={},
        max_steps=CUSTOM_MAX_STEPS,
        biome=conditions.get("biome"),
        suite="custom",
        context={"find": thing, "conditions": conditions},
    )

"""Context-dependent tasks (MP5 Table 10, suite `mp5-context`): success is a predicate over
the world's true state, checked by the world, never by the LLM.

A task carries `context = {"find": "pig", "conditions": {"time": "night", ...}}`.  A world
that can judge such tasks exposes `context_state() -> dict` with some of these keys:

    biome        "plains"                     time_of_day  "day" | "night"
    mobs         names of mobs within reach   blocks       names of blocks within reach
    weather      "clear" | "rain"             brightness   "sufficient" | "dark"

(the grid world's `nearby_mobs` / `nearby_blocks` are read as `mobs` / `blocks`).  What a
world can judge follows from the keys it reports: `find` and `near` read mobs and blocks,
`biome` reads biome, and so on (worlds/data/context_terms.yaml).  A task that needs a key
the world lacks is refused before the episode starts, naming a world that has it.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatch
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from worlds.tasks import SuiteError
from worlds.types import Task

_ALIASES = {"nearby_mobs": "mobs", "nearby_blocks": "blocks", "time": "time_of_day"}


class ContextTaskError(SuiteError):
    """A context task this world cannot judge (one line: what, and which world can)."""


@lru_cache(maxsize=1)
def terms() -> dict:
    with open(Path(__file__).resolve().parent / "data" / "context_terms.yaml") as f:
        return yaml.safe_load(f)


def conditions(task: Task) -> dict[str, Any]:
    """The task's conditions as one flat dict: {"find": "pig", "time": "night", ...}."""
    ctx = task.context or {}
    out = {"find": ctx["find"]} if ctx.get("find") else {}
    out.update(ctx.get("conditions") or {})
    return out


def normalise_state(raw: dict[str, Any]) -> dict[str, Any]:
    """A world's context_state() with the key names above; mob and block lists as sets."""
    state: dict[str, Any] = {}
    for k, v in raw.items():
        key = _ALIASES.get(k, k)
        if key in ("mobs", "blocks"):
            names = v.keys() if isinstance(v, dict) else v
            state[key] = {str(n).lower() for n in names}
        else:
            state[key] = v
    return state


def world_state(world: Any) -> dict[str, Any]:
    """What the world tells of its context, normalised ({} for a world that tells nothing)."""
    fn = getattr(world, "context_state", None)
    return normalise_state(fn()) if callable(fn) else {}


def judged_keys(world: Any) -> set[str]:
    return set(world_state(world))


def unjudgeable(task: Task, keys: Iterable[str]) -> list[str]:
    """The task's conditions whose state keys are not among `keys`."""
    keys = set(keys)
    reads = terms()["reads"]
    return [c for c in conditions(task) if not any(k in keys for k in reads.get(c, [c]))]


def worlds_that_judge(task: Task) -> list[str]:
    return [w for w, keys in terms()["worlds"].items() if not unjudgeable(task, keys)]


def refusal(task: Task, world_name: str, keys: Iterable[str]) -> str | None:
    """None when the world can judge the task, else the one line that says why not."""
    if not task.context:
        return None
    missing = unjudgeable(task, keys)
    if not missing:
        return None
    able = [w for w in worlds_that_judge(task) if w != world_name]
    if not able:
        where = "no world reports " + ", ".join(missing)
    elif _built(able[0]):
        where = f"run it with --world {able[0]}"
    else:
        where = f"--world {able[0]} can judge it (not in this build yet)"
    return (
        f"task {task.id} ({task.instruction!r}) needs the world to judge {', '.join(missing)}, which "
        f"the {world_name} cannot (it reports only {', '.join(sorted(keys)) or 'nothing'}); {where}"
    )


def _built(world_name: str) -> bool:
    import importlib.util

    return world_name == "textworld" or importlib.util.find_spec(f"worlds.{world_name}") is not None


def check_judgeable(task: Task, world: Any, world_name: str) -> None:
    """Raise ContextTaskError (one line) before an episode the world cannot judge; for one it
    can judge, set the task's predetermined environment (set_environment) before it starts."""
    why = refusal(task, world_name, judged_keys(world))
    if why:
        raise ContextTaskError(why)
    set_environment(task, world)


def environment(task: Task, seed: int) -> dict[str, Any]:
    """A context task's predetermined setting, as reset options (MP5 section 4.1.2: "our
    environment details are predetermined (e.g., biomes, weather, etc.)"): the weather the
    task names, if any, and a start time drawn uniformly over the day from the episode's
    seed, so that the time a task asks for is sometimes now and sometimes to be waited for
    (MP5: "environmental factors (time, weather) change over time").  The biome is the
    task's spawn biome already (Task.biome).  {} for a task with no context."""
    if not task.context:
        return {}
    import random

    out: dict[str, Any] = {"time_of_day": round(random.Random(f"{seed}/start-time").random(), 4)}
    weather = conditions(task).get("weather")
    if weather:
        out["weather"] = str(weather)
    return out


def set_environment(task: Task, world: Any) -> None:
    """Apply environment(task, seed) to a world that can set it (the grid world's
    set_environment); a world that cannot is left as it is (it then judges what it reports)."""
    fn = getattr(world, "set_environment", None)
    if task.context and callable(fn):
        fn(**environment(task, int(getattr(world, "seed", 0) or 0)))


def split_judgeable(tasks: Iterable[Task], world_name: str) -> tuple[list[Task], list[str]]:
    """(tasks the named world can judge, one line per task it cannot), decided up front."""
    keys = terms()["worlds"].get(world_name, [])
    ok, refused = [], []
    for t in tasks:
        why = refusal(t, world_name, keys)
        (refused.append(why) if why else ok.append(t))
    return ok, refused


def matches(word: str, names: set[str], kind: str) -> bool:
    """Does `word` (tree, pig, water) name one of these mobs or blocks?"""
    if kind == "mobs":
        return word in names
    patterns = terms()["blocks"].get(word, [word])
    return any(fnmatch(n, p) for n in names for p in patterns)


def findable(word: str, kb: Any = None) -> bool:
    """Can a find goal look for `word`: a word of the context terms (tree, grass, water), a
    mob, or a block of the knowledge base."""
    t = terms()
    if word in t["blocks"] or word in t["mobs"]:
        return True
    return kb is not None and (word in kb.mobs() or word in kb.blocks())


def _present(word: str, state: dict[str, Any]) -> bool:
    kind = "mobs" if word in terms()["mobs"] else "blocks"
    return matches(word, state.get(kind, set()), kind)


def evaluate(task: Task, state: dict[str, Any]) -> tuple[bool, list[str]]:
    """(every condition holds, the conditions that do not) against a normalised state."""
    return evaluate_conditions(conditions(task), state)


def evaluate_conditions(conds: dict[str, Any], state: dict[str, Any]) -> tuple[bool, list[str]]:
    """evaluate() for a flat {"find": "pig", "time": "night", ...} dict (a find goal's)."""
    unmet = []
    for cond, want in conds.items():
        if cond in ("find", "near"):
            ok = _present(str(want), state)
        elif cond == "time":
            ok = state.get("time_of_day") == want
        else:
            ok = str(state.get(cond, "")).lower() == str(want).lower()
        if not ok:
            unmet.append(f"{cond} {want}")
    return not unmet, unmet


def task_done(world: Any, task: Task) -> bool:
    """Is the task done in this world: its items held, or its context conditions all true."""
    if task.target:
        return all(world.has(item, n) for item, n in task.target.items())
    if task.context:
        return evaluate(task, world_state(world))[0]
    return False

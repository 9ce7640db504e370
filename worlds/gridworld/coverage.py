"""Which tasks the grid world can give, decided before an episode: the oracle's route to
the target (worlds/solver.py, from what is held) is walked, and every mine or kill goal on
it must have a source here (a block that drops it, a mob that drops it, an egg a chicken
lays).  A route through something the grid world does not build is refused with one line
that names the missing feature (worlds/data/gridworld.yaml `not_built:`), instead of an
episode that wanders until its budget is spent.  A target the solver cannot reach at all is
left to the planner (it says so itself).
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from worlds.gridworld.rules import make_rules
from worlds.gridworld.sources import goal_sources
from worlds.gridworld.spec import game_data, make_vocab


def _sourced(env: Any, goal: Any) -> bool:
    name = next(iter(goal.obj))
    if any(not w.uses and w.on == "mob" and w.source in env.vocab.mob_id for w in env.kb.interactions(name)):
        return True   # picked up (an egg a chicken lays: eggs.py)
    cells, mobs = goal_sources(env, goal)
    return bool(cells or mobs)


def missing(kb: Any, target: dict[str, int], inventory: dict[str, int] | None = None) -> list[tuple[str, str]]:
    """[(what, why)] for each mine or kill goal of the oracle's route the grid world cannot give."""
    from worlds.solver import Unreachable, solve

    try:
        goals = solve(kb, dict(target), dict(inventory or {}))
    except (Unreachable, ValueError):
        return []
    env = SimpleNamespace(vocab=make_vocab(kb), rules=make_rules(kb), kb=kb)
    reasons = game_data().get("not_built") or {}
    out: list[tuple[str, str]] = []
    for g in goals:
        if g.action in ("mine", "kill") and not _sourced(env, g):
            what = next(iter(g.obj))
            why = reasons.get(what, "no block or mob of the grid world gives it")
            if (what, why) not in out:
                out.append((what, why))
    return out


def refusal(kb: Any, target: dict[str, int], inventory: dict[str, int] | None = None) -> str | None:
    """One line when the grid world cannot give the target, else None."""
    gaps = missing(kb, target, inventory)
    if not gaps:
        return None
    what, why = gaps[0]
    wanted = ", ".join(f"{n} {k}" for k, n in target.items())
    more = f" (and {len(gaps) - 1} more: {', '.join(w for w, _ in gaps[1:])})" if len(gaps) > 1 else ""
    verb = "kill a" if what in make_vocab(kb).mob_id or what in kb.mobs() else "get"
    return (f"the grid world cannot give {wanted}: the recipe book's way to it needs to {verb} {what}, and {why}{more}; "
            "accepted: a task the grid world builds, or --world textworld")

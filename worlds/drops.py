"""What one block broken or one mob killed gives, chance drops included (issue 22).

Guaranteed drops come every time.  A chance drop (flint from gravel 1 in 10, a carrot from
a zombie 1 in 120) is given as expected: in a deterministic world a per-(source, item)
credit grows by the chance each break and pays out whole items (every 10th gravel gives a
flint); in a stochastic world each break draws.  The text world and the oracle's solver
both call these, so a plan's count of breaks is the world's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from worlds.knowledge import KnowledgeBase
    from worlds.recipes import MineSource

EPS = 1e-3  # chances are written to 3-4 digits (1/120 as 0.008333): 120 of them pay one item


def roll(credit: dict[str, float], key: str, chance: float, draw: Callable[[], float] | None = None) -> int:
    """How many of a chance drop one try gives (0 or 1 for chances below 1)."""
    if draw is not None:
        return 1 if draw() < chance else 0
    c = credit.get(key, 0.0) + chance
    n = int(c + EPS)
    credit[key] = c - n
    return n


def break_gains(
    kb: KnowledgeBase, source: MineSource, credit: dict[str, float], draw: Callable[[], float] | None = None
) -> dict[str, int]:
    """One block broken via `source`: its drops, and its chance drops when broken by hand
    (shears on leaves give the leaves, nothing else)."""
    gained = dict(kb.source_drops(source))
    if not source.with_tool:
        for item, p in kb.chance_drops(source.block).items():
            n = roll(credit, f"{source.block}>{item}", p, draw)
            if n:
                gained[item] = gained.get(item, 0) + n
    return gained


def kill_gains(
    kb: KnowledgeBase, mob: str, credit: dict[str, float], draw: Callable[[], float] | None = None
) -> dict[str, int]:
    """One mob killed: its drops, and its rare drops by chance."""
    gained = dict(kb.mob_drops(mob))
    for item, p in kb.mob_chance_drops(mob).items():
        n = roll(credit, f"{mob}>{item}", p, draw)
        if n:
            gained[item] = gained.get(item, 0) + n
    return gained

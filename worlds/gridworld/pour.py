"""Pouring: a held water bucket used on a lava source makes it obsidian (gridworld.yaml `pour:`,
with its source).  Water and lava do not flow in the grid world, so this is the one way obsidian
forms, as players make it from a lava pool; the water is taken back up, the bucket stays full.

- `made(env, item_name, cell)`: the cell a use of that held item turns that cell into, or None;
- `pour_sources(env, item)`: the cells that become a source of `item` when poured on (lava, for
  obsidian), which the experts walk to and the target maps show;
- `pour_holds(item)`: what must be held to get `item` that way (a water bucket, kept);
- `pour_refusal(item, held, made_here)`: why a try for `item` cannot start (nothing to pour held,
  none of it made yet), in the words the scripted expert and the learned controller both give.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from worlds.gridworld.spec import game_data
from worlds.recipes import a as article


@cache
def _rules() -> tuple[tuple[str, str, str], ...]:
    return tuple((r["held"], r["on"], r["makes"]) for r in game_data().get("pour") or ())


def made(env: Any, item: str, cell: int) -> int | None:
    """The cell id pouring held `item` on `cell` makes, or None where it makes nothing."""
    v = env.vocab
    for held, on, makes in _rules():
        if held == item and v.cells[cell] == on and makes in v.cell_id:
            return v.cell_id[makes]
    return None


def pour_sources(env: Any, item: str) -> set[int]:
    """Cell ids that, poured on, become a cell whose block gives `item` (lava: obsidian)."""
    v, rules = env.vocab, env.rules
    out: set[int] = set()
    for _, on, makes in _rules():
        c = v.cell_id.get(makes)
        if c is not None and on in v.cell_id and item in rules.drops[c]:
            out.add(v.cell_id[on])
    return out


def pour_holds(item: str) -> tuple[str, ...]:
    """What is held (and kept) to make a source of `item` by pouring: ('water_bucket',) for obsidian."""
    return tuple(held for held, _, makes in _rules() if makes == item)


def pour_refusal(item: str, held: Callable[[str], int], made_here: bool) -> tuple[str, dict[str, int]] | None:
    """(why, what is missing) when a try for `item`, which only pouring makes, cannot start: nothing
    to pour is held (`held(name)`: how many) and the world holds none of it made already
    (`made_here`: obsidian poured before, say); None when `item` is not made so, or the try can go on."""
    rules = [(h, on) for h, on, makes in _rules() if makes == item]
    if not rules or made_here or any(held(h) >= 1 for h, _ in rules):
        return None
    h, on = rules[0]
    return f"needs {article(h)} to make {item} from {on}", {h: 1}

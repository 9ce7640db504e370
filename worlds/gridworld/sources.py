"""Where a goal's item comes from in the grid world: the cell kinds whose block gives it
when broken, the mobs that drop it (or the mob itself, for `kill cow`), and the blocks or
mobs a held item is used on (a bucket on water or a cow: interactions.yaml), and the cells a
held item is poured on to make a source (lava, for obsidian: pour.py).  A metadata
item (1.11.2's lapis_lazuli, a variant of dye) comes from the blocks whose drop names it."""

from __future__ import annotations

from typing import Any

from worlds.gridworld.metadata import shared_slot
from worlds.gridworld.pour import pour_sources
from worlds.gridworld.spec import game_data


def hunts_hostiles(env: Any, goal: Any) -> bool:
    """A kill goal whose mobs all fight back: a hunt of the night's mobs (a zombie, a skeleton, a
    spider), which at night goes for every hostile one (skills/experts.py: Expert._quarry)."""
    if goal.action != "kill":
        return False
    mobs = sorted(goal_sources(env, goal)[1])
    return bool(mobs) and bool(env.rules.mob_hostile[mobs].all())


def goal_sources(env: Any, goal: Any) -> tuple[set[int], set[int]]:
    v, rules, kb = env.vocab, env.rules, env.kb
    ((name, _),) = list(goal.obj.items())[:1]
    cells: set[int] = set()
    mobs: set[int] = set()
    if goal.action == "kill":
        if name in v.mob_id and name != "none":
            return cells, {v.mob_id[name]}
        ids = [v.item_id[x] for x in (kb.variants(name) or [name]) if x in v.item_id]
        return cells, {
            m
            for m in range(1, len(v.mobs))
            if ids and (rules.mob_drop_vec[m, ids].any() or any(it in ids for it, _ in rules.mob_chance[m]))
        }
    if goal.action != "mine":
        return cells, mobs
    canon = kb.canonical(name) or name
    names = set(kb.variants(canon) or [canon])
    shared = {s for s in (shared_slot(env, x) for x in names) if s is not None}  # dye's slot: matched by name
    ids = [v.item_id[x] for x in names if x in v.item_id and v.item_id[x] not in shared]
    for c in range(2, len(v.cells)):
        if rules.placed_only[c] or not rules.breakable[c]:
            continue
        if (names & set(rules.drops[c])) or (
            ids
            and (
                rules.drop_vec[c, ids].any()
                or any(it in ids for it, _ in rules.chance[c])
                or any(it in ids for _, it, _ in rules.tool_drops[c])
            )
        ):  # with shears: the leaves
            cells.add(c)  # a chance drop (gravel's flint) too: broken again until it comes
        elif (v.block_of[c] == canon or v.cells[c] == canon) and not rules.own_drops[c]:
            cells.add(c)  # "mine stone": break the named block (not a young crop, which gives a seed)
    cells |= pour_sources(env, canon)  # lava, for obsidian: a water bucket poured on it (pour.py)
    for way in (w for w in kb.interactions(canon) if w.uses):  # pick-ups (eggs): ground.ground_items
        if way.on == "mob" and way.source in v.mob_id:
            mobs.add(v.mob_id[way.source])
        elif way.on == "block":
            cells |= {c for c in range(2, len(v.cells)) if v.block_of[c] == way.source}
    return cells, mobs


def placeable_chance_sources(kb: Any, item: str) -> tuple[str, ...]:
    """Blocks that give `item` by chance and that an agent holding one can place again: gravel
    for flint (1 in 10). Placed beside the agent and broken again, each break is another draw,
    the way players farm flint, instead of a walk to the next vein. Leaves (sapling, apple) are
    not placeable (gridworld.yaml's `placeable`), so they stay a search."""
    placeable = game_data()["placeable"]
    return tuple(b for b, cell in placeable.items() if cell == b and item in kb.chance_drops(b))


def felling_sources(env: Any, item: str) -> set[int]:
    """Log cells of the trees whose leaves give `item` by chance, where one tree's leaves broken
    by hand give fewer than one on average (an oak's apple: 65 leaves at 1 in 200): felling the
    trunk lets the leaves decay and drop it on the ground (decay.py), the way players farm
    apples, instead of climbing to break them.  Empty for a sapling (1 in 20: about 3 a tree)."""
    from worlds.gridworld.generation import canopy_leaves

    v, rules = env.vocab, env.rules
    ids = {v.item_id[x] for x in (env.kb.variants(item) or [item]) if x in v.item_id}
    out: set[int] = set()
    for t in game_data()["trees"].values():
        leaf = v.cell_id[t["leaves"]]
        p = max((q for it, q in rules.chance[leaf] if it in ids), default=0.0)
        if 0.0 < p * canopy_leaves() < 1.0:
            out.add(v.cell_id[t["log"]])
    return out


def source_blocks(env: Any, i: int, goal: Any) -> int:
    """How many of world i's cells are source blocks of `goal` (0 for a goal mobs give)."""
    import numpy as np

    cells, _ = goal_sources(env, goal)
    if not cells:
        return 0
    return int(np.isin(env.cells[i], np.array(sorted(cells), dtype=env.cells.dtype)).sum())


def source_cells(env: Any, i: int, cells: set[int]) -> Any:
    """int64 [k, 3]: the (x, y, z) of world i's cells whose id is in `cells` (the world's own
    array is indexed [x, z, y])."""
    import numpy as np

    return np.argwhere(np.isin(env.cells[i], sorted(cells)))[:, [0, 2, 1]]


def laying_mobs(env: Any, item: str) -> set[int]:
    """Mob ids that give `item` unhit and unused, by being waited beside (a chicken's egg: eggs.py)."""
    return {
        env.vocab.mob_id[w.source]
        for w in env.kb.interactions(item)
        if not w.uses and w.on == "mob" and w.source in env.vocab.mob_id and env.vocab.mob_id[w.source]
    }

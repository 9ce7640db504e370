"""The grid world's rules as lookup tables, built once per game version from the knowledge
base (what a block drops, which tools harvest it, what a mob drops) and the data file
(hardness, tool speeds, mob health, weapon damage).  Chance drops (gravel's flint, a
leaf's sapling or apple, a zombie's carrot) are the knowledge base's, drawn per break or
kill from the world's own stream (batch.py `drop_rng`); a cell whose data row names its drops (a
crop at an age: `drops:`, `tries:`) has those instead.  The engine (batch.py) indexes these
arrays with whole batches at once.

Break time in steps, as the game computes it ("Breaking"): hardness x 1.5 s when the
held tools can harvest the block (x 5 s when they cannot: it breaks, but drops nothing),
divided by the speed of the best tool of the block's kind in the inventory, converted
to steps of `seconds_per_step` (rounded up, at least 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

import numpy as np

from worlds.gridworld.spec import Vocab, game_data, make_vocab
from worlds.knowledge import tool_tier
from worlds.recipes import a

TOOL_KINDS = ("pickaxe", "axe", "shovel", "shears", "sword")
MATERIALS = ("wooden", "stone", "iron", "diamond", "golden")


@dataclass
class Rules:
    vocab: Vocab
    kb: Any
    solid: np.ndarray  # bool [C]: blocks movement
    passable: np.ndarray  # bool [C]: the agent may stand in it (air, plants, water)
    liquid: np.ndarray  # bool [C]
    deadly: np.ndarray  # bool [C]
    breakable: np.ndarray  # bool [C]
    placed_only: np.ndarray  # bool [C]
    hardness: np.ndarray  # float [C] (0 for unbreakable; see breakable)
    cell_kind: np.ndarray  # int [C]: index into TOOL_KINDS of the tool that speeds it, -1 none
    tool_items: np.ndarray  # int [T]: item ids of every tool
    tool_kind: np.ndarray  # int [T]
    tool_speed: np.ndarray  # float [T]
    needs_tool: np.ndarray  # bool [C]: only some tools harvest it (the knowledge base's rule)
    harvest: np.ndarray  # bool [C, T]: tool t harvests cell c
    drops: list[dict[str, int]]  # per cell: what breaking it gives (when harvested)
    drop_vec: np.ndarray  # int32 [C, I]: the same as an inventory vector
    min_tool: list[str | None]  # per cell: the lowest tool that harvests it
    mob_health: np.ndarray  # float [M]
    mob_damage: np.ndarray  # float [M]: damage a hostile deals per hit
    mob_hostile: np.ndarray  # bool [M]
    mob_drop_vec: np.ndarray  # int32 [M, I]
    weapon_items: np.ndarray  # int [W]
    weapon_damage: np.ndarray  # float [W]
    chance: list[list[tuple[int, float]]]  # per cell: (item id, chance per break) besides its drops
    tool_drops: list[list[tuple[tuple[int, ...], int, int]]]  # per cell: (tool item ids, item id, count) that
    # replace its drops when broken holding one (shears: leaves, grass)
    mob_chance: list[list[tuple[int, float]]]  # per mob: (item id, chance per kill) besides its loot
    placeable: dict[int, int]  # item id -> cell id
    place_cell: np.ndarray  # int [I]: cell id an item places as, -1 when not placeable
    seconds_per_step: float
    mob_burns: np.ndarray  # bool [M]: removed at sunrise (zombies, skeletons)
    mob_shot_reach: np.ndarray  # int [M]: cells within which it shoots the agent it sees; 0: it does not shoot
    mob_shot_damage: np.ndarray  # float [M]: damage of one shot
    mob_shot_every: np.ndarray  # int [M]: steps between its shots (>= 1)
    own_drops: np.ndarray  # bool [C]: the data file names its drops (a crop at an age), not the block's
    no_spawn: np.ndarray  # bool [C]: no mob spawns on top of it (leaves, cactus: the data file's `no_spawn:`)

    def break_steps(self, cell: np.ndarray, speed: np.ndarray, can: np.ndarray) -> np.ndarray:
        """Steps to break `cell` with tool `speed` (>= 1), harvesting or not (`can`)."""
        secs = self.hardness[cell] * np.where(can, 1.5, 5.0) / speed
        return np.maximum(1, np.ceil(secs / self.seconds_per_step - 1e-9)).astype(np.int32)

    def tool_state(self, inv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(held tools bool [n, T], best speed per tool kind float [n, K]) from inventories [n, I]."""
        held = inv[:, self.tool_items] > 0
        sp = np.where(held, self.tool_speed[None, :], 1.0)
        kinds = self._tool_kinds
        best = np.where(kinds[None], sp[:, :, None], -np.inf).max(axis=1, initial=-np.inf)  # n, K: in one pass
        best[:, ~kinds.any(axis=0)] = 1.0  # a kind with no tool: the hand
        return held, best.astype(np.float32)

    @cached_property
    def _tool_kinds(self) -> np.ndarray:
        """bool [T, K]: tool t is of kind k (TOOL_KINDS)."""
        return np.asarray(self.tool_kind)[:, None] == np.arange(len(TOOL_KINDS))[None, :]

    def damage(self, inv: np.ndarray) -> np.ndarray:
        """Best attack damage per env [n] from the weapons in the inventory (the hand: 1)."""
        held = inv[:, self.weapon_items] > 0
        return np.maximum(1.0, np.where(held, self.weapon_damage[None, :], 0.0).max(axis=1, initial=0.0))

    def why_not(self, cell: int) -> str:
        """'needs a stone_pickaxe or better to mine iron_ore'."""
        t = self.min_tool[cell]
        block = self.vocab.block_of[cell]
        assert t is not None, f"{block} needs no tool"  # asked only of cells that need one
        better = " or better" if t and not t.endswith("shears") else ""
        return f"needs {a(t)}{better} to mine {block}"


def _tool_parts(name: str) -> tuple[str, str] | None:
    if name == "shears":
        return "", "shears"
    mat, _, kind = name.partition("_")
    if mat in MATERIALS and kind in TOOL_KINDS:
        return mat, kind
    return None


def make_rules(kb: Any) -> Rules:
    return _rules(kb.version, id(kb), kb)


@cache
def _rules(version: str, _kb_id: int, kb: Any) -> Rules:
    d = game_data()
    v = make_vocab(kb)
    C, I = len(v.cells), v.n_items  # noqa: E741 - array sizes named as in the shapes
    rows = [{"name": "air", "solid": False}, {"name": "void", "solid": True}] + list(d["cells"])
    solid = np.array([bool(r.get("solid")) for r in rows])
    liquid = np.array([bool(r.get("liquid")) for r in rows])
    deadly = np.array([bool(r.get("deadly")) for r in rows])
    passable = ~solid
    passable[1] = False
    breakable = np.array([i > 1 and r.get("hardness") is not None and not r.get("liquid") for i, r in enumerate(rows)])
    hardness = np.array([float(r.get("hardness") or 0.0) for r in rows], dtype=np.float32)
    placed_only = np.array([bool(r.get("placed")) for r in rows])
    cell_kind = np.array([TOOL_KINDS.index(r["tool_kind"]) if r.get("tool_kind") else -1 for r in rows])

    tools = [(n, p) for n, p in ((n, _tool_parts(n)) for n in v.items) if p]
    speeds = d["tool_speed"]
    tool_items = np.array([v.item_id[n] for n, _ in tools], dtype=np.int64)
    tool_kind = np.array([TOOL_KINDS.index(p[1]) for _, p in tools])
    tool_speed = np.array(
        [float(speeds.get(p[0], 1.0)) if p[1] != "shears" else 2.0 for _, p in tools], dtype=np.float32
    )  # shears: the wiki's 2x on leaves
    tool_index = {n: j for j, (n, _) in enumerate(tools)}

    needs_tool = np.zeros(C, bool)
    harvest = np.zeros((C, len(tools)), bool)
    drops: list[dict[str, int]] = [{} for _ in range(C)]
    min_tool: list[str | None] = [None] * C
    drop_vec = np.zeros((C, I), np.int32)
    for c in range(2, C):
        block = v.block_of[c]
        if placed_only[c]:
            drops[c] = {block: 1} if block in v.item_id else {}
        elif block in kb.blocks():
            drops[c] = {k: n for k, n in kb.block_drops(block).items() if k in v.item_id}
        ts = kb.harvest_tools(block) if block in kb.blocks() else None
        if ts:
            needs_tool[c] = True
            min_tool[c] = min(ts, key=lambda t: (tool_tier(t), t.startswith("golden")))
            for t in ts:
                if t in tool_index:
                    harvest[c, tool_index[t]] = True
        if rows[c].get("drops") is not None:  # a crop's cell: what its age drops (gridworld.yaml)
            drops[c] = {k: int(n) for k, n in rows[c]["drops"].items() if k in v.item_id}
        for k, n in drops[c].items():
            drop_vec[c, v.item_id[k]] = n

    mrows = d["mobs"]
    M = len(v.mobs)
    mob_health = np.array([0.0] + [float(m["health"]) for m in mrows], dtype=np.float32)
    mob_damage = np.array([0.0] + [float(m.get("damage", 0)) for m in mrows], dtype=np.float32)
    mob_hostile = np.array([False] + [bool(m.get("hostile")) for m in mrows])
    mob_burns = np.array([False] + [bool(m.get("burns")) for m in mrows])
    shots = [{}] + [m.get("shoots") or {} for m in mrows]
    mob_shot_reach = np.array([int(s.get("reach", 0)) for s in shots], dtype=np.int64)
    mob_shot_damage = np.array([float(s.get("damage", 0)) for s in shots], dtype=np.float32)
    mob_shot_every = np.array([max(1, int(s.get("every", 1))) for s in shots], dtype=np.int64)
    mob_drop_vec = np.zeros((M, I), np.int32)
    for m in range(1, M):
        for k, n in kb.mob_drops(v.mobs[m]).items():
            if k in v.item_id:
                mob_drop_vec[m, v.item_id[k]] = n
    chance = [
        [
            (v.item_id[k], float(p))
            for k, p in kb.chance_drops(v.block_of[c]).items()
            if k in v.item_id and k not in (rows[c].get("no_chance") or ())
        ]
        if c > 1 and not placed_only[c] and v.block_of[c] in kb.blocks()
        else []
        for c in range(C)
    ]
    for c in range(2, C):  # a cell that names its drops names its chance drops too (`tries:` {item: [draws,
        if rows[c].get("drops") is not None:  # chance]}: a ripe crop's seeds, each draw apart), or has none
            tries = (rows[c].get("tries") or {}).items()
            chance[c] = [(v.item_id[k], float(p)) for k, (n, p) in tries if k in v.item_id for _ in range(int(n))]
    own_drops = np.array([r.get("drops") is not None for r in rows])
    no_spawn = np.array([bool(r.get("no_spawn")) for r in rows])
    mob_chance: list[list[tuple[int, float]]] = [[]]
    mob_chance += [
        [(v.item_id[k], float(p)) for k, p in kb.mob_chance_drops(v.mobs[m]).items() if k in v.item_id]
        for m in range(1, M)
    ]
    by_block: dict[str | None, list] = {}  # looked up by cell, whose block may be None
    for name in kb.item_names():
        for src in kb.mine_sources(name):
            if src.with_tool and src.tools and src.item in v.item_id:
                ids = tuple(v.item_id[t] for t in src.tools if t in v.item_id)
                if ids and (ids, v.item_id[src.item], src.count) not in by_block.get(src.block, []):
                    by_block.setdefault(src.block, []).append((ids, v.item_id[src.item], int(src.count)))
    tool_drops = [by_block.get(v.block_of[c], []) if c > 1 and not placed_only[c] else [] for c in range(C)]
    weapons = [(n, dmg) for n, dmg in d["weapon_damage"].items() if n in v.item_id]
    placeable = {v.item_id[it]: v.cell_id[c] for it, c in d["placeable"].items() if it in v.item_id and c in v.cell_id}
    place_cell = np.full(I, -1, np.int64)
    for it, c in placeable.items():
        place_cell[it] = c
    return Rules(
        v,
        kb,
        solid,
        passable,
        liquid,
        deadly,
        breakable,
        placed_only,
        hardness,
        cell_kind,
        tool_items,
        tool_kind,
        tool_speed,
        needs_tool,
        harvest,
        drops,
        drop_vec,
        min_tool,
        mob_health,
        mob_damage,
        mob_hostile,
        mob_drop_vec,
        np.array([v.item_id[n] for n, _ in weapons], dtype=np.int64),
        np.array([float(x) for _, x in weapons], dtype=np.float32),
        chance,
        tool_drops,
        mob_chance,
        placeable,
        place_cell,
        float(d["seconds_per_step"]),
        mob_burns,
        mob_shot_reach,
        mob_shot_damage,
        mob_shot_every,
        own_drops,
        no_spawn,
    )


def ceil_div(a_: float, b: float) -> int:
    return max(1, math.ceil(a_ / b))

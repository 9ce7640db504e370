"""The grid world's frozen interface: vocabulary, observation layout, actions, batched API.

Code against this module; it only grows (new names are appended, nothing is renamed or
re-numbered).  `SPEC_VERSION` changes if anything here ever has to change meaning, and a
`Vocab` carries a `version` string that a checkpoint should store and check.

The world
---------
A seeded voxel map of `size = (X, Z)` columns (default 48 x 48) and `HEIGHT` levels
(y = 0 is bedrock, sea level 62).  Surface biome, trees, plants and animals on top; dirt or
sand, then stone with ores at their real depth ranges below (worlds/data/gridworld.yaml
holds every game fact, with sources).  Axes: x grows east, z grows south, y grows up.
One environment step is one primitive action (0.25 s of game time; a smelt takes 40).

Vocabulary (`make_vocab(kb)`, deterministic for a knowledge-base version)
------------------------------------------------------------------------
- `vocab.cells`: cell kinds in id order.  0 = "air", 1 = "void" (outside the map), then
  the data file's `cells:` list.  `vocab.cell_id[name]`.  Ids do not depend on the game
  version; `vocab.block_of[id]` is the version's block name (for the knowledge base).
- `vocab.mobs`: mob kinds in id order, 0 = "none", then the data file's `mobs:` list.
- `vocab.items`: every concrete item of the version, sorted (kb.item_names()); an item's
  index is its slot in the inventory vector.  `vocab.item_id[name]`.
- `vocab.biomes`: biome names in id order (the data file's `biomes:` keys).
- `vocab.version`: "grid-1/<mc version>/<hash of the four lists>"; equal strings mean
  equal encodings for a learned network.  The lists hashed are the network's kinds: a cell,
  mob or biome appended with `policy_as:` in the data file (a jungle log, a lily pad, the
  jungle) is read by a network as that stand-in among the kinds before it (`vocab.cell_as`,
  `mob_as`, `biome_as`: each id's network id, `n_policy_cells` ...), so the shipped
  checkpoints keep working on worlds that grew; `vocab.world_version` hashes every kind.  A
  kind with `grown_from:` (the skeleton) is one the networks have learnt since: it has the
  next network id, and `vocab.growths` keeps the version before it, whose checkpoints load
  with its rows copied from its stand-in's (skills/learned/checkpoint.py: grow).

Observation (one world: the arrays below; the batch: the same with a leading [n] axis)
--------------------------------------------------------------------------------------
- "blocks":    uint8 [L, V, V]  cell id around the agent; L = len(VIEW_LEVELS) levels
               (index i is dy = VIEW_LEVELS[i] relative to the agent's feet level),
               V = 2 * VIEW_RADIUS + 1; [i, R + dz, R + dx].  Outside the map: void (1).
- "mobs":      uint8 [L, V, V]  mob id per cell in the same layout (0: none).
- "inventory": int32 [len(vocab.items)]  counts (equipped items are not counted here).
- "equipment": int32 [len(EQUIP_SLOTS)] item index + 1 of what each slot holds (0: empty).
- "position":  int32 [3]  x, y, z (absolute; y is the feet level).
- "facing":    int32 []   index into FACINGS.
- "biome":     int32 []   index into vocab.biomes (the column the agent stands in).
- "time":      float32 [2] (fraction of the day in [0, 1), 1.0 at night else 0.0).
- "health":    float32 [] 0..20.
- "mining":    float32 [] progress in [0, 1) on the block being broken (0 when none).

Actions
-------
PRIMITIVES (index = position in the tuple):
  noop; move_north / move_south / move_east / move_west: face that way and step one cell
  if it is free (falling down any drop); into a solid block it only turns to face it;
  face_up / face_down: face the cell above / below; attack: hit the faced cell: breaks a
  block after its break time in steps (the best suitable tool in the inventory is used;
  without the harvest tool the knowledge base requires, the block breaks and drops
  nothing, as in the game) or hits a mob there (drops its loot when its health is gone);
  use: place the item argument (a crafting table, furnace, or building block) in the faced
  cell, or use a held item on the faced cell (a bucket on water, lava or a cow; a hoe tills
  grass or dirt, seeds are planted on farmland: crops.py);
  jump_place: jump and place the item argument (a building block) under yourself (pillar
  up one level); jump: jump forward onto the faced block (needs head room above you and
  above it); face_north / face_south / face_east / face_west: turn without moving (to hit
  a plant or a mob in a free cell); craft / smelt / equip: the functional actions, item argument = what to
  make / smelt into / wear.  Crafting a recipe that needs a table needs a crafting table
  placed within REACH cells; smelting needs a placed furnace within REACH.  Their
  inventory rules are the text world's (worlds/inventory.py is shared by both).
One world: `step({"action": "move_north"})`, `step({"action": "craft", "item": "stick"})`
(`"fuel"` optional for smelt), or `step((primitive_index, item_index))`.
Batch: `step(actions)` with int64 [n, 2]: (primitive index, item index or -1).

Batched API (worlds/gridworld/batch.py)
---------------------------------------
    env = BatchGridWorld(n, kb=None, mc_version="1.11.2", size=(48, 48), biome=None)
    obs = env.reset(seeds, options=None)      # seeds: int sequence [n]; obs: dict of arrays [n, ...]
    obs, reward, terminated, truncated, info = env.step(actions)   # float32/bool [n]; info["ok"] bool [n]
    env.reset_some(mask, seeds)               # reset only where mask is true (for rollouts)
    GridWorld.view(env, i)                    # a GridWorld view of env i (world.py: goal_distance...)
reward is 1.0 on the step the target (options "target") is first held.

One world (worlds/gridworld/world.py: `GridWorld(kb, size=...)`, the `World` protocol)
--------------------------------------------------------------------------------------
reset(seed=, options=) with options: inventory, biome, max_steps, target,
time_of_day (fraction of the day at the start, default 0.0 = sunrise), weather ("clear", the
default, or "rain": weather.py), layout (below).  With a target and no size given, a map
too small for the target's route is made again larger (world.py, coverage.py), and a target
whose route needs what the grid world does not build is refused (GridWorldError, one line).
Eggs and what decaying leaves drop lie on the ground (ground.py, decay.py) outside the observation
arrays (this interface is frozen): ground.ground_items(env, i, item) gives where.
Seeds: 0 <= seed <= MAX_SEED (2**53 - 1, the CLI's --seed range, so that the episode
seeds `deps eval` derives from a base seed fit); an unknown biome or a seed out of range
raises GridWorldError (a ValueError) with one line.  Also: inventory, has(name, n), steps, max_steps,
observation_space, action_space, goal_distance(goal) -> int (path steps, digging
included, to the nearest source of the goal's item; -1 when none is reachable),
context_state() -> {biome, time_of_day, brightness, nearby_mobs, nearby_blocks, standing_on,
y, depth},
place(x, y, z, cell) and spawn(mob, x, y, z) to set up scenarios, render() -> str.

Layouts: options["layout"] builds a flat test map instead of a generated one:
    {"ground": 64, "fill": "stone", "surface": "grass_block",
     "blocks": [[x, y, z, "oak_log"], ...], "mobs": [[x, y, z, "cow"], ...],
     "agent": [x, y, z]}
(ground: the top solid level; below it `fill` down to bedrock at y 0.)

Goals for a learned policy: `goal_code(goal, vocab) -> (skill index in worlds.types.ACTIONS,
target index)`, the target index an item index, or len(vocab.items) + mob id for `kill`
of a mob.  The scripted experts (skills/experts.py) give (observation, expert action)
pairs for a goal on the batched world: see their module docstring.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from worlds.base import WorldError
from worlds.types import ACTIONS, SKILLS

SPEC_VERSION = "grid-1"
DATA = Path(__file__).resolve().parent.parent / "data" / "gridworld.yaml"

VIEW_RADIUS = 4
VIEW = 2 * VIEW_RADIUS + 1
VIEW_LEVELS = (-2, -1, 0, 1, 2)
HEIGHT = 80
DEFAULT_SIZE = (48, 48)
MAX_SEED = 2**53 - 1  # was 2**31 - 1 (widened: every seed accepted before gives the same map)

AIR, VOID = 0, 1
NO_MOB = 0

FACINGS = ("north", "south", "east", "west", "up", "down")
# (dx, dy, dz) of each facing
FACING_VECTORS = ((0, 0, -1), (0, 0, 1), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0))

PRIMITIVES = (
    "noop",
    "move_north",
    "move_south",
    "move_east",
    "move_west",
    "face_up",
    "face_down",
    "attack",
    "use",
    "jump_place",
    "craft",
    "smelt",
    "equip",
    "jump",
    "face_north",
    "face_south",
    "face_east",
    "face_west",
)
PRIMITIVE_ID = {p: i for i, p in enumerate(PRIMITIVES)}
MOVES = ("move_north", "move_south", "move_east", "move_west")  # facing index = move index
FUNCTIONAL = ("craft", "smelt", "equip")
NEEDS_ITEM = ("use", "jump_place", "craft", "smelt", "equip")

EQUIP_SLOTS = ("mainhand", "offhand", "head", "chest", "legs", "feet")
OBS_KEYS = ("blocks", "mobs", "inventory", "equipment", "position", "facing", "biome", "time", "health", "mining")


class GridWorldError(WorldError):
    """Bad input to the grid world (unknown biome, seed out of range, bad layout): one line."""


@lru_cache(maxsize=1)
def game_data() -> dict:
    """worlds/data/gridworld.yaml, parsed (cached)."""
    with open(DATA) as f:
        return yaml.safe_load(f)


def animal_homes() -> dict[str, list[str]]:
    """Each passive mob appended after the networks' (`policy_as:`, a rabbit) -> the biomes whose
    `animals:` name it, the only ones it lives in (gridworld.yaml `mobs:`)."""
    d = game_data()
    return {
        m["name"]: [b for b, s in d["biomes"].items() if m["name"] in (s.get("animals") or [])]
        for m in d["mobs"]
        if m.get("policy_as") and not m.get("hostile")
    }


@dataclass(frozen=True)
class Vocab:
    mc_version: str
    cells: tuple[str, ...]
    block_of: tuple[str | None, ...]  # the version's block name of each cell (None: air/void)
    mobs: tuple[str, ...]
    items: tuple[str, ...]
    biomes: tuple[str, ...]
    version: str
    cell_id: dict[str, int] = field(hash=False, compare=False)
    mob_id: dict[str, int] = field(hash=False, compare=False)
    item_id: dict[str, int] = field(hash=False, compare=False)
    biome_id: dict[str, int] = field(hash=False, compare=False)
    # what a learned network reads each id as (module docstring): its stand-in among the kinds
    # before the first `policy_as:` entry, the identity for those
    cell_as: Any = field(default=None, hash=False, compare=False)  # uint8 [len(cells)]
    mob_as: Any = field(default=None, hash=False, compare=False)  # uint8 [len(mobs)]
    biome_as: Any = field(default=None, hash=False, compare=False)  # int64 [len(biomes)]
    world_version: str = ""
    # the networks' vocabularies before a kind was grown into them (`grown_from:`): Growth rows
    growths: tuple = field(default=(), hash=False, compare=False)

    @property
    def first_cell_as(self) -> int:
        """The first cell id a network reads as another kind (len(cells) where none is): ids
        below it need no look-up."""
        return _first_moved(self.cell_as)

    @property
    def first_mob_as(self) -> int:
        return _first_moved(self.mob_as)

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_policy_cells(self) -> int:
        """Cell kinds a learned network knows (the data file's cells before any `policy_as:`)."""
        return int(self.cell_as.max()) + 1

    @property
    def n_policy_mobs(self) -> int:
        return int(self.mob_as.max()) + 1

    @property
    def n_policy_biomes(self) -> int:
        return int(self.biome_as.max()) + 1

    @property
    def grown(self) -> bool:
        """Whether any kind is read by a network as a stand-in (the world has more kinds than it)."""
        return (
            len(self.cells) > self.n_policy_cells
            or len(self.mobs) > self.n_policy_mobs
            or (len(self.biomes) > self.n_policy_biomes)
        )

    def obs_shapes(self) -> dict[str, tuple[int, ...]]:
        """The shape of each observation array of one world (the batch adds [n])."""
        L = len(VIEW_LEVELS)
        return {
            "blocks": (L, VIEW, VIEW),
            "mobs": (L, VIEW, VIEW),
            "inventory": (self.n_items,),
            "equipment": (len(EQUIP_SLOTS),),
            "position": (3,),
            "facing": (),
            "biome": (),
            "time": (2,),
            "health": (),
            "mining": (),
        }


def make_vocab(kb: Any) -> Vocab:
    """The encoding for the knowledge base's game version (cached per version).  Metadata
    variants that the knowledge base names apart (1.11.2's lapis_lazuli, dye:4) are encoded
    as the item id they are variants of (dye), so the encoding stays the game's item table."""
    variants = kb.variant_items() if hasattr(kb, "variant_items") else {}
    items = tuple(n for n in kb.item_names() if n not in variants)
    return _vocab(kb.version, items, kb.era, tuple(sorted(variants.items())))


@cache
def _vocab(mc_version: str, items: tuple[str, ...], era: str, variants: tuple[tuple[str, str], ...] = ()) -> Vocab:
    d = game_data()
    cells = ["air", "void"] + [c["name"] for c in d["cells"]]
    blocks: list[str | None] = [None, None] + [c.get(era, c["name"]) for c in d["cells"]]
    mobs = ["none"] + [m["name"] for m in d["mobs"]]
    biomes = list(d["biomes"])
    rows = {"cells": [{}, {}] + d["cells"], "mobs": [{}] + d["mobs"], "biomes": list(d["biomes"].values())}
    if any((r or {}).get("grown_from") for r in rows["biomes"]):
        raise GridWorldError(
            "gridworld.yaml biomes: grown_from: is accepted on cells and mobs only; a biome takes policy_as:"
        )
    names = {"cells": cells, "mobs": mobs, "biomes": biomes}
    cell_as, mob_as, biome_as = (_stand_ins(names[w], rows[w], w) for w in ("cells", "mobs", "biomes"))

    def digest(cs: list, bs: list, ms: list, bios: list) -> str:
        return hashlib.sha1(repr((cs, bs, ms, items, bios)).encode()).hexdigest()[:10]

    def version(c_as: np.ndarray, m_as: np.ndarray) -> str:
        """The networks' vocabulary: each network kind in network-id order (a kind is its own
        stand-in), so kinds appended with `policy_as:` leave it as it was."""
        own_c, own_m = _own(c_as), _own(m_as)
        nets = ([cells[i] for i in own_c], [blocks[i] for i in own_c], [mobs[i] for i in own_m])
        return f"{SPEC_VERSION}/{mc_version}/{digest(*nets, biomes[: int(biome_as.max()) + 1])}"

    # the vocabulary before any kind was grown in (each read as its stand-in again); one step back
    # only: a second growth would also need the vocabulary between the two remembered
    old_c, old_m = (_stand_ins(names[w], rows[w], w, grown=False) for w in ("cells", "mobs"))
    growths: tuple[Growth, ...] = ()
    if len(_own(old_c)) < len(_own(cell_as)) or len(_own(old_m)) < len(_own(mob_as)):
        growths = (Growth.between(version(old_c, old_m), (old_c, old_m), (cell_as, mob_as), len(items)),)

    return Vocab(
        mc_version,
        tuple(cells),
        tuple(blocks),
        tuple(mobs),
        items,
        tuple(biomes),
        version(cell_as, mob_as),
        {c: i for i, c in enumerate(cells)},
        {m: i for i, m in enumerate(mobs)},
        {**{it: i for i, it in enumerate(items)}, **{v: items.index(base) for v, base in variants}},
        {b: i for i, b in enumerate(biomes)},
        cell_as.astype(np.uint8),
        mob_as.astype(np.uint8),
        biome_as,
        f"{SPEC_VERSION}/{mc_version}/{digest(cells, blocks, mobs, biomes)}",
        growths,
    )


def _stand_ins(names: list[str], rows: list[dict], what: str, grown: bool = True) -> np.ndarray:
    """int64 [len(names)]: each kind's id as a learned network reads it. The kinds before the
    first `policy_as:` row are the networks' own (their ids are themselves); each after it is
    read as the kind its `policy_as:` names, except a kind with `grown_from:`, which the networks
    have learnt since: it gets the next network id (with grown=False it is read as its
    `grown_from:` kind, as the networks trained before it read it)."""
    out = np.arange(len(names))
    first = next(
        (i for i, r in enumerate(rows) if (r or {}).get("policy_as") or (r or {}).get("grown_from")), len(names)
    )
    known, n_own = names[:first], first  # the kinds a later row may name; the network ids given so far
    for i in range(first, len(names)):
        row = rows[i] or {}
        stand_in = row.get("policy_as") or row.get("grown_from")
        if not stand_in or stand_in not in known:
            raise GridWorldError(
                f"gridworld.yaml {what}: {names[i]!r} comes after the networks' kinds, so it needs a policy_as: "
                f"naming one of them (got {stand_in!r})"
            )
        if grown and row.get("grown_from"):
            out[i], n_own = n_own, n_own + 1
        else:
            out[i] = out[names.index(stand_in)]
        if row.get("grown_from"):
            known.append(names[i])  # a network kind now (or to be): a later row may name it
    return out


def _own(kind_as: np.ndarray) -> list[int]:
    """The ids of the kinds a network reads as themselves, in network-id order."""
    return [int(np.nonzero(kind_as == j)[0][0]) for j in range(int(kind_as.max()) + 1)]


def _first_moved(kind_as: np.ndarray) -> int:
    moved = np.nonzero(kind_as != np.arange(len(kind_as)))[0]
    return int(moved[0]) if moved.size else len(kind_as)


@dataclass(frozen=True)
class Growth:
    """How a network trained on an older vocabulary (`version`) reads the current one: each row
    of the current id axes is the old network's row of the same kind, or of the stand-in the old
    vocabulary read it as (checkpoint.load copies those rows, so the grown network reads a grown
    kind exactly as it read its stand-in; the surroundings map's counts of the two, once summed
    in one channel, are now in two)."""

    version: str
    kinds: Any  # int64 [n_policy_cells + n_policy_mobs]: old row of each cell-then-mob id (embeddings, map channels)
    targets: Any  # int64 [n_items + n_policy_mobs]: old row of each goal target (items, then mobs)

    @classmethod
    def between(cls, version: str, old: tuple, new: tuple, n_items: int) -> Growth:
        (oc, om), (nc, nm) = old, new
        cell_rows = np.array([oc[i] for i in _own(nc)])
        mob_rows = np.array([om[i] for i in _own(nm)])
        kinds = np.concatenate([cell_rows, int(oc.max()) + 1 + mob_rows])
        return cls(version, kinds, np.concatenate([np.arange(n_items), n_items + mob_rows]))


def goal_code(goal: Any, vocab: Vocab, kb: Any = None) -> tuple[int, int]:
    """(skill index in SKILLS, target index): an item index, or n_items + mob id for a mob.
    A find goal's thing is its mob, or the item of the first block its word names (tree: log).
    Generic item names (log, planks) map to their first concrete variant when `kb` is given."""
    ((name, _),) = list(goal.obj.items())[:1]
    if goal.action == "find":
        return SKILLS.index("find"), find_target(name, vocab)
    if goal.action == "kill" and name in vocab.mob_id:
        return ACTIONS.index("kill"), vocab.n_items + int(vocab.mob_as[vocab.mob_id[name]])
    if name not in vocab.item_id and kb is not None:
        vs = kb.variants(name)
        name = vs[0] if vs else name
    if name not in vocab.item_id:
        raise GridWorldError(f"unknown item {name!r} for a goal")
    return ACTIONS.index(goal.action), vocab.item_id[name]


def find_target(word: str, vocab: Vocab) -> int:
    """The target index of a find goal's thing: n_items + mob id for a mob, else the item of the
    first cell the context terms' word names (tree: log, grass: grass); GridWorldError if none."""
    from worlds.context_tasks import matches

    if word in vocab.mob_id:
        return vocab.n_items + int(vocab.mob_as[vocab.mob_id[word]])
    for c, cell in enumerate(vocab.cells[2:], start=2):
        names = [n for n in (cell, vocab.block_of[c]) if n]
        if matches(word, set(names), "blocks"):
            for n in names:
                if n in vocab.item_id:
                    return vocab.item_id[n]
    raise GridWorldError(f"nothing to find called {word!r} in this world's vocabulary")

"""The goal's target map: where the blocks and mobs a goal needs are, above and far below the agent.

The surroundings map (surround.py) counts every kind of cell and mob within 22 cells, but only
on the local grid's five levels (feet - 2 to feet + 2). Ores lie 4 to 60 levels under the
surface, so from the surface the policy saw no coal, iron or diamond at all while the scripted
expert it imitates plans its dig to the nearest one: the same state got "dig down", "walk east"
or "walk west" as labels, and the policy wandered (0.22 one-goal success on iron ore).

`target_map(env, rows, luts)` gives, for each world, the count of the goal's source cells and
mobs (worlds/gridworld/sources.py: the cells that drop the item, the mobs that drop it or are
it) in BANDS of levels relative to the agent's feet, each pooled POOL x POOL into SIDE x SIDE
columns around the agent (the surroundings map's grid): uint8 [n, len(BANDS), SIDE, SIDE].
Like the surroundings map it is a sense through the ground (an X-ray the game does not give a
player); the docs say so where they report what it bought.

`near_map(env, rows, luts)` is the same count close by and sharp (issue 20, round 19): each of
the NEAR_LEVELS (feet - 5 to feet + 5) its own band, one column per cell, over the 15 x 15 cells
around the agent. The target map pools 3 x 3 columns and lumps feet - 6 to feet - 3 into one
band, and the local grid shows ids only on five levels within 4 cells: a gravel block three
levels down and two cells east was "somewhere in that block", and the policy's failed flint
pursuits ended 1 to 11 steps from gravel, digging around it (docs/results/learned-parts.md,
round 18).

While a world's target map is empty, the policy is given a zoomed-out one instead (ZOOMS, issue
20 round 30): the same columns, each 3 and then 9 times as wide, and its outer bands open to the
top and bottom of the world, so a lake 40 cells off or 64 levels down shows on its side.

`pack(around, tmap)` appends the bands to the surroundings map's channels, so that the
observation's "around" array carries both through GoalPolicy unchanged; a network whose shape
has `target` bands (and `near` levels, packed after them) splits them off again (model.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skills.learned.paths import LearnedError
from skills.learned.source_columns import columns
from skills.learned.surround import KEY, POOL, RADIUS, SIDE
from worlds.gridworld.ground import ground_items
from worlds.gridworld.sources import goal_sources, laying_mobs

# Levels relative to the agent's feet, (lowest, highest), inclusive: above the local view,
# the local view's own five levels, then ever coarser bands down to 60 levels below.
BANDS: tuple[tuple[int, int], ...] = ((3, 8), (-2, 2), (-6, -3), (-12, -7), (-24, -13), (-60, -25))
NEAR_LEVELS = tuple(range(-5, 6))  # the near map's levels relative to the feet, one band each


@dataclass(frozen=True)
class Layout:
    """How a map counts: its bands of levels (relative to the feet, inclusive), and the
    columns around the agent (`radius` cells each way, `pool` x `pool` cells a column)."""

    bands: tuple[tuple[int, int], ...]
    radius: int
    pool: int
    low: int = field(init=False)
    high: int = field(init=False)
    band_of: np.ndarray = field(init=False, repr=False, compare=False)  # band of each level, `low` first

    def __post_init__(self) -> None:
        assert (2 * self.radius + 1) == self.pool * SIDE, "the map's columns must tile its window, SIDE a side"
        low, high = min(b[0] for b in self.bands), max(b[1] for b in self.bands)
        out = np.full(high - low + 1, -1, np.int64)
        for b, (lo, hi) in enumerate(self.bands):
            out[lo - low : hi - low + 1] = b
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "band_of", out)


TARGET = Layout(BANDS, RADIUS, POOL)
# The zoomed-out target maps, widest last: SIDE x SIDE columns, each ZOOM_STEP (then
# ZOOM_STEP**2) times as wide, 67 and then 202 cells each way, and the top and bottom bands open
# to the world's top and bottom (a lava lake 64 levels under a mountain). Used only while the
# map before is empty: a lake 40 cells off, or an oak on the far side of a task's grown map,
# shows in the columns on its side, nearer than it is, where the plain map showed nothing.
ZOOM_STEP = 3
ZOOM_BANDS = ((BANDS[0][0], 255), *BANDS[1:-1], (-255, BANDS[-1][1]))
ZOOMS = tuple(Layout(ZOOM_BANDS, (POOL * ZOOM_STEP**z * SIDE - 1) // 2, POOL * ZOOM_STEP**z) for z in (1, 2))
ZOOM_ENV = "DEPS_TARGET_ZOOM"  # "0" turns the zoom off (the maps before issue 20's round 30)


def zoom_on() -> bool:
    """Whether observations get the zoomed-out target map: $DEPS_TARGET_ZOOM, "1" (the default)
    or "0"; LearnedError for anything else (GoalPolicy checks it when it loads)."""
    v = os.environ.get(ZOOM_ENV, "1").strip()
    if v not in ("0", "1"):
        raise LearnedError(f"${ZOOM_ENV} is {v!r}; accepted: 1 (zoom out while the target map is empty) or 0 (never)")
    return v == "1"


NEAR = Layout(tuple((lv, lv) for lv in NEAR_LEVELS), SIDE // 2, 1)


class Where(tuple):
    """The lut() of a find goal: no source ids (an empty cell and mob mask, so it stacks with
    the others) and the goal's conditions; its target map counts the standing cells that meet
    the where-conditions (skills/find.py: where_cells) instead of source blocks and mobs."""

    conds: dict

    def __new__(cls, env: Any, conds: dict) -> Where:
        out = super().__new__(cls, (np.zeros(len(env.vocab.cells), bool), np.zeros(len(env.vocab.mobs), bool)))
        out.conds = dict(conds)
        return out


class PickUp(tuple):
    """The lut() of a goal whose item is picked up from the ground (an egg): the mobs that lay it
    (a chicken) as its source mobs, and the item's name, so that the target map also counts the
    ones lying about (worlds/gridworld/ground.py: ground_items). Before round 12 an egg's target map
    was empty: the policy saw neither the chickens to wait by nor the eggs to walk to."""

    item: str

    def __new__(cls, cells: np.ndarray, mobs: np.ndarray, item: str) -> PickUp:
        out = super().__new__(cls, (cells, mobs))
        out.item = item
        return out


class Cells(tuple):
    """A lut() whose sources are given cells, by position, rather than every cell of some ids:
    the logs left hanging in a trunk cut at its foot, say (experiments/apple_parts.py). No
    source ids (empty masks, so it stacks with the others); its target map counts `points`."""

    points: list[tuple[int, int, int]]

    def __new__(cls, env: Any, points: list[tuple[int, int, int]]) -> Cells:
        out = super().__new__(cls, (np.zeros(len(env.vocab.cells), bool), np.zeros(len(env.vocab.mobs), bool)))
        out.points = list(points)
        return out


def lut(env: Any, goal: Any) -> tuple[np.ndarray, np.ndarray]:
    """(bool [cells], bool [mobs]): which cell and mob ids are a source of the goal; a Where for
    a find goal, a PickUp for an item laid on the ground."""
    if goal.action == "find":
        from skills.find import find_conditions

        return Where(env, find_conditions(goal))
    cells, mobs = goal_sources(env, goal)
    ((item, _),) = list(goal.obj.items())[:1]
    layers = laying_mobs(env, item) if goal.action == "mine" else set()
    c = np.zeros(len(env.vocab.cells), bool)
    m = np.zeros(len(env.vocab.mobs), bool)
    c[sorted(cells)] = True
    m[sorted(mobs | layers)] = True
    return PickUp(c, m, item) if layers else (c, m)


def target_map(env: Any, rows: Any, luts: list[tuple[np.ndarray, np.ndarray]], zoom: bool = False) -> np.ndarray:
    """uint8 [n, len(BANDS), SIDE, SIDE] for the worlds `rows` of a batched grid world, world k
    with the goal whose lut() is luts[k]. With `zoom`, a world whose map is empty gets instead
    the map over a window ZOOM_STEP times as wide (then ZOOM_STEP times again), its top and
    bottom bands open, so a source beyond the window still shows which way it lies (ZOOMS)."""
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    out = _layout_map(env, rows, luts, TARGET)
    for lay in ZOOMS if zoom else ():
        empty = np.nonzero(out.reshape(len(rows), -1).sum(axis=1) == 0)[0]
        if empty.size == 0:
            break
        out[empty] = _layout_map(env, rows[empty], [luts[k] for k in empty.tolist()], lay)
    return np.minimum(out, 255).astype(np.uint8)


def _layout_map(env: Any, rows: np.ndarray, luts: list, lay: Layout) -> np.ndarray:
    """int32 [n, len(lay.bands), SIDE, SIDE]: the goal's sources counted in the layout `lay`."""
    n = len(rows)
    out = np.zeros((n, len(lay.bands), SIDE, SIDE), np.int32)
    if n == 0:
        return out
    pos = env.pos[rows].astype(np.int64)
    cl = np.stack([np.asarray(c, bool) for c, _ in luts])  # n, cell ids
    ml = np.stack([np.asarray(m, bool) for _, m in luts])  # n, mob ids
    with_cells = np.nonzero(cl.any(axis=1))[0]
    if with_cells.size:
        cache = columns(env)
        if len(np.unique(rows)) == n:
            out[with_cells] = cache.blocks(env, rows[with_cells], cl[with_cells], pos[with_cells], lay)
        else:  # a world asked for twice (two goals, say): one at a time, each synced in turn
            for k in with_cells.tolist():
                out[k] = cache.blocks(env, rows[k : k + 1], cl[k : k + 1], pos[k : k + 1], lay)[0]
    _add_rest(out, env, rows, luts, ml, pos, lay)
    return out


def near_map(env: Any, rows: Any, luts: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """uint8 [n, len(NEAR_LEVELS), SIDE, SIDE] (level, z, x): the target map's count close by,
    each level its own band and each cell its own column (NEAR)."""
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    n = len(rows)
    out = np.zeros((n, len(NEAR_LEVELS), SIDE, SIDE), np.int32)
    if n == 0:
        return out.astype(np.uint8)
    pos = env.pos[rows].astype(np.int64)
    _, X, Z, H = env.cells.shape
    d = np.arange(-NEAR.radius, NEAR.radius + 1)
    xs, zs, ys = pos[:, 0:1] + d, pos[:, 2:3] + d, pos[:, 1:2] + np.array(NEAR_LEVELS)
    ix = np.clip(xs, 0, X - 1)[:, None, None, :]  # n, level, z, x
    iz = np.clip(zs, 0, Z - 1)[:, None, :, None]
    iy = np.clip(ys, 0, H - 1)[:, :, None, None]
    inside = ((xs >= 0) & (xs < X))[:, None, None, :] & ((zs >= 0) & (zs < Z))[:, None, :, None]
    inside = inside & ((ys >= 0) & (ys < H))[:, :, None, None]
    cl = np.stack([np.asarray(c, bool) for c, _ in luts])  # n, cell ids
    # one flat gather each (a read with four broadcast index arrays took twice as long)
    ids = np.take(env.cells.reshape(-1), (((rows[:, None, None, None] * X + ix) * Z + iz) * H + iy))
    out += np.take(cl.reshape(-1), ids + (np.arange(n) * cl.shape[1])[:, None, None, None]) & inside
    ml = np.stack([np.asarray(m, bool) for _, m in luts])
    _add_rest(out, env, rows, luts, ml, pos, NEAR)
    return np.minimum(out, 255).astype(np.uint8)


def _add_rest(
    out: np.ndarray, env: Any, rows: np.ndarray, luts: list, ml: np.ndarray, pos: np.ndarray, lay: Layout
) -> None:
    """Add to a map what is not a source cell: the source mobs, a find goal's standing cells
    (instead of the rest), an item's ones lying on the ground, given cells; in place."""
    _add_mobs(out, env, rows, ml, pos, lay)
    for k, one in enumerate(luts):
        if isinstance(one, Where):
            out[k] = where_map(env, int(rows[k]), one.conds, pos[k], lay)
        elif isinstance(one, PickUp):
            _add_points(out, k, ground_items(env, int(rows[k]), one.item), pos[k], lay)
        elif isinstance(one, Cells):
            _add_points(out, k, one.points, pos[k], lay)


def where_map(env: Any, i: int, conds: dict, pos: np.ndarray, lay: Layout = TARGET) -> np.ndarray:
    """int [len(BANDS), SIDE, SIDE]: world i's standing cells that meet a find goal's
    where-conditions (or, while none does, those a mob of them comes closest to: where the
    walk heads, skills/find.py: approach_cells), counted in the target map's bands and pooled
    columns around `pos` (a map laid out as `lay`)."""
    from skills.find import approach_cells

    mask, _ = approach_cells(env, i, conds)
    X, Z, Y = mask.shape
    x, y, z = (int(c) for c in pos)
    levels = np.concatenate([np.zeros((X, Z, 1), np.int32), np.cumsum(mask, axis=2, dtype=np.int32)], axis=2)
    window = 2 * lay.radius + 1
    x0, z0 = x - lay.radius, z - lay.radius
    xa, xb, za, zb = max(0, x0), min(X, x0 + window), max(0, z0), min(Z, z0 + window)
    out = np.zeros((len(lay.bands), SIDE, SIDE), np.int32)
    for b, (lo, hi) in enumerate(lay.bands):
        a, c = min(max(y + lo, 0), Y), min(max(y + hi + 1, 0), Y)
        if c <= a:
            continue
        win = np.zeros((window, window), np.int32)  # [x, z] around the agent
        win[xa - x0 : xb - x0, za - z0 : zb - z0] = levels[xa:xb, za:zb, c] - levels[xa:xb, za:zb, a]
        out[b] = win.reshape(SIDE, lay.pool, SIDE, lay.pool).sum(axis=(1, 3)).T  # [z column, x column], as _add_mobs
    return out


def _add_mobs(out: np.ndarray, env: Any, rows: np.ndarray, ml: np.ndarray, pos: np.ndarray, lay: Layout) -> None:
    """Count each world's source mobs in the window into its band and pooled column, in place."""
    kind = env.mob_kind[rows].astype(np.int64)  # n, mob slots
    rel = env.mob_pos[rows].astype(np.int64) - pos[:, None, :]
    k, slot = np.nonzero((kind > 0) & np.take_along_axis(ml, kind, axis=1))
    _count(out, k, rel[k, slot], lay)


def _add_points(out: np.ndarray, k: int, points: list[tuple[int, int, int]], pos: np.ndarray, lay: Layout) -> None:
    """Count the cells `points` (x, y, z) around world k's `pos` into its bands and columns, in place."""
    if points:
        _count(out, np.full(len(points), k), np.asarray(points, np.int64) - pos[None, :], lay)


def _count(out: np.ndarray, k: np.ndarray, rel: np.ndarray, lay: Layout) -> None:
    """Add one to out[k] for each offset `rel` (dx, dy, dz from the agent) inside the window and
    the bands of `lay`, in its band and column."""
    r_, lo, hi = lay.radius, lay.low, lay.high
    keep = (np.abs(rel[:, 0]) <= r_) & (np.abs(rel[:, 2]) <= r_) & (rel[:, 1] >= lo) & (rel[:, 1] <= hi)
    k, r = k[keep], rel[keep]
    b = lay.band_of[r[:, 1] - lo]
    on = b >= 0
    np.add.at(out, (k[on], b[on], (r[on, 2] + r_) // lay.pool, (r[on, 0] + r_) // lay.pool), 1)


def pack(around: np.ndarray, tmap: np.ndarray) -> np.ndarray:
    """The surroundings map [n, C, S, S] with the target map's bands appended: [n, C + B, S, S]."""
    return np.concatenate([np.asarray(around), np.asarray(tmap, dtype=np.uint8)], axis=1)


def add_to(
    obs: dict, env: Any, rows: Any, luts: list[tuple[np.ndarray, np.ndarray]], near: bool | np.ndarray = False
) -> dict:
    """The observation with the target map (and with `near`, the near map after it) packed into
    its surroundings map (obs[KEY], one world's [C, S, S] or a batch's [n, C, S, S]). `near` is
    True, False, or bool [n] (`near_rows`): the near map of those rows only, zeros in the others,
    whose goals go to networks that do not read it (issue 21: it cost 5 ms of a 256-world step
    for every goal but flint's)."""
    a = np.asarray(obs[KEY])
    single = a.ndim == 3
    t = target_map(env, rows, luts, zoom=zoom_on())
    k = np.nonzero(np.broadcast_to(np.asarray(near, dtype=bool), (len(t),)))[0]
    if k.size:
        n_map = np.zeros((len(t), len(NEAR_LEVELS), SIDE, SIDE), np.uint8)
        n_map[k] = near_map(env, np.asarray(rows, dtype=np.int64).reshape(-1)[k], [luts[j] for j in k.tolist()])
        t = np.concatenate([t, n_map], axis=1)
    obs[KEY] = pack(a[None] if single else a, t)[0 if single else slice(None)]
    return obs


def near_rows(policy: Any, codes: np.ndarray) -> np.ndarray:
    """bool [n]: whether the network that acts on each row's goal (`codes`, as `policy.codes`
    gives them) reads the near map; a RoutedPolicy sends each goal to one of its parts."""
    n = len(codes)
    parts = getattr(policy, "parts", None)
    if parts is None:
        return np.full(n, bool(getattr(policy.net.shape, "near", 0)))
    reads = np.array([bool(getattr(p.net.shape, "near", 0)) for p in parts])
    return reads[policy.parts_of(codes)]

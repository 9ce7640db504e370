"""The target map's cell counts kept from step to step (sense.py), instead of a fresh count of
every cell under the agent's window each step (issue 21: that count was about 60 % of the
policy's step).

For each world of a batched grid world, and the goal it was last asked for, `SourceColumns`
keeps:
- `run`: how many of the goal's source cells each column holds below each level (a running
  sum over the levels, level-major: run[w, y, x, z]);
- `seen`: the cells that running sum was counted from. Each call compares the world's cells
  with it (a plain comparison of the whole world, so a change made anywhere, by the step or
  by anyone else, is seen) and counts again only the columns that differ;
- `area`: for the agent's current level, each band's counts summed over the columns (a 2-D
  running sum over x and z, zero beyond the map), made again only when the level or the
  columns changed; one for each set of bands asked for (the plain target map's and the zoomed
  maps', which share `run` and `seen`).
A pooled block of the map is then four reads of `area`, so the map of every world is one
gather.
The counts are the same integers a fresh count gives (tests/test_sense_fast.py checks them
against a plain count on random worlds, goals and edits).
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from skills.learned.surround import POOL, RADIUS, SIDE

_STALE = np.iinfo(np.int64).min  # a level no agent stands on: the area must be made again


class _Areas:
    """One set of bands' `area` (see above) and the level each world's was made for."""

    def __init__(self, n: int, X: int, Z: int, bands: tuple[tuple[int, int], ...]):
        self.lo = np.array([b[0] for b in bands], np.int64)
        self.hi = np.array([b[1] for b in bands], np.int64)
        self.level = np.full(n, _STALE, np.int64)
        self.area = np.zeros((n, len(bands), X + 1, Z + 1), np.int32)


class SourceColumns:
    def __init__(self, env: Any):
        n, X, Z, H = env.cells.shape
        assert H < 256, "the running sums are uint8: a column holds at most 255 levels"
        assert POOL * SIDE == 2 * RADIUS + 1, "the pooled blocks must tile the window"
        self.shape = env.cells.shape
        self.lut = np.zeros((n, len(env.vocab.cells)), bool)  # the goal's source cells, per world
        self.ready = np.zeros(n, bool)  # whether run and seen hold that goal's counts
        self.seen = np.zeros_like(env.cells)
        self.run = np.zeros((n, H + 1, X, Z), np.uint8)
        self.areas: dict[tuple[tuple[int, int], ...], _Areas] = {}  # by bands: the plain and zoomed maps'

    def blocks(self, env: Any, rows: np.ndarray, cl: np.ndarray, pos: np.ndarray, lay: Any) -> np.ndarray:
        """int32 [n, bands, SIDE, SIDE] (band, pooled z, pooled x): the source cells counted in
        each pooled block of each world's window, laid out as `lay` (a sense.Layout: its bands,
        its window's radius and its blocks' side); rows must not repeat, cl [n, cells] bool is
        each world's goal, pos [n, 3] its agent's (x, y, z)."""
        same_goal = self.ready[rows] & (self.lut[rows] == cl).all(axis=1)
        for k in np.nonzero(~same_goal)[0].tolist():
            self._count(env, int(rows[k]), cl[k])
        for k in np.nonzero(same_goal)[0].tolist():
            self._sync(env, int(rows[k]), cl[k])
        n, X, Z, _ = self.shape
        a = self.areas.get(lay.bands)
        if a is None:
            a = self.areas[lay.bands] = _Areas(n, X, Z, lay.bands)
        stale = a.level[rows] != pos[:, 1]
        if stale.any():
            self._make(a, rows[stale], pos[stale, 1])
        offsets = lay.pool * np.arange(SIDE + 1) - lay.radius  # block edges, relative to the agent
        xs = np.clip(pos[:, 0:1] + offsets, 0, X)  # n, SIDE + 1
        zs = np.clip(pos[:, 2:3] + offsets, 0, Z)
        nb = len(a.lo)
        plane = (rows[:, None] * nb + np.arange(nb)) * (X + 1)  # n, bands
        flat = (plane[:, :, None, None] + xs[:, None, :, None]) * (Z + 1) + zs[:, None, None, :]
        g = np.take(a.area.reshape(-1), flat)  # n, bands, x edge, z edge
        sums = g[:, :, 1:, 1:] - g[:, :, :-1, 1:] - g[:, :, 1:, :-1] + g[:, :, :-1, :-1]
        return sums.transpose(0, 1, 3, 2)

    def _count(self, env: Any, w: int, cl: np.ndarray) -> None:
        """Count world w's columns afresh for the goal cl."""
        cells = env.cells[w]
        self.run[w, 1:] = np.cumsum(cl[cells], axis=2, dtype=np.uint8).transpose(2, 0, 1)
        self.seen[w] = cells
        self.lut[w], self.ready[w] = cl, True
        self._stale(w)

    def _sync(self, env: Any, w: int, cl: np.ndarray) -> None:
        """Count again the columns of world w whose cells changed since they were counted."""
        cells = env.cells[w]
        if _same(cells, self.seen[w]):
            return
        xs, zs = np.nonzero((cells != self.seen[w]).any(axis=2))
        col = cells[xs, zs]  # changed columns, levels
        self.run[w][1:, xs, zs] = np.cumsum(cl[col], axis=1, dtype=np.uint8).T
        self.seen[w][xs, zs] = col
        self._stale(w)

    def _stale(self, w: int) -> None:
        for a in self.areas.values():
            a.level[w] = _STALE

    def _make(self, a: _Areas, ws: np.ndarray, y: np.ndarray) -> None:
        """Each band's column counts for the agent standing on level y, summed over x and z."""
        H = self.shape[3]
        lo = np.clip(y[:, None] + a.lo, 0, H)  # n, bands: first level in the band (on the map)
        hi = np.clip(y[:, None] + a.hi + 1, 0, H)  # one past its last
        per_column = self.run[ws[:, None], hi] - self.run[ws[:, None], lo]  # n, bands, X, Z (hi >= lo)
        area = np.cumsum(np.cumsum(per_column, axis=2, dtype=np.int32), axis=3)
        a.area[ws, :, 1:, 1:] = area
        a.level[ws] = y


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two worlds' cells are equal (compared eight bytes at a time where they allow it)."""
    if a.flags.c_contiguous and b.flags.c_contiguous and a.nbytes % 8 == 0:
        return not (a.reshape(-1).view(np.uint64) != b.reshape(-1).view(np.uint64)).any()
    return not (a != b).any()


_KEPT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def columns(env: Any) -> SourceColumns:
    """The SourceColumns of a batched grid world (made on first use; dropped with the world)."""
    c = _KEPT.get(env)
    if c is None or c.shape != env.cells.shape:
        c = _KEPT[env] = SourceColumns(env)
    return c

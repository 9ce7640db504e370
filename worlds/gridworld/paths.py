"""Path search in one grid world: from where the agent stands to a cell next to a target
(a block to break or a mob to hit), walking, jumping up a block, digging through or down,
and pillaring up, each at its true cost in steps (digging: the block's break time with the
agent's tools).  A* over standing cells, toward the few candidate targets that look
cheapest; used by the scripted experts (skills/experts.py) and by `goal_distance`.

A path is a list of segments, each a tuple the experts turn into primitive actions:
  ("walk", d)   step into the free cell in direction d (0 north, 1 south, 2 east, 3 west)
  ("jump", d)   jump onto the block in direction d
  ("dig", d)    break the block in direction d, then step in
  ("down",)     break the block below and drop into the hole
  ("pillar",)   break the block above if any, then jump and place a block underneath
"""

from __future__ import annotations

import heapq
import weakref
from typing import Any

import numpy as np

from worlds.gridworld.spec import FACING_VECTORS, game_data

H_DIRS = ((0, 0, -1), (0, 0, 1), (1, 0, 0), (-1, 0, 0))
NEIGHBOURS = tuple(FACING_VECTORS)  # the six faces an agent can hit
# Nodes one search may expand: MAX_NODES per 48 x 48 of map, and at least MIN_NODES (4 x
# MAX_NODES) on a small map, where 25000 were too few when digging by hand or with a wooden
# pickaxe floods the ground near the start with equally cheap nodes (surface gravel 20 cells
# off, a netherrack pocket 58 levels down).  A path found within a smaller budget is found
# the same with a larger one (the search order does not depend on it); only a search that
# fails takes longer (about 1.5 s instead of 0.4 s on one core, on the 48 x 48 map).
MAX_NODES = 25000
MIN_NODES = 100000
# Each world's last question and answer (batch -> world -> (question, its cells then, answer)). The
# same question of unchanged cells has the same answer (the search reads nothing else), and it is
# asked often: an expert asked afresh after the learner turned in place (DAgger labels,
# training/controller/data.py) searched again from the same cell, half of all searches for flint.
_LAST: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class Terrain:
    """Fast read access to world i of a batch, plus its break costs with the agent's tools."""

    def __init__(self, env: Any, i: int):
        self.env, self.i, r = env, i, env.rules
        self.cells = env.cells[i]
        self.X, self.Z, self.H = env.X, env.Z, env.H
        self.passable, self.solid, self.liquid, self.deadly = r.passable, r.solid, r.liquid, r.deadly
        self.breakable = r.breakable
        inv = env.inv[i : i + 1]
        held, best = r.tool_state(inv)
        C = len(r.hardness)
        cs = np.arange(C)
        kind = r.cell_kind
        speed = np.where(kind >= 0, best[0, np.maximum(kind, 0)], 1.0)
        can = ~r.needs_tool | (held[0][None, :] & r.harvest).any(axis=1)
        self.can_harvest = can
        self.break_cost = r.break_steps(cs, speed, can).astype(int)
        ids = [env.vocab.item_id[b] for b in game_data()["building_blocks"] if b in env.vocab.item_id]
        self.has_block = bool((inv[0][ids] > 0).any())

    def cell(self, x: int, y: int, z: int) -> int:
        if 0 <= x < self.X and 0 <= z < self.Z and 0 <= y < self.H:
            return int(self.cells[x, z, y])
        return 1  # void

    def land(self, x: int, y: int, z: int) -> int | None:
        """Where the agent ends up after entering (x, y, z): falls to the ground; None in lava."""
        while True:
            c = self.cell(x, y, z)
            if self.deadly[c]:
                return None
            if self.liquid[c]:
                return y
            b = self.cell(x, y - 1, z)
            if not self.passable[b]:
                return y
            y -= 1

    def moves(self, s: tuple[int, int, int]):
        """(next standing cell, cost, segment) from standing cell s."""
        x, y, z = s
        head = self.cell(x, y + 1, z)
        for d, (dx, _, dz) in enumerate(H_DIRS):
            fx, fz = x + dx, z + dz
            c = self.cell(fx, y, fz)
            if self.passable[c] and not self.deadly[c]:
                ly = self.land(fx, y, fz)
                if ly is not None:
                    yield (fx, ly, fz), 1, ("walk", d)
            elif self.solid[c]:
                up = self.cell(fx, y + 1, fz)
                if self.passable[up] and self.passable[head] and not self.deadly[up] and not self.liquid[up]:
                    yield (fx, y + 1, fz), 2, ("jump", d)
                if self.breakable[c]:
                    ly = self.land(fx, y, fz)
                    if ly is not None:
                        yield (fx, ly, fz), 2 + int(self.break_cost[c]), ("dig", d)
        b = self.cell(x, y - 1, z)
        if self.breakable[b] and y - 1 >= 1:
            ly = self.land_after_dig(x, y - 1, z)
            if ly is not None:
                yield (x, ly, z), 1 + int(self.break_cost[b]), ("down",)
        if self.has_block and y + 1 < self.H - 1:
            if self.passable[head] and not self.liquid[head]:
                yield (x, y + 1, z), 1, ("pillar",)
            elif self.breakable[head]:
                yield (x, y + 1, z), 2 + int(self.break_cost[head]), ("pillar",)

    def land_after_dig(self, x: int, y: int, z: int) -> int | None:
        c = self.cell(x, y - 1, z)
        if self.deadly[c]:
            return None
        return y if not self.passable[c] or self.liquid[c] else self.land(x, y - 1, z)


def estimate(s: tuple[int, int, int], t: tuple[int, int, int], dig: float) -> float:
    dx, dy, dz = abs(s[0] - t[0]), t[1] - s[1], abs(s[2] - t[2])
    return dx + dz + (abs(dy) * dig if dy < 0 else dy * 2)


def search(
    terrain: Terrain,
    start: tuple[int, int, int],
    targets: list[tuple[int, int, int]],
    max_nodes: int | None = None,
    stand: Any = None,
    slack: int = 1,
) -> tuple[list, int, tuple[int, int, int]] | None:
    """A* to a standing cell next to one of `targets`: (segments, cost, the target reached).
    With `stand` (a predicate on standing cells), to the nearest standing cell it accepts
    instead, `targets` guiding the search (`slack`: how far from a target such a cell may be)."""
    if not targets:
        return None
    if max_nodes is None:  # MAX_NODES on the default 48 x 48 map, more on a map made larger for a task
        max_nodes = max(MIN_NODES, MAX_NODES * max(1, (terrain.X * terrain.Z) // (48 * 48)))
    start = (int(start[0]), int(start[1]), int(start[2]))
    if stand is not None:  # a predicate's answers are not part of the question: not remembered
        return _search(terrain, start, targets, max_nodes, stand, slack)
    question = (start, tuple(targets), max_nodes, slack, terrain.break_cost.tobytes(), terrain.has_block)
    last = _LAST.setdefault(terrain.env, {})
    hit = last.get(terrain.i)
    if hit is not None and hit[0] == question and np.array_equal(hit[1], terrain.cells):
        found = hit[2]
    else:
        found = _search(terrain, start, targets, max_nodes, None, slack)
        last[terrain.i] = (question, terrain.cells.copy(), found)
    return None if found is None else (list(found[0]), found[1], found[2])


def _search(
    terrain: Terrain, start: tuple[int, int, int], targets: list, max_nodes: int, stand: Any, slack: int
) -> tuple[list, int, tuple[int, int, int]] | None:
    tset = set(targets)

    def reached(s):
        if stand is not None:
            return s if stand(s) else None
        for dx, dy, dz in NEIGHBOURS:
            t = (s[0] + dx, s[1] + dy, s[2] + dz)
            if t in tset:
                return t
        return None

    stone = terrain.env.vocab.cell_id.get("stone")
    dig = 1.0 + float(terrain.break_cost[stone]) if stone is not None else 2.0  # most of the underground

    def h(s):
        return min(estimate(s, t, dig) for t in targets) - slack

    frontier = [(h(start), 0, start)]  # ties on f go to the deeper node (-g): no plateau sweeps
    best = {start: 0}
    back: dict = {start: None}
    expanded = 0
    while frontier and expanded < max_nodes:
        _, neg_g, s = heapq.heappop(frontier)
        g = -neg_g
        if g > best.get(s, 1 << 30):
            continue
        t = reached(s)
        if t is not None:
            segs = []
            while back[s] is not None:
                prev, seg = back[s]
                segs.append(seg)
                s = prev
            return segs[::-1], g, t
        expanded += 1
        for nxt, c, seg in terrain.moves(s):
            ng = g + c
            if ng < best.get(nxt, 1 << 30):
                best[nxt] = ng
                back[nxt] = (s, seg)
                heapq.heappush(frontier, (ng + h(nxt), -ng, nxt))
    return None


def candidates(env: Any, i: int, cells: set[int], mobs: set[int], k: int = 4) -> list[tuple[int, int, int]]:
    """The k target positions (blocks of the given cell ids, mobs of the given kinds) that look
    cheapest from where the agent stands."""
    pos = tuple(int(v) for v in env.pos[i])
    out: list[tuple[int, int, int]] = []
    if cells:
        mask = np.isin(env.cells[i], np.array(sorted(cells), dtype=np.uint8))
        xs, zs, ys = np.nonzero(mask)
        if xs.size:
            dy = ys - pos[1]
            est = np.abs(xs - pos[0]) + np.abs(zs - pos[2]) + np.where(dy < 0, -dy * 5, dy * 2)
            order = np.argsort(est, kind="stable")[:k]
            out += [(int(xs[j]), int(ys[j]), int(zs[j])) for j in order]
    if mobs:
        alive = np.nonzero(np.isin(env.mob_kind[i], np.array(sorted(mobs), dtype=np.uint8)))[0]
        ps = env.mob_pos[i, alive]
        if len(ps):
            est = np.abs(ps - np.array(pos)).sum(axis=1)
            out += [(int(ps[j][0]), int(ps[j][1]), int(ps[j][2])) for j in np.argsort(est, kind="stable")[:k]]
    return out

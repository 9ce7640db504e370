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
WALK, JUMP, DIG = (tuple((kind, d) for d in range(len(H_DIRS))) for kind in ("walk", "jump", "dig"))
DOWN, PILLAR = ("down",), ("pillar",)
# Nodes one search may expand: MAX_NODES per 48 x 48 of map, and at least MIN_NODES (4 x
# MAX_NODES) on a small map, where 25000 were too few when digging by hand or with a wooden
# pickaxe floods the ground near the start with equally cheap nodes (surface gravel 20 cells
# off, a netherrack pocket 58 levels down).  A path found within a smaller budget is found
# the same with a larger one (the search order does not depend on it); only a search that
# fails takes longer: on one core, on the 48 x 48 map, about 1.5 s instead of 0.4 s when this was set,
# and 0.43 s for all 100000 nodes since the search reads padded bytes (2026-12-04).
MAX_NODES = 25000
MIN_NODES = 100000
# Each world's recent questions and answers while its cells stay as they were (batch -> world ->
# (its cells then, {question: answer})). The same question of unchanged cells has the same answer
# (the search reads nothing else), and it is asked often: an expert asked afresh after the learner
# turned in place (DAgger labels, training/controller/data.py) searched again from the same cell,
# half of all searches for flint. An expert whose nearest sources are out of reach asks two questions
# in turn (the nearest few, then WIDER of them: skills/experts.py), so one remembered question missed
# every time: a learner idling under acacia leaves it cannot reach had both searches spend their
# whole budget again at each step, 2 s a step (issue 20, leaves2's DAgger labels).
_LAST: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
REMEMBERED = 8  # questions kept per world; the oldest goes first


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
        # The search reads cells and their kinds a few million times: the cells as bytes with a border
        # of void one cell wide (the search never looks further out: void is solid and unbreakable),
        # so a neighbour is one index away with no bounds to check, and the kinds as plain lists.
        self._sz = self.H + 2  # one step along z, in the padded bytes; one along y is 1
        self._sx = (self.Z + 2) * self._sz  # one step along x
        self._padded = np.pad(self.cells, 1, constant_values=1).tobytes()  # x, z, y order, as env.cells[i]
        self._side = (-self._sz, self._sz, self._sx, -self._sx)  # H_DIRS as index steps
        self._walkable = [bool(p and not d) for p, d in zip(r.passable, r.deadly)]
        self._pass, self._solid = r.passable.tolist(), r.solid.tolist()
        self._liquid, self._deadly = r.liquid.tolist(), r.deadly.tolist()
        self._breakable, self._cost = r.breakable.tolist(), self.break_cost.tolist()

    def cell(self, x: int, y: int, z: int) -> int:
        if 0 <= x < self.X and 0 <= z < self.Z and 0 <= y < self.H:
            return self._padded[self._at(x, y, z)]
        return 1  # void

    def _at(self, x: int, y: int, z: int) -> int:
        """Index of (x, y, z) in the padded bytes."""
        return (x + 1) * self._sx + (z + 1) * self._sz + y + 1

    def _land(self, k: int, y: int) -> int | None:
        """Where the agent ends up after entering the cell at index k, level y: falls to the ground;
        None in lava."""
        cells, deadly, liquid, passable = self._padded, self._deadly, self._liquid, self._pass
        while True:
            c = cells[k]
            if deadly[c]:
                return None
            if liquid[c]:
                return y
            if not passable[cells[k - 1]]:
                return y
            k, y = k - 1, y - 1

    def moves(self, s: tuple[int, int, int]):
        """(next standing cell, cost, segment) from standing cell s."""
        x, y, z = s
        cells, land, passable, breakable, cost = self._padded, self._land, self._pass, self._breakable, self._cost
        k = self._at(x, y, z)
        head = cells[k + 1]
        head_free = passable[head]
        for d, (dx, _, dz) in enumerate(H_DIRS):
            f = k + self._side[d]
            c = cells[f]
            if self._walkable[c]:
                ly = land(f, y)
                if ly is not None:
                    yield (x + dx, ly, z + dz), 1, WALK[d]
            elif self._solid[c]:
                up = cells[f + 1]
                if passable[up] and head_free and not self._deadly[up] and not self._liquid[up]:
                    yield (x + dx, y + 1, z + dz), 2, JUMP[d]
                if breakable[c]:
                    ly = land(f, y)
                    if ly is not None:
                        yield (x + dx, ly, z + dz), 2 + cost[c], DIG[d]
        b = cells[k - 1]
        if breakable[b] and y - 1 >= 1:  # break the block below and drop in: onto what lies under it
            c = cells[k - 2]
            if not self._deadly[c]:
                ly = y - 1 if not passable[c] or self._liquid[c] else land(k - 2, y - 2)
                if ly is not None:
                    yield (x, ly, z), 1 + cost[b], DOWN
        if self.has_block and y + 1 < self.H - 1:
            if head_free and not self._liquid[head]:
                yield (x, y + 1, z), 1, PILLAR
            elif breakable[head]:
                yield (x, y + 1, z), 2 + cost[head], PILLAR


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
    worlds = _LAST.setdefault(terrain.env, {})
    seen = worlds.get(terrain.i)
    if seen is None or not np.array_equal(seen[0], terrain.cells):  # a cell changed: any answer may differ
        seen = worlds[terrain.i] = (terrain.cells.copy(), {})
    answers = seen[1]
    if question in answers:
        found = answers[question]
    else:
        found = _search(terrain, start, targets, max_nodes, None, slack)
        if len(answers) >= REMEMBERED:
            del answers[next(iter(answers))]
        answers[question] = found
    return None if found is None else (list(found[0]), found[1], found[2])


def _search(
    terrain: Terrain, start: tuple[int, int, int], targets: list, max_nodes: int, stand: Any, slack: int
) -> tuple[list, int, tuple[int, int, int]] | None:
    spots = [(int(t[0]), int(t[1]), int(t[2])) for t in targets]
    if stand is None:  # each standing cell beside a target, and the target it reaches (the first face in order)
        tset = set(spots)
        beside: dict = {}
        for tx, ty, tz in tset:
            for dx, dy, dz in NEIGHBOURS:
                s = (tx - dx, ty - dy, tz - dz)
                if s not in beside:
                    beside[s] = next(t for t in ((s[0] + a, s[1] + b, s[2] + c) for a, b, c in NEIGHBOURS) if t in tset)
        reached: Any = beside.get
    else:
        reached = lambda s: s if stand(s) else None  # noqa: E731

    stone = terrain.env.vocab.cell_id.get("stone")
    dig = 1.0 + float(terrain.break_cost[stone]) if stone is not None else 2.0  # most of the underground

    def h(s):  # the cheapest target as the crow digs: flat steps, 2 a level up, `dig` a level down
        sx, sy, sz = s
        low = float("inf")  # targets is never empty: always replaced by the first target's estimate
        for tx, ty, tz in spots:
            dy = ty - sy
            e = abs(sx - tx) + abs(sz - tz) + (-dy * dig if dy < 0 else dy * 2)
            if e < low:
                low = e
        return low - slack

    push, pop = heapq.heappush, heapq.heappop
    frontier = [(h(start), 0, start)]  # ties on f go to the deeper node (-g): no plateau sweeps
    best = {start: 0}
    back: dict = {start: None}
    expanded = 0
    while frontier and expanded < max_nodes:
        _, neg_g, s = pop(frontier)
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
                push(frontier, (ng + h(nxt), -ng, nxt))
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

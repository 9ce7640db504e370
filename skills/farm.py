"""The scripted expert for a farmed item (`mine wheat`, holding a hoe), as players farm it:

1. break grass until it holds the plot's seeds (worlds/gridworld/farming.py `plot_seeds`: a few more
   than the count wanted, since more crops ripen sooner);
2. pick a plot on grass or dirt within the water's reach (crops.py `watered`) with open sky: rows of
   crops with a row of bare farmland on each side, so that no crop is halved (crops.py `points`);
3. till it and plant it, standing on each cell in turn and facing down (`use` with the hoe, then the
   seeds);
4. wait beside it; at night in a hole two blocks deep (DigsIn), dug beside the plot, never in it;
5. by day, break each ripe crop, pick up what lies about, and plant the farmland again, until the
   count is held.

Without a hoe it stops with `needs a wooden_hoe to farm wheat` (the route makes one first), unless
ripe crops stand about already.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skills.experts import NOOP, Expert, P, face_action
from worlds.gridworld import crops, paths
from worlds.gridworld.farming import plot_seeds, tillable_by_water
from worlds.gridworld.ground import ground_items
from worlds.gridworld.sources import goal_sources
from worlds.gridworld.spec import AIR
from worlds.recipes import a as article
from worlds.types import Goal

DOWN = (0, -1, 0)
ANCHORS = 24  # moist cells near the agent tried as a plot's centre
ROW_HALF = 3  # a crop row runs this far either side of the anchor: seven long


class FarmExpert(Expert):
    def __init__(self, env: Any, i: int, goal: Goal):
        super().__init__(env, i, goal)
        crop = crops.farmed(self.item)
        assert crop is not None, f"{self.item} is not farmed"
        self.crop = crop
        self.d = crops.ids(self.v)
        self.k = crops.crops().index(crop)
        self.seed_id = self.v.item_id[crop.seed]
        self.seeds_wanted = plot_seeds(self.wanted)
        self.plot: list[tuple[int, int, int]] | None = None  # the ground cells (x, y, z) to till
        self.rows: set[tuple[int, int, int]] = set()  # those to plant
        self.walking_to: tuple[int, int, int] | None = None
        self.doing: tuple[tuple[int, int, int], int] | None = None  # (ground cell, item id) of the last use
        self.spot: tuple[int, int, int] | None = None  # where it waits and digs in, beside the plot
        self.no_spot: set[tuple[int, int, int]] = set()  # spots it could not walk to

    # ------------------------------------------------------------------ reading the world
    def _hoe(self) -> int | None:
        held = [h for h in sorted(self.d.hoes) if self.env.inv[self.i, h] > 0]
        return held[0] if held else None

    def _seeds(self) -> int:
        return int(self.env.inv[self.i, self.seed_id])

    def _planted(self) -> int:
        e, i = self.env, self.i
        return int((e.farm_live[i] & (e.crop_kind[i] == self.k)).sum())

    def _ripe(self) -> bool:
        e, i = self.env, self.i
        return bool((e.farm_live[i] & (e.crop_kind[i] == self.k) & (e.crop_age[i] >= self.crop.ages)).any())

    def _grass(self) -> set[int]:
        """Cells that give the seed by chance and are not a crop (tall grass)."""
        cells, _ = goal_sources(self.env, Goal("mine", {self.crop.seed: 1}))
        return {c for c in cells if self.d.crop_of[c] < 0}

    def _cell(self, t) -> int:
        x, y, z = t
        return int(self.env.cells[self.i, x, z, y]) if 0 <= y < self.env.H else AIR

    # ------------------------------------------------------------------ the skill
    def feedback(self, event: dict) -> None:
        """A till or a plant the world refused drops that cell from the plot (a mob stood in it,
        something was put above it), instead of ending the skill."""
        if event.get("error") and self.last_action == P["use"] and self.doing is not None:
            cell = self.doing[0]
            self.plot = [c for c in self.plot or [] if c != cell]
            self.rows.discard(cell)
            self.doing = None
            return
        self.doing = None
        super().feedback(event)

    def _mine(self):
        env, i = self.env, self.i
        if env.night()[i]:
            return self._night()
        lying = ground_items(env, i, self.item) + ground_items(env, i, self.crop.seed)
        step = self._walk_to_item(lying) if lying else None
        if step is not None:
            return step
        if self.to_item:
            self.plan, self.target, self.to_item = [], None, False
        if self._ripe():
            return self._gather({self.d.ripe_cell[self.k]}, set())
        hoe = self._hoe()
        if hoe is None and self.plot is None:
            need = crops.data()["hoe"]
            self._finish(False, f"needs {article(need)} to farm {self.item}", {need: 1})
            return None
        if self._planted() + self._seeds() < self.seeds_wanted and (self.plot is None or self._room()):
            grass = self._grass()
            if grass and np.isin(env.cells[i], sorted(grass)).any():
                return self._gather(grass, set())
        if self.plot is None:
            if not self._seeds():
                self._finish(False, f"no grass left to break for {self.crop.seed}", {self.crop.seed: 1})
                return None
            self.plot, self.rows = self._choose_plot()
            if not self.plot:
                self._finish(False, f"no grass or dirt to farm within {crops.data()['water_reach']} cells of water")
                return None
        work = self._work(hoe)
        if work is not None:
            return work
        if not self._planted():
            self._finish(False, f"nothing left to plant: no {self.crop.seed} held and no grass left", {})
            return None
        return self._wait()

    def _room(self) -> bool:
        """Whether the plot has a crop row cell with nothing planted."""
        return any(self._cell((x, y + 1, z)) == AIR for x, y, z in self.rows)

    def _work(self, hoe: int | None):
        """Till the plot's next cell, or plant the next row cell, nearest first; None when all is done."""
        pos = tuple(int(c) for c in self.env.pos[self.i])
        todo = []
        for g in self.plot or []:
            x, y, z = g
            c, above = self._cell(g), self._cell((x, y + 1, z))
            if hoe is not None and c in self.d.till and above == AIR:
                todo.append((g, hoe))
            elif c == self.d.farmland and g in self.rows and above == AIR and self._seeds():
                todo.append((g, self.seed_id))
        if not todo:
            return None
        g, item = min(todo, key=lambda t: abs(t[0][0] - pos[0]) + abs(t[0][2] - pos[2]))
        return self._use_below(g, item)

    def _use_below(self, g: tuple[int, int, int], item: int):
        """Stand on ground cell g, face down, use `item` on it."""
        stand = (g[0], g[1] + 1, g[2])
        here = tuple(int(c) for c in self.env.pos[self.i])
        if here != stand:
            return self._walk(stand)
        self.plan, self.walking_to = [], None
        if int(self.env.facing[self.i]) != 5:
            return face_action(DOWN), -1
        self.doing = (g, item)
        self.replans = 0
        return P["use"], item

    def _walk(self, stand: tuple[int, int, int]):
        if self.plan and self.walking_to == stand:
            return self._follow()
        here = tuple(int(c) for c in self.env.pos[self.i])
        found = paths.search(paths.Terrain(self.env, self.i), here, [stand], stand=lambda s: s == stand, slack=0)
        if found is None or not found[0]:  # out of reach: not part of the plot
            ground = (stand[0], stand[1] - 1, stand[2])
            self.plot = [c for c in self.plot or [] if c != ground]
            self.rows.discard(ground)
            if self.spot == stand:
                self.spot = None
                self.no_spot.add(stand)
            return NOOP
        self.plan, self.target, self.walking_to = list(found[0]), None, stand
        self.seg_steps, self.last_pos = 0, None
        return self._follow()

    def _wait(self):
        """Wait beside the plot for a crop to ripen (off it: the night's hole is dug where it waits)."""
        spot = self._spot()
        here = tuple(int(c) for c in self.env.pos[self.i])
        if spot is not None and here != spot and not self._sheltered():
            return self._walk(spot)
        self.waiting = True
        self.plan = []
        return NOOP

    def _night(self):
        """Into the night's hole (beside the plot, never in it), and wait there until dawn."""
        self.waiting = True
        if self._sheltered():
            self.plan = []
            return NOOP
        here = tuple(int(c) for c in self.env.pos[self.i])
        under = self._cell((here[0], here[1] - 1, here[2]))
        if under == self.d.farmland or (self.plot and (here[0], here[1] - 1, here[2]) in self.plot):
            spot = self._spot()
            if spot is not None and spot != here:
                return self._walk(spot)
            self.plan = []
            return NOOP  # nowhere off the plot to dig in: wait on it rather than dig it up
        if self._can_dig_in():
            return self._dig_in()
        self.plan = []
        return NOOP

    # ------------------------------------------------------------------ choosing where
    def _choose_plot(self) -> tuple[list[tuple[int, int, int]], set[tuple[int, int, int]]]:
        """The plot near the agent with the most crop cells (up to the seeds wanted), then the nearest:
        moist-to-be cells (grass or dirt, air above, open sky, water within reach) of one level around
        an anchor, crops on every other row (up to four rows of seven), the nearest the anchor kept,
        and the bare farmland beside them."""
        env, i = self.env, self.i
        ok, top = tillable_by_water(env, i)
        xs, zs = np.nonzero(ok)
        if not xs.size:
            return [], set()
        px, pz = int(env.pos[i, 0]), int(env.pos[i, 2])
        order = np.argsort(np.abs(xs - px) + np.abs(zs - pz), kind="stable")[:ANCHORS]
        best, best_key = None, None
        for j in order.tolist():
            ax, az = int(xs[j]), int(zs[j])
            y = int(top[ax, az])
            for along_x in (True, False):
                rows = sorted(  # nearest the anchor first
                    (abs(u) + abs(r), (ax + u, y, az + r) if along_x else (ax + r, y, az + u))
                    for u in range(-ROW_HALF, ROW_HALF + 1)
                    for r in (-3, -1, 1, 3)
                )
                kept = set([g for _, g in rows if self._fits(ok, top, g)][: self.seeds_wanted])
                cells = sorted(
                    {
                        (g[0] + dx, y, g[2] + dz)
                        for g in kept
                        for dx in (-1, 0, 1)
                        for dz in (-1, 0, 1)
                        if self._fits(ok, top, (g[0] + dx, y, g[2] + dz))
                    }
                )
                key = (-len(kept), abs(ax - px) + abs(az - pz))
                if best_key is None or key < best_key:
                    best, best_key = (cells, kept), key
        assert best is not None
        return best

    def _fits(self, ok: np.ndarray, top: np.ndarray, g: tuple[int, int, int]) -> bool:
        x, y, z = g
        return 0 <= x < self.env.X and 0 <= z < self.env.Z and bool(ok[x, z]) and int(top[x, z]) == y

    def _spot(self) -> tuple[int, int, int] | None:
        """A standing cell beside the plot, off it, on natural ground with no water beside it (the
        night's hole there is walled all round)."""
        if self.spot is not None:
            return self.spot
        env, i, r = self.env, self.i, self.env.rules
        plot = set(self.plot or [])
        if not plot:
            return None
        cx = sum(g[0] for g in plot) / len(plot)
        cz = sum(g[2] for g in plot) / len(plot)
        found = []
        for x, y, z in plot:
            for dx in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    g = (x + dx, y, z + dz)
                    if (
                        g in plot
                        or (g[0], y + 1, g[2]) in self.no_spot
                        or not (1 <= g[0] < env.X - 1 and 1 <= g[2] < env.Z - 1)
                    ):
                        continue
                    below = env.cells[i, g[0], g[2], y - 2 : y + 1]
                    feet = env.cells[i, g[0], g[2], y + 1 : y + 3]
                    ring = env.cells[i, g[0] - 1 : g[0] + 2, g[2] - 1 : g[2] + 2, y - 1 : y + 1]
                    if (
                        r.solid[below].all()
                        and r.breakable[below[1:]].all()
                        and not r.placed_only[below].any()
                        and (feet == AIR).all()
                        and not r.liquid[ring].any()
                        and self.d.crop_of[below].max() < 0
                        and (below != self.d.farmland).all()
                    ):
                        found.append((abs(g[0] - cx) + abs(g[2] - cz), (g[0], y + 1, g[2])))
        self.spot = min(found)[1] if found else None
        return self.spot

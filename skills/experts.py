"""Scripted experts for the grid world: one per skill the planners use, acting through the
world's primitive actions (worlds/gridworld/spec.py).

- mine X: the nearest block that gives X (digging down to ores, through whatever is in the
  way, with the tools held), then break it; a held bucket used on water, lava or a cow.
- mine obsidian: pour a held water bucket on a lava source (worlds/gridworld/pour.py), then
  break the obsidian it makes.
- mine egg: walk to an egg a chicken laid (worlds/gridworld/eggs.py), or wait by a chicken.
- mine apple: fell oak trunks, so that their leaves decay (decay.py), and pick the apples up.
  Any goal's item lying on the ground (ground.py) is walked to before a block is broken.
- kill M: chase the mob (re-planning as it wanders) and hit it until it drops its loot.
- craft / smelt: place a crafting table / furnace when none is within reach (walk to a
  placed one, or place a held one), then the functional action.
- equip: the functional action.
- Hostile mobs next to the agent are fought off first.

`Expert(env, i, goal)` drives world i of a BatchGridWorld: `act()` gives the next action
as (primitive index, item index) or None once the goal is done or has failed (`result`).
`demonstrate(env, goals)` yields (observation, expert actions, active mask) for every
step of a batch, the (observation, action) pairs a policy learns from by behaviour cloning.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from worlds.gridworld import functional, paths
from worlds.gridworld.ground import ground_items
from worlds.gridworld.metadata import slot_count
from worlds.gridworld.pour import made, pour_holds, pour_refusal, pour_sources
from worlds.gridworld.sources import (
    felling_sources,
    goal_sources,
    hunts_hostiles,
    laying_mobs,
    placeable_chance_sources,
    source_blocks,
)
from worlds.gridworld.spec import FACING_VECTORS, PRIMITIVE_ID, game_data
from worlds.inventory import Refusal
from worlds.recipes import a as article
from worlds.types import Goal

P = PRIMITIVE_ID
NOOP = (P["noop"], -1)
FUNCTIONAL_IDS = (P["craft"], P["smelt"], P["equip"], P["use"])
MAX_REPLANS = 6
SEGMENT_PATIENCE = 80  # primitive actions one segment may take before re-planning
WIDER = 32  # targets looked at when the nearest few are all out of reach
BUILDING = tuple(game_data()["building_blocks"])  # what pillars are built of, cheapest first
STUCK_AFTER = 200  # actions without any change (position, inventory, the map) before giving up
# On a hunt of the night's mobs, health (of 20) at which the expert digs in to heal, and at which it comes out
HEAL_BELOW, HEALED_AT = 8, 18


def face_action(delta: tuple[int, int, int]) -> int:
    idx = FACING_VECTORS.index(tuple(int(v) for v in delta))
    return P["face_up"] if idx == 4 else P["face_down"] if idx == 5 else P["face_north"] + idx


class DigsIn:
    """The night's hole two blocks deep, dug where the agent stands (FindExpert's, Shelter's for
    the learned controller's other pursuits, and every expert's to heal in on a night's hunt): a
    zombie or spider on the ground beside it cannot hit down that far (mobs.py: hits reach one
    level), nor a skeleton see into it. Needs an Expert's env, i and _hit."""

    hole: tuple[int, int, int] | None = None  # (x, z, feet level) where a night's hole was begun

    def _sheltered(self) -> bool:
        """In a hole whose eight neighbouring columns are solid at the feet and head levels:
        no mob can stand within one level of the agent beside it."""
        env, i = self.env, self.i
        x, y, z = (int(c) for c in env.pos[i])
        if x < 1 or z < 1 or x >= env.X - 1 or z >= env.Z - 1 or y + 2 > env.H:
            return False
        walls = env.cells[i, x - 1 : x + 2, z - 1 : z + 2, y : y + 2].copy()
        walls[1, 1] = 1  # the agent's own column
        return bool(env.rules.solid[walls].all())

    def _can_dig_in(self) -> bool:
        """One more block can be dug under the agent's feet: a breakable natural block, with
        solid ground under it, not too deep (a hole of at most 4)."""
        env, i = self.env, self.i
        x, y, z = (int(c) for c in env.pos[i])
        r, cells = env.rules, env.cells[i]
        top = self.hole[2] if self.hole is not None and self.hole[:2] == (x, z) else y
        below = cells[x, z, y - 1] if y >= 3 else 0
        return (
            y >= 5
            and y > top - 4
            and bool(
                r.breakable[below] and not r.placed_only[below] and not r.liquid[below] and r.solid[cells[x, z, y - 2]]
            )
        )

    def _dig_in(self):
        x, y, z = (int(c) for c in self.env.pos[self.i])
        if self.hole is None or self.hole[:2] != (x, z):
            self.hole = (x, z, y)
        self.waiting = True
        self.plan, self.target = [], None
        return self._hit((0, -1, 0))


class Expert(DigsIn):
    def __init__(self, env: Any, i: int, goal: Goal):
        self.env, self.i, self.goal = env, i, goal
        self.kb, self.v = env.kb, env.vocab
        ((self.item, self.wanted),) = list(goal.obj.items())[:1]
        self.result: dict | None = None  # {"ok": bool, "error": str|None, "missing": {}} once finished
        self.kills = 0
        self.start = self._count()
        self.plan: list = []
        self.target: tuple[int, int, int] | None = None
        self.seg_steps = 0
        self.replans = 0
        self.last_pos = None
        self.last_action = None
        self.fetch: Expert | None = None
        self.idle, self.last_sig = 0, None
        self.fetches = 0
        self.sources_at_fetch = 1 << 30  # source blocks left in the world at the last fetch of dirt
        self.avoid: tuple[int, int] | None = None  # a column not to dig in (the pillar we stand on)
        self.waiting = False
        self.to_item = False  # the walk under way ends at an item on the ground
        self.arg_name: str | None = None  # the item a craft or smelt makes, by name
        self.healing = False  # in the night's hole until health is back (a hunt of the night's mobs: _heal)
        self.hunts_hostiles: bool | None = None  # whether every mob the kill goal hunts fights back, once read
        self.squared: set = set()  # (where the agent stood, the mob's offset) it squared up from (_defend)

    # ------------------------------------------------------------------ bookkeeping
    def _count(self) -> int:
        if self.goal.action == "kill" and self.item in self.v.mob_id:
            return self.kills
        shared = slot_count(self.env, self.i, self.item)  # lapis_lazuli: dye's one slot (metadata.py)
        return shared if shared is not None else functional.bag_of(self.env, self.i).held(self.item)

    def progress(self) -> int:
        return self._count() - (0 if self.goal.action == "kill" and self.item in self.v.mob_id else self.start)

    def feedback(self, event: dict) -> None:
        """What the world said about the last step of this world (info["events"][i])."""
        if self.fetch is not None:
            self.fetch.feedback(event)
            return
        if event.get("error") and self.last_action in FUNCTIONAL_IDS:
            self._finish(False, event["error"], event.get("missing"))
        if event.get("killed") == self.item:
            self.kills += 1
        if event.get("killed") or event.get("broke"):
            self.plan, self.target = [], None

    def _finish(self, ok: bool, error: str | None = None, missing: dict | None = None) -> None:
        self.result = {"ok": ok, "error": error, "missing": missing or {}}

    # ------------------------------------------------------------------ acting
    def act(self) -> tuple[int, int] | None:
        self.waiting = False  # set by a skill that waits on purpose (for an egg, for the night)
        self.arg_name = None
        a = self._act()
        self.last_action = a[0] if a is not None else None
        if a is not None:
            sig = (
                tuple(int(v) for v in self.env.pos[self.i]),
                int(self.env.inv[self.i].sum()),
                int(self.env.mine_prog[self.i]),
                self.kills,
                self.fetch is None,
            )
            self.idle = self.idle + 1 if sig == self.last_sig and not self.waiting else 0
            self.last_sig = sig
            if self.idle >= STUCK_AFTER:
                self._finish(
                    False, f"stuck: {STUCK_AFTER} actions without progress toward {self.item}", {self.item: self.wanted}
                )
                return None
        return a

    def _act(self) -> tuple[int, int] | None:
        if self.result is not None:
            return None
        if self.env.dead[self.i]:
            self._finish(False, self.env.death(self.i))
            return None
        if self.goal.action == "equip" and self.progress() >= 0 and self._equipped():
            self._finish(True)
            return None
        if self.goal.action != "equip" and self.progress() >= self.wanted:
            self._finish(True)
            return None
        defend = self._defend()
        if defend is not None:
            return defend
        heal = self._heal()
        if heal is not None:
            return heal
        if self.fetch is not None:  # a helper goal (building blocks) runs first
            a = self.fetch.act()
            if a is not None:
                return a
            self.fetch = None
            self.plan, self.target = [], None
        return getattr(self, "_" + self.goal.action)()

    def _equipped(self) -> bool:
        bag = functional.bag_of(self.env, self.i)
        return any(self.kb.matches(self.item, it) or it == self.item for it in bag.equipment.values()) and getattr(
            self, "_did_equip", False
        )

    def _defend(self) -> tuple[int, int] | None:
        env, i = self.env, self.i
        hostile = env.rules.mob_hostile[env.mob_kind[i]] & (env.mob_kind[i] > 0)
        if not hostile.any() or not env.night()[i]:
            return None
        near = [tuple(int(v) for v in env.mob_pos[i, m] - env.pos[i]) for m in np.nonzero(hostile)[0]]
        for d in near:
            if d in FACING_VECTORS:
                return self._hit(d)
        here = tuple(int(v) for v in env.pos[i])
        for d in near:  # one that hits from a cell the agent cannot strike (a diagonal): square up to it
            if max(abs(c) for c in d) == 1:
                # once from each spot: a mob that did not step in (a skeleton on a ledge) left the
                # agent stepping back and forth between the two cells until it was shot dead
                if (here, d) in self.squared:
                    continue
                step = self._square_up(d)
                if step is not None:
                    self.squared.add((here, d))
                    return step
        return None

    def _heal(self) -> tuple[int, int] | None:
        """On a hunt of the night's mobs, health under HEAL_BELOW: dig the night's hole and wait in
        it until health is back to HEALED_AT (one point every 16 steps), then hunt on, as a player
        backs off to heal; None where the hunt goes on (no hole can be dug here: it fights on).
        The expert died in about one night hunt in seven, fighting on at two or three points."""
        env, i = self.env, self.i
        hp = float(env.health[i])
        if not self._night_hunt() or hp >= HEALED_AT:
            self.healing = False
        elif hp < HEAL_BELOW:
            self.healing = True
        if not self.healing:
            return None
        if not self._sheltered():
            if self._can_dig_in():
                return self._dig_in()
            self.healing = False
            return None
        self.waiting = True
        self.plan, self.target = [], None
        return NOOP

    def _square_up(self, d: tuple[int, int, int]) -> tuple[int, int] | None:
        """A step that leaves the mob at `d` (a diagonal one cell off) face to face with the agent,
        or next to it where it will step in: on the same level, one step along x or z toward it;
        a level up or down, one step away from it, so that it steps into the cell the agent left."""
        env, i = self.env, self.i
        if d[1] == 0:
            moves = [(d[0], 0, 0), (0, 0, d[2])]
        else:
            moves = [(-d[0], 0, 0), (0, 0, -d[2])]
        for mv in moves:
            if mv == (0, 0, 0):
                continue
            to = env.pos[i] + np.array(mv)
            here, under = (int(c) for c in env.cells_at(np.array([i, i]), np.stack([to, to - (0, 1, 0)])))
            r = env.rules
            if r.passable[here] and not r.liquid[here] and r.solid[under]:
                return P["move_north"] + FACING_VECTORS.index(mv), -1
        return None

    def _hit(self, d: tuple[int, int, int]) -> tuple[int, int]:
        want = FACING_VECTORS.index(d)
        if int(self.env.facing[self.i]) != want:
            return face_action(d), -1
        return P["attack"], -1

    # ------------------------------------------------------------------ skills
    def _equip(self):
        bag = functional.bag_of(self.env, self.i)
        held = bag.plan_equip(self.item)
        if isinstance(held, Refusal):
            self._finish(False, held.error, held.missing)
            return None
        self._did_equip = True
        return P["equip"], self.v.item_id[held]

    def _craft(self):
        return self._at_station("crafting_table", "craft")

    def _smelt(self):
        return self._at_station("furnace", "smelt")

    def _at_station(self, station: str, skill: str):
        env, i = self.env, self.i
        bag = functional.bag_of(env, i)
        plan = (functional.plan_craft if skill == "craft" else functional.plan_smelt)(env, i, self.item, bag=bag)
        if not isinstance(plan, Refusal):
            out = plan.output if skill == "craft" else plan[0].output
            self.arg_name = out  # cactus_green: its index is dye's (metadata.py), so the name goes too
            return P[skill], self.v.item_id[out]
        if set(plan.missing) - {station}:
            if bag.held(station) >= 1:  # a held station would be placed: tell only what else is missing
                plan = bag.plan_craft(self.item, True) if skill == "craft" else bag.plan_smelt(self.item, True)
            self._finish(False, plan.error, plan.missing)
            return None
        # only the station is missing: place a held one, or walk to a placed one
        if bag.held(station) >= 1:
            return self._place(station)
        if not (env.cells[i] == self.v.cell_id[station]).any():  # none held, none placed: the rule's own words
            self._finish(False, plan.error, plan.missing)
            return None
        step = self._go_to({self.v.cell_id[station]}, set(), reach=True)
        if step is None and self.result is None:
            self._finish(
                False,
                f"cannot {skill} {self.item}: needs {article(station)} placed within reach "
                f"(none held, none placed nearby)",
                {station: 1},
            )
        return step

    def _place(self, block: str):
        env, i = self.env, self.i
        if self.plan:  # wading out of a pond to a cell with a free side
            return self._follow()
        pos = env.pos[i]
        d = self._free_side(tuple(int(v) for v in pos))
        if d is not None:
            if int(env.facing[i]) != FACING_VECTORS.index(d):
                return face_action(d), -1
            return P["use"], self.v.item_id[block]
        ahead = int(env.cells_at(np.array([i]), (pos + np.array(FACING_VECTORS[0]))[None])[0])
        if env.rules.breakable[ahead]:  # boxed in: clear the block ahead first
            return self._hit(FACING_VECTORS[0])
        # in water on every side (brick_block's furnace, in a pond where the clay was): walk out
        start = tuple(int(v) for v in pos)
        found = paths.search(
            paths.Terrain(env, i), start, [start], stand=lambda s: self._free_side(s) is not None, slack=8
        )
        if found is None or not found[0]:
            self._finish(False, f"cannot place {block}: no free cell beside the agent", {})
            return None
        self.plan, self.target = list(found[0]), None
        self.seg_steps, self.last_pos = 0, None
        return self._follow()

    def _free_side(self, at: tuple[int, int, int], on_ground: bool = False) -> tuple[int, int, int] | None:
        """A side of cell `at` (the four around it, then above) where a block can be placed:
        free, not water or lava, no mob in it. `on_ground`: only the four, with a solid block
        under the side (a placed gravel would fall)."""
        env, i, rules = self.env, self.i, self.env.rules
        for d in FACING_VECTORS[:4] if on_ground else FACING_VECTORS[:5]:
            p = np.array(at) + np.array(d)
            c, under = (int(x) for x in env.cells_at(np.array([i, i]), np.stack([p, p + np.array((0, -1, 0))])))
            if rules.passable[c] and not rules.liquid[c] and env.mob_at(i, p) is None:
                if not on_ground or rules.solid[under]:
                    return d
        return None

    def _kill(self):
        cells, mobs = goal_sources(self.env, self.goal)
        if not mobs:
            self._finish(False, f"no mob here drops {self.item}", {self.item: self.wanted})
            return None
        return self._gather(set(), self._quarry(mobs))

    def _quarry(self, mobs: set[int]) -> set[int]:
        """The mobs a kill goes for: its own, or on a hunt of the night's mobs (a zombie for rotten
        flesh), at night, every hostile one, the nearest first, as a player clears the ground around
        them: a skeleton shooting from 15 cells while the agent waited for its quarry killed it in
        some 45 steps, and four other hostiles out leave no spawn for the quarry (mobs.py's cap)."""
        if not self._night_hunt():
            return mobs
        return mobs | {int(k) for k in np.nonzero(self.env.rules.mob_hostile)[0] if k > 0}

    def _night_hunt(self) -> bool:
        """A kill goal whose mobs all fight back (the night's: a zombie, a skeleton, a spider), at night."""
        if self.goal.action != "kill" or not self.env.night()[self.i]:
            return False
        if self.hunts_hostiles is None:
            self.hunts_hostiles = hunts_hostiles(self.env, self.goal)
        return self.hunts_hostiles

    def _mine(self):
        env, i = self.env, self.i
        if any(not w.uses and w.on == "mob" for w in self.kb.interactions(self.item)):
            return self._pick_up()  # an egg: laid by a chicken, picked up from the ground
        lying = ground_items(env, i, self.item)  # dropped by decaying leaves (decay.py)
        step = self._walk_to_item(lying) if lying else None
        if step is not None:
            return step
        if self.to_item:  # picked up, or gone: look again
            self.plan, self.target, self.to_item = [], None, False
        cells, mobs = goal_sources(env, self.goal)
        if not cells and not mobs:
            self._finish(False, f"{self.item} cannot be mined (no block in this world gives it)", {self.item: 1})
            return None
        ways = [w for w in self.kb.interactions(self.item) if w.uses]
        if ways:  # a held item used on a block or a mob
            held = [w for w in ways if functional.bag_of(env, i).held(w.uses) >= 1]
            if not held:
                w = ways[0]
                self._finish(False, f"needs {article(w.uses)} to get {self.item} from {w.where()}", {w.uses: 1})
                return None
            self._use_item = held[0].uses
        pours = pour_sources(env, self.item)  # lava, for obsidian: poured on with a held water bucket
        made_cells = cells - pours
        if pours:
            bag = functional.bag_of(env, i)
            self._pour_item = next((h for h in pour_holds(self.item) if bag.held(h) >= 1), None)
            if self._pour_item is None:  # no bucket: only obsidian already made, if any
                why = pour_refusal(self.item, bag.held, bool(np.isin(env.cells[i], sorted(made_cells)).any()))
                if why:
                    self._finish(False, *why)
                    return None
                cells = made_cells
        terrain = paths.Terrain(env, i)
        if pours and made_cells and not any(terrain.can_harvest[c] for c in made_cells):
            c = min(made_cells)  # obsidian wants a diamond pickaxe: no pour before one is held
            self._finish(False, env.rules.why_not(c), {"tool": env.rules.min_tool[c]})
            return None
        ok_cells = {c for c in cells if terrain.can_harvest[c] or env.rules.liquid[c]}
        if cells and not ok_cells and not mobs:
            c = min(cells, key=lambda c: (env.rules.min_tool[c] is not None, c))
            self._finish(False, env.rules.why_not(c), {"tool": env.rules.min_tool[c]})
            return None
        trunks = {c for c in felling_sources(env, self.item) if terrain.can_harvest[c]}
        if trunks and np.isin(env.cells[i], sorted(trunks)).any():  # an apple: fell the tree, its leaves decay
            return self._gather(trunks, set())
        return self._place_again(ok_cells, mobs) or self._gather(ok_cells, mobs)

    def _place_again(self, cells: set[int], mobs: set[int]) -> tuple[int, int] | None:
        """A chance drop whose source block is held (gravel, for flint): with no walk under way and
        no source in front, place one on a free side that has ground under it (placed gravel
        would fall) and make it the target that _gather breaks; each break is another draw.
        None: nothing held to place, or no such side."""
        if self.plan or (self.target is not None and self._still_there(self.target, cells, mobs)):
            return None
        env, i, ids = self.env, self.i, self.v.item_id
        sources = placeable_chance_sources(self.kb, self.item)
        block = next((b for b in sources if b in ids and env.inv[i, ids[b]] > 0), None)
        pos = tuple(int(v) for v in env.pos[i])
        d = self._free_side(pos, on_ground=True) if block is not None else None
        if d is None:
            return None
        if int(env.facing[i]) != FACING_VECTORS.index(d):
            return face_action(d), -1
        self.target = tuple(p + q for p, q in zip(pos, d))
        return P["use"], ids[block]

    def _pick_up(self):
        """Walk to the nearest egg on the ground (eggs.py: picked up within reach); with none
        lying about, go near a chicken and wait for it to lay one."""
        env, i = self.env, self.i
        pos = tuple(int(v) for v in env.pos[i])
        lying = ground_items(env, i, self.item)
        step = self._walk_to_item(lying) if lying else None
        if step is not None:
            return step
        self.plan, self.target, self.to_item = [], None, False
        layers = laying_mobs(env, self.item)
        near = paths.candidates(env, i, set(), layers, k=4)
        self.waiting = True
        if not near or min(max(abs(p[0] - pos[0]), abs(p[2] - pos[2])) for p in near) <= 3:
            return NOOP  # by a chicken (or none yet: they wander in): wait for an egg
        found = paths.search(paths.Terrain(env, i), pos, near)
        if found is None or not found[0]:
            return NOOP
        self.plan, _, self.target = list(found[0]), found[1], found[2]
        self.seg_steps, self.last_pos = 0, None
        return self._follow()

    def _walk_to_item(self, lying: list[tuple[int, int, int]]) -> tuple[int, int] | None:
        """Walk to the nearest of these items on the ground (ground.py: picked up within reach
        as the world steps); None when none can be reached."""
        env, i = self.env, self.i
        if self.plan and self.to_item and tuple(self.target or ()) in lying:
            return self._follow()
        pos = tuple(int(v) for v in env.pos[i])
        lying = sorted(lying, key=lambda p: abs(p[0] - pos[0]) + abs(p[2] - pos[2]) + abs(p[1] - pos[1]))
        found = paths.search(paths.Terrain(env, i), pos, lying[:8])
        if found is None:
            return None
        self.plan, _, self.target = list(found[0]), found[1], found[2]
        self.seg_steps, self.last_pos, self.to_item = 0, None, True
        if not self.plan:  # beside it: picked up as the world steps
            self.waiting = True
            return NOOP
        return self._follow()

    # ------------------------------------------------------------------ moving and hitting
    def _gather(self, cells: set[int], mobs: set[int]):
        env, i = self.env, self.i
        t = self.target
        if t is not None and not self.plan:
            d = tuple(int(v) for v in np.array(t) - env.pos[i])
            if d in FACING_VECTORS and self._still_there(t, cells, mobs):
                use = getattr(self, "_use_item", None)
                pour = getattr(self, "_pour_item", None)
                if use is None and pour is not None and made(env, pour, self._cell(t)) is not None:
                    use = pour  # lava in front: pour the water bucket on it, then break the obsidian
                if use is not None:
                    if int(env.facing[i]) != FACING_VECTORS.index(d):
                        return face_action(d), -1
                    return P["use"], self.v.item_id[use]
                return self._hit(d)
            self.target = None
        if self.plan and mobs and self.target is not None and not self._still_there(self.target, cells, mobs):
            self.plan, self.target = [], None  # the mob moved: look again
        if not self.plan or self.target is None:
            step = self._go_to(cells, mobs)
            return step
        return self._follow()

    def _cell(self, t) -> int:
        return int(self.env.cells_at(np.array([self.i]), np.array([t]))[0])

    def _still_there(self, t, cells, mobs) -> bool:
        env, i = self.env, self.i
        c = self._cell(t)
        if c in cells:
            return True
        here = (env.mob_kind[i] > 0) & (env.mob_pos[i] == np.array(t)).all(axis=1)  # two mobs may share a cell
        return any(int(k) in mobs for k in env.mob_kind[i][here])

    def _go_to(self, cells: set[int], mobs: set[int], reach: bool = False):
        env, i = self.env, self.i
        if reach and any(functional.within_reach(env, i, self.v.cells[c]) for c in cells):
            return None
        if self.replans >= MAX_REPLANS:
            self._finish(
                False,
                f"could not reach a source of {self.item} (stuck after {self.replans} tries)",
                {self.item: self.wanted},
            )
            return None
        targets = paths.candidates(env, i, cells, mobs, k=32 if self.avoid else 4)
        if self.avoid:  # fetching dirt on a pillar: its own column's comes first (and is left alone), then
            # other pillars' tops, out of reach without blocks: look past them to the ground's
            targets = [t for t in targets if (t[0], t[2]) != self.avoid][:16]
        if not targets and mobs and not cells and not reach:
            # none of these animals left: wait for one to wander in (mobs.py restocks); a hostile
            # one spawns around the agent at night (a spider for string), so waiting for it is the way
            self.waiting = bool(self.env.rules.mob_hostile[sorted(mobs)].all())
            return NOOP
        here = tuple(int(v) for v in env.pos[i])
        found = paths.search(paths.Terrain(env, i), here, targets) if targets else None
        if found is None and targets and not reach and not self.avoid:
            # the nearest few can all be out of reach together (one tree's canopy, its low leaves
            # used up): look further afield on the ground before climbing for them
            wider = [t for t in paths.candidates(env, i, cells, mobs, k=WIDER) if t not in targets]
            found = paths.search(paths.Terrain(env, i), here, wider) if wider else None
        if (
            found is None
            and not reach
            and self.fetch is None
            and self.item != "dirt"
            and not any(functional.bag_of(env, i).held(b) for b in BUILDING)
        ):
            # out of reach without blocks to climb on: fetch some dirt first, then look again
            return self._fetch_blocks(paths.candidates(env, i, cells, mobs, k=1))
        if found is None:
            what = "a placed " + self.v.cells[next(iter(cells))] if reach else f"any source of {self.item}"
            self._finish(False, f"cannot reach {what} in this world", {self.item: self.wanted})
            return None
        self.plan, _, self.target = found
        self.plan = list(self.plan)
        self.seg_steps = 0
        self.last_pos = None
        if not self.plan:
            return self._act()
        return self._follow()

    def _fetch_blocks(self, targets: list):
        """Dig enough dirt (not from under our own feet) to pillar up to the highest target."""
        env, i = self.env, self.i
        left = source_blocks(env, i, self.goal)
        if left < self.sources_at_fetch:  # the last climb broke a source (leaves for a 1-in-20 sapling):
            self.fetches = 0  # it was a way up, so climbing again is not a loop
        self.sources_at_fetch = left
        self.fetches += 1
        if self.fetches > 3:
            self._finish(False, f"cannot reach any source of {self.item}: no way up", {self.item: self.wanted})
            return None
        y = int(env.pos[i, 1])
        need = max([3] + [t[1] - y + 2 for t in targets if t])
        self.fetch = Expert(env, i, Goal("mine", {"dirt": need}))
        self.fetch.avoid = (int(env.pos[i, 0]), int(env.pos[i, 2]))
        return self._act()

    def _follow(self):
        env, i = self.env, self.i
        seg = self.plan[0]
        pos = tuple(int(v) for v in env.pos[i])
        self.seg_steps += 1
        if self.seg_steps > SEGMENT_PATIENCE:  # something moved or fell: look again
            self.plan = []
            self.replans += 1
            return NOOP
        kind = seg[0]
        if kind in ("walk", "dig", "jump"):
            d = FACING_VECTORS[seg[1]]
            front = np.array(pos) + np.array(d)
            c = int(env.cells_at(np.array([i]), front[None])[0])
            if self.last_pos is not None and pos != self.last_pos and self._arrived(seg, pos):
                return self._next_segment()
            if kind == "jump":
                if int(env.facing[i]) != seg[1]:
                    return face_action(d), -1
                self.last_pos = pos
                return P["jump"], -1
            if env.rules.passable[c]:
                self.last_pos = pos
                return P["move_north"] + seg[1], -1
            return self._hit(d)
        if kind == "down":
            if self.last_pos is not None and pos[1] < self.last_pos[1]:
                return self._next_segment()
            self.last_pos = pos
            return self._hit((0, -1, 0))
        if kind == "pillar":
            if self.last_pos is not None and pos[1] > self.last_pos[1]:
                return self._next_segment()
            self.last_pos = pos
            above = int(env.cells_at(np.array([i]), (np.array(pos) + [0, 1, 0])[None])[0])
            if not env.rules.passable[above]:
                return self._hit((0, 1, 0))
            block = next((b for b in BUILDING if functional.bag_of(env, i).held(b) >= 1), None)
            if block is None:  # out of blocks halfway up: fetch some, then look again
                target, self.plan, self.target = self.target, [], None
                if self.item == "dirt":
                    self._finish(False, "stuck: no block to climb with", {"dirt": 1})
                    return None
                return self._fetch_blocks([target] if target else [])
            return P["jump_place"], self.v.item_id[block]
        self.plan = []
        return NOOP

    def _arrived(self, seg, pos) -> bool:
        return pos != self.last_pos

    def _next_segment(self):
        self.plan.pop(0)
        self.seg_steps = 0
        self.last_pos = None
        if not self.plan:
            return self._act()
        return self._follow()


def demonstrate(env: Any, goals: list[Goal], max_steps: int = 2000) -> Iterator[tuple[dict, np.ndarray, np.ndarray]]:
    """For a reset BatchGridWorld with one goal per world: yields (obs, actions [n, 2], active [n])
    every step until every expert has finished (or max_steps); then `experts[i].result`."""
    experts = [Expert(env, i, g) for i, g in enumerate(goals)]
    demonstrate.experts = experts
    obs = env.observe()
    for _ in range(max_steps):
        acts = np.tile(np.array(NOOP, np.int64), (env.n, 1))
        active = np.zeros(env.n, bool)
        for i, ex in enumerate(experts):
            a = ex.act()
            if a is not None:
                acts[i], active[i] = a, True
        if not active.any():
            return
        yield obs, acts, active
        obs, _, _, _, info = env.step(acts)
        for i, ev in info["events"].items():
            experts[i].feedback(ev)

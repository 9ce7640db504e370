"""The `learned` controller: the trained goal-conditioned policy pi(a | s, g) drives the
grid world's body for the skills that need one (mine, kill, find), primitive action by
primitive action, until the goal's item appears (the mob dies, the find's conditions hold),
its budget runs out, or a precondition is missing.

Craft, smelt and equip are single functional actions in the grid world (MineDojo's
functional actions): they are issued by the same rules as the scripted expert.  With
`--fallback` (LearnedOptions; off by default from the CLI) the scripted expert also runs a
goal the policy was never trained on, or one whose measured success (the checkpoint card's
"skill_success", from `python -m experiments.skill_table`) is below `MASTERY` (and says so in
`notes`), as DEPS pairs each skill with the controller that does it best
(`DEPS_LEARNED_MASTERY=0` lets the policy drive every goal it was trained on).  Without it
the policy drives every goal it was trained on, a task whose route needs another is refused
up front (make_learned_controller with the task), and an untrained goal a planner asks for
later fails with one line.  Each outcome's "driver" says who drove it.
While a block is breaking, attack is held (`hold_attack`) instead of asking the policy
each step (not on a hunt of the night's mobs), and so it is while a mob the kill goal hunts
stands in front (skills/learned/strike.py). A network that reads the goal's target map
(skills/learned/sense.py) gets it added to each observation. Same outcome dict as every
controller: {ok, error, steps, gained, missing}.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from skills.find import Shelter
from skills.learned import sense
from skills.learned.features import LEARNED_SKILLS, goal_key
from skills.learned.idle import IdleActions
from skills.learned.options import LearnedOptions
from skills.learned.paths import LearnedError
from skills.learned.policy import GoalPolicy, pick_device
from skills.learned.progress import Progress, drop_kill
from skills.learned.shield import Shield
from skills.learned.strike import Quarry
from skills.learned.surround import observe
from worlds.gridworld.pour import pour_holds, pour_refusal, pour_sources
from worlds.gridworld.sources import goal_sources, placeable_chance_sources
from worlds.gridworld.spec import FUNCTIONAL, NEEDS_ITEM, PRIMITIVES, game_data

GOAL_BUDGET = 600  # steps of no progress one unit of a mine/kill goal may take (progress.py; DEPS Table 10)
NO_ITEM = tuple(p for p in PRIMITIVES if p not in NEEDS_ITEM)  # the primitives that take no item argument
# what the policy may place with use / jump_place, first held wins: the blocks the networks were taught
# to place, in the order of the world's building_blocks (gridworld.yaml, cheapest first: dirt before
# the cobblestone a plan's furnace and stone tools need)
BUILDING = tuple(b for b in game_data()["building_blocks"] if b in ("dirt", "cobblestone"))


MASTERY = 0.9  # a trained goal is driven by the policy when its measured success is at least this
SAMPLE_TEMPERATURE = 1.0  # the policy's actions are sampled at this temperature (greedy ones loop)


def hold_attack(obs: dict) -> np.ndarray | bool:
    """Attack is held while the faced block is breaking (mining progress > 0), as a player
    holds the mouse button: the policy picks when to start hitting, not each of the 4 to 60
    hits a block takes (a sampled policy seldom repeats one action that long)."""
    return np.asarray(obs["mining"]) > 0


def _outcome(ok: bool, error: str | None, steps: int, gained: dict[str, int], missing=None) -> dict:
    return {"ok": ok, "error": error, "steps": steps, "gained": gained, "missing": missing or {}}


def item_args(kb: Any, goal: Any, has: Callable[[str], bool]) -> dict[str, str]:
    """The item each item-taking primitive is given in `goal`, by what is held (`has`): `use`
    the held item the goal's item is got with (a bucket on a cow for milk_bucket,
    interactions.yaml), else the held item poured to make its source (a water bucket on lava, for
    obsidian: worlds/gridworld/pour.py), else a held block that gives it by chance and can be placed again
    (gravel, for flint: sources.placeable_chance_sources), else the first building block held;
    `jump_place` (a pillar) that block. A primitive missing here has no item to take and is masked."""
    block = next((b for b in BUILDING if has(b)), None)
    ((item, _),) = list(goal.obj.items())[:1]
    ways = kb.interactions(item) if goal.action == "mine" else []
    tool = next((w.uses for w in ways if w.uses and has(w.uses)), None)
    pour = next((h for h in pour_holds(item) if has(h)), None) if goal.action == "mine" else None
    again = placeable_chance_sources(kb, item) if goal.action == "mine" else ()
    source = next((b for b in again if has(b)), None)  # gravel for flint: placed, then broken again
    out = {"use": tool or pour or source or block, "jump_place": block}
    return {p: it for p, it in out.items() if it is not None}


def action_mask(kb: Any, goal: Any, world: Any) -> tuple[np.ndarray, dict[str, str]]:
    """The primitives the policy may choose in a mine/kill/find goal, and the item each
    item-taking one is given (item_args)."""
    items = item_args(kb, goal, world.has)
    return np.array([p in NO_ITEM or p in items for p in PRIMITIVES], dtype=bool), items


def mastery_bar() -> float:
    """MASTERY, or DEPS_LEARNED_MASTERY (a number from 0 to 1) when set; LearnedError (one line) otherwise."""
    raw = os.environ.get("DEPS_LEARNED_MASTERY")
    if raw is None:
        return MASTERY
    try:
        bar = float(raw)
    except ValueError:
        bar = -1.0
    if not 0.0 <= bar <= 1.0:
        raise LearnedError(
            f"DEPS_LEARNED_MASTERY={raw!r} not accepted; accepted: a number from 0 to 1 "
            f"(default {MASTERY}; 0: the policy drives every goal it was trained on)"
        )
    return bar


def missing_tool(kb: Any, goal: Any, world: Any) -> tuple[str, dict] | None:
    """The precise cause when no source of a mine goal's item can be harvested with what is held."""
    ((item, _),) = list(goal.obj.items())[:1]
    sources = kb.mine_sources(item)
    if not sources or goal.action != "mine":
        return None
    if any(s.harvested_with(world.has) for s in sources):
        return None
    s = min(sources, key=lambda s: s.tier)
    better = " or better" if len(s.tools) > 1 else ""
    art = "an" if s.min_tool[0] in "aeiou" else "a"
    return f"needs {art} {s.min_tool}{better} to mine {s.block}", {"tool": s.min_tool}


def unpoured(goal: Any, world: Any) -> tuple[str, dict] | None:
    """The world's refusal of a mine goal whose item only pouring makes (obsidian: a water bucket on
    lava) while nothing to pour is held and none is made yet, as the scripted expert gives it: no
    network can get the item then, so none is run."""
    item = next(iter(goal.obj))
    if goal.action != "mine" or not pour_holds(item):  # not made by pouring: nothing to look up
        return None
    made = sorted(set(goal_sources(world.env, goal)[0]) - pour_sources(world.env, item))
    here = bool(made) and bool(np.isin(world.env.cells[world.i], made).any())
    return pour_refusal(item, lambda name: int(world.has(name)), here)


def untrained(policy: GoalPolicy, goals: list[Any]) -> list[str]:
    """The mine/kill/find goals (as 'mine:diamond') the policy was not trained for."""
    return [goal_key(g) for g in goals if g.action not in FUNCTIONAL and not policy.knows(g)]


class LearnedController:
    """`use_fallback` (the CLI's --fallback; on for a controller built in code, as before):
    the scripted expert runs what the policy was not trained for or has not mastered.  Off,
    the policy drives every goal it was trained for and an untrained goal fails with one
    line.  Every outcome says who drove it ("driver": policy, expert or functional)."""

    name = "learned"

    def __init__(
        self,
        kb: Any,
        policy: GoalPolicy,
        fallback: Any,
        seed: int = 0,
        greedy: bool = False,
        goal_budget: int = GOAL_BUDGET,
        mastery: float | None = None,
        use_fallback: bool = True,
    ):
        self.kb, self.policy, self.fallback = kb, policy, fallback
        self.mastery = mastery_bar() if mastery is None else float(mastery)
        self.rng = np.random.default_rng(seed)
        self.greedy, self.goal_budget = greedy, goal_budget
        self.use_fallback = use_fallback
        self.notes: list[str] = []

    def run(self, goal: Any, world: Any) -> dict:
        if goal.action in FUNCTIONAL:  # one functional action, by the experts' rules (a table placed first)
            return {**self.fallback.run(goal, world), "driver": "functional"}
        if goal.action not in LEARNED_SKILLS or not self.policy.knows(goal):
            if not self.use_fallback:
                trained = ", ".join(sorted(self.policy.goals)) or "none"
                return {
                    **_outcome(
                        False,
                        f"the learned policy was not trained for {goal_key(goal)}; accepted: the "
                        f"goals it was trained for ({trained}), or --fallback to let the scripted "
                        "expert run the others",
                        0,
                        {},
                    ),
                    "driver": "none",
                }
            self.notes.append(f"{goal.code()}: not a trained goal; run by the scripted expert")
            return {**self.fallback.run(goal, world), "driver": "expert"}
        rate = self.policy.measured_success(goal)
        if self.use_fallback and rate is not None and rate < self.mastery:
            self.notes.append(
                f"{goal.code()}: the policy's measured success is {rate:.2f}, under {self.mastery:.2f}; "
                "run by the scripted expert"
            )
            return {**self.fallback.run(goal, world), "driver": "expert"}
        drive = self._find if goal.action == "find" else self._drive
        return {**drive(goal, world), "driver": "policy"}

    def _step(
        self, world: Any, obs: dict, goal: Any, code: np.ndarray, idle: IdleActions, shield: Shield, quarry: Quarry
    ) -> dict:
        """One primitive step chosen by the policy (attack held while a block breaks or while a mob
        the goal hunts stands in front, and on a night's hunt a turn to one beside the agent:
        `quarry`, skills/learned/strike.py; never an action just tried here to no effect,
        skills/learned/idle.py, nor one the view shows to be fatal, skills/learned/shield.py); the
        step's info."""
        mask, items = action_mask(self.kb, goal, world)
        mask = shield.allowed(obs, idle.allowed(obs, mask[None]))[0]
        held = quarry.held(world.env, [bool(np.any(hold_attack(obs)))], [world.i])[0]
        if held >= 0:
            a = int(held)
        else:
            a = int(
                self.policy.act(obs, code, mask, greedy=self.greedy, rng=self.rng, temperature=SAMPLE_TEMPERATURE)[0]
            )
        idle.chose(np.array([a]))
        act = {"action": PRIMITIVES[a]}
        if PRIMITIVES[a] in items:
            act["item"] = items[PRIMITIVES[a]]
        return world.step(act)[4]

    def _observe(self, world: Any, luts: Any, code: np.ndarray) -> dict:
        obs = observe(world)
        if luts is not None:
            sense.add_to(obs, world.env, [world.i], [luts], near=sense.near_rows(self.policy, code))
        return obs

    def _find(self, goal: Any, world: Any) -> dict:
        """Find: the policy walks until the where-conditions hold (the thing within reach, near
        the other, in the biome; a wet biome while rain is asked for and falls); then the
        controller waits there (noop) for the rest (time, weather), as it holds attack while a
        block breaks, and hands back to the policy if the thing wanders off. While no cell of
        the map meets the where-conditions (no cow within reach of the desert's cells), the walk
        heads for the cells a cow comes closest to and the controller waits there for one to
        stroll in (skills/find.py: Approach), as the scripted expert does; it also waits while
        a zombie or spider is close at night. A wait's steps are the scripted expert's
        (FindExpert.wait_action: noop, and at night a hole two blocks deep that zombies and
        spiders cannot reach into; the policy, never taught to wait, died on such nights). The
        goal's budget bounds each walk: the policy's steps since the agent last stood where it
        should."""
        from skills.find import WHERE, Approach, FindExpert, absent_block, find_conditions
        from worlds.context_tasks import evaluate_conditions, normalise_state

        conds = find_conditions(goal)
        thing = conds["find"]
        code = self.policy.codes([goal])
        luts = sense.lut(world.env, goal) if getattr(self.policy.net.shape, "target", 0) else None
        steps, used, gained = 0, 0, {}
        idle, shield = IdleActions(1), Shield(world.env.rules)
        quarry = Quarry(world.env, [goal])  # a find hunts nothing: only a breaking block's attack is held
        waiter = None  # the scripted find expert, for its wait steps only (noop; a hole at night)
        approach = Approach(world.env, world.i, conds)
        while True:
            ok, unmet = evaluate_conditions(conds, normalise_state(world.context_state()))
            if ok:
                return _outcome(True, None, steps, gained)
            if world.steps >= world.max_steps:
                return _outcome(False, f"ran out of environment steps ({world.max_steps})", steps, gained)
            if getattr(world, "dead", False):
                return _outcome(False, getattr(world, "death", None) or "the agent died", steps, gained)
            mask, gap = approach.cells()  # where the walk heads
            x, y, z = (int(c) for c in world.env.pos[world.i])
            here, anywhere = bool(mask[x, z, y]), bool(mask.any())
            used = 0 if here else used  # standing where it should: the next walk has a fresh budget
            absent = None if anywhere else absent_block(world.env, world.i, conds)
            if absent:
                return _outcome(False, f"there is no {absent} in this world to find", steps, gained, {thing: 1})
            walk = anywhere and (not here or any(u.split(" ", 1)[0] in WHERE for u in unmet))
            if walk and not approach.waits(mask, gap):
                if used >= self.goal_budget:
                    return _outcome(
                        False,
                        f"could not find a {thing} ({'; '.join(unmet)}) within {self.goal_budget} steps",
                        steps,
                        gained,
                    )
                info = self._step(world, self._observe(world, luts, code), goal, code, idle, shield, quarry)
                used += 1
            else:
                used = 0 if not walk else used  # nowhere to walk to: the next walk has a fresh budget
                waiter = waiter or FindExpert(world.env, world.i, goal)
                info = world.step({"action": PRIMITIVES[int(waiter.wait_action()[0])]})[4]
            steps += info.get("cost", 1)
            for k, n in info.get("gained", {}).items():
                gained[k] = gained.get(k, 0) + n

    def _drive(self, goal: Any, world: Any) -> dict:
        why = missing_tool(self.kb, goal, world) or unpoured(goal, world)
        if why:
            return _outcome(False, why[0], 0, {}, why[1])
        code = self.policy.codes([goal])
        targeted = bool(getattr(self.policy.net.shape, "target", 0))  # a net that reads the goal's target map
        luts = sense.lut(world.env, goal) if targeted else None
        steps, gained, sheltered = 0, {}, 0
        idle, shield = IdleActions(1), Shield(world.env.rules)
        progress = Progress(world.env, world.i, goal)  # what renews the budget: a leaf broken, a chicken by
        shelter = Shelter(world.env, world.i, goal)  # the night's hole, by the find expert's rule
        quarry = Quarry(world.env, [goal])  # a kill goal's mobs: attack held while one stands in front

        def end(ok: bool, error: str | None) -> dict:  # the outcome, with the steps spent in the hole
            return {**_outcome(ok, error, steps, gained), "sheltered": sheltered}

        for item, wanted in goal.obj.items():
            got = 0
            while got < wanted:
                used = 0
                progress.restart()
                while True:
                    if world.steps >= world.max_steps:
                        return end(False, f"ran out of environment steps ({world.max_steps})")
                    if used >= self.goal_budget:
                        return end(
                            False,
                            f"could not {goal.action} a {item} within {self.goal_budget} steps of no progress"
                            f" (got {got} of {wanted})",
                        )
                    if getattr(world, "dead", False):
                        return end(False, getattr(world, "death", None) or "the agent died")
                    if shelter.needed():  # a zombie or spider close at night: hide, not the policy's step
                        info = world.step(shelter.action())[4]
                        sheltered += info.get("cost", 1)
                    else:
                        obs = self._observe(world, luts, code)
                        info = self._step(world, obs, goal, code, idle, shield, quarry)
                        used = 0 if progress.made(info) else used + 1
                    steps += info.get("cost", 1)
                    for k, n in info.get("gained", {}).items():
                        gained[k] = gained.get(k, 0) + n
                    if goal.action == "kill" and not drop_kill(world.env, goal):
                        if info.get("killed") == item:
                            got += 1
                            break
                    elif self.kb.count(gained, item) > got:  # a mine goal's item, or a kill goal's drop
                        got = self.kb.count(gained, item)
                        break
        return end(True, None)


def _options(settings: Any) -> LearnedOptions:
    try:
        opts = settings.option("learned")
    except Exception:  # settings of a build whose registry names no options for it: the defaults
        return LearnedOptions()
    return opts if isinstance(opts, LearnedOptions) else LearnedOptions(bool(getattr(opts, "fallback", False)))


def make_learned_controller(kb: Any, settings: Any, fallback: Any, task: Any = None) -> LearnedController:
    """The `learned` controller for the settings' world, with `fallback` (the world's scripted
    controller) for the functional skills, and for the rest with --fallback; LearnedError (one
    line) when the world has no body, the checkpoint is missing or does not fit, or (without
    --fallback) the recipe book's route to `task` needs a goal the policy was not trained for."""
    world = getattr(settings, "world", "gridworld")
    if world != "gridworld":
        raise LearnedError(
            f"the learned controller drives the grid world's body; {world!r} has none "
            "(accepted there: scripted; --world gridworld for learned)"
        )
    policy = GoalPolicy.load("controller", kb=kb, device=pick_device(getattr(settings, "device", None)))
    opts = _options(settings)
    if task is not None and not opts.fallback:
        gaps = untrained(policy, route_goals(kb, task))
        if gaps:
            raise LearnedError(
                f"the learned policy was not trained for {', '.join(gaps)}, which task {task.id} "
                f"needs; accepted: a task whose goals it was trained for "
                f"({', '.join(sorted(policy.goals))}), or --fallback to let the scripted expert run "
                "the others"
            )
    return LearnedController(kb, policy, fallback, seed=getattr(settings, "seed", 0), use_fallback=opts.fallback)


def route_goals(kb: Any, task: Any) -> list[Any]:
    """The goals of the route the grid world gives a task (coverage.route; its find goal, for a context
    task); [] if none."""
    from worlds.context_tasks import conditions
    from worlds.gridworld.coverage import route
    from worlds.types import Goal

    if not task.target and task.context:
        conds = dict(conditions(task))
        return [Goal("find", {str(conds.pop("find", "thing")): 1}, where={k: str(v) for k, v in conds.items()})]
    return route(kb, dict(task.target), dict(task.inventory or {})) or []

"""The `learned` controller: the trained goal-conditioned policy pi(a | s, g) drives the
grid world's body for the skills that need one (mine, kill), primitive action by
primitive action, until the goal's item appears, its budget runs out, or a precondition
is missing.

Craft, smelt and equip are single functional actions in the grid world (MineDojo's
functional actions): they are issued by the same rules as the scripted expert, which is
also what runs a mine/kill goal the policy was never trained on, or one whose measured
success (the checkpoint card's "skill_success", from `python -m experiments.skill_table`) is
below `MASTERY` (and says so in `notes`): the policy drives the goals it has mastered, as
DEPS pairs each skill with the controller that does it best. `DEPS_LEARNED_MASTERY=0`
lets the policy drive every goal it was trained on.
While a block is breaking, attack is held (`hold_attack`) instead of asking the policy
each step. Same outcome dict as every controller: {ok, error, steps, gained, missing}.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from skills.learned.features import LEARNED_SKILLS
from skills.learned.paths import LearnedError
from skills.learned.policy import GoalPolicy, pick_device
from skills.learned.surround import observe
from worlds.gridworld.spec import PRIMITIVE_ID, PRIMITIVES

GOAL_BUDGET = 600          # steps one unit of a mine/kill goal may take (DEPS Table 10's episode length)
FUNCTIONAL = ("craft", "smelt", "equip")
NO_ITEM = ("noop", "move_north", "move_south", "move_east", "move_west", "face_up", "face_down", "attack",
           "jump", "face_north", "face_south", "face_east", "face_west")
BUILDING = ("cobblestone", "dirt")     # what the policy may place with use / jump_place, first held wins


ATTACK = PRIMITIVE_ID["attack"]
MASTERY = 0.9             # a trained goal is driven by the policy when its measured success is at least this
SAMPLE_TEMPERATURE = 1.0   # the policy's actions are sampled at this temperature (greedy ones loop)


def hold_attack(obs: dict) -> np.ndarray | bool:
    """Attack is held while the faced block is breaking (mining progress > 0), as a player
    holds the mouse button: the policy picks when to start hitting, not each of the 4 to 60
    hits a block takes (a sampled policy seldom repeats one action that long)."""
    return np.asarray(obs["mining"]) > 0


def _outcome(ok: bool, error: str | None, steps: int, gained: dict[str, int], missing=None) -> dict:
    return {"ok": ok, "error": error, "steps": steps, "gained": gained, "missing": missing or {}}


def action_mask(world: Any) -> tuple[np.ndarray, str | None]:
    """The primitives the policy may choose in a mine/kill goal, and the building block it
    places with use / jump_place (None: it holds none, so those two are masked)."""
    mask = np.array([p in NO_ITEM for p in PRIMITIVES], dtype=bool)
    block = next((b for b in BUILDING if world.has(b)), None)
    if block is not None:
        for p in ("use", "jump_place"):
            mask[PRIMITIVE_ID[p]] = True
    return mask, block


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
        raise LearnedError(f"DEPS_LEARNED_MASTERY={raw!r} not accepted; accepted: a number from 0 to 1 "
                           f"(default {MASTERY}; 0: the policy drives every goal it was trained on)")
    return bar


def missing_tool(kb: Any, goal: Any, world: Any) -> tuple[str, dict] | None:
    """The precise cause when no source of a mine goal's item can be harvested with what is held."""
    (item, _), = list(goal.obj.items())[:1]
    sources = kb.mine_sources(item)
    if not sources or goal.action != "mine":
        return None
    if any(s.tools is None or any(world.has(t) for t in s.tools) for s in sources):
        return None
    s = min(sources, key=lambda s: s.tier)
    better = " or better" if len(s.tools) > 1 else ""
    art = "an" if s.min_tool[0] in "aeiou" else "a"
    return f"needs {art} {s.min_tool}{better} to mine {s.block}", {"tool": s.min_tool}


class LearnedController:
    name = "learned"

    def __init__(self, kb: Any, policy: GoalPolicy, fallback: Any, seed: int = 0, greedy: bool = False,
                 goal_budget: int = GOAL_BUDGET, mastery: float | None = None):
        self.kb, self.policy, self.fallback = kb, policy, fallback
        self.mastery = mastery_bar() if mastery is None else float(mastery)
        self.rng = np.random.default_rng(seed)
        self.greedy, self.goal_budget = greedy, goal_budget
        self.notes: list[str] = []

    def run(self, goal: Any, world: Any) -> dict:
        if goal.action in FUNCTIONAL or goal.action not in LEARNED_SKILLS:
            return self.fallback.run(goal, world)
        if not self.policy.knows(goal):
            self.notes.append(f"{goal.code()}: not a trained goal; run by the scripted expert")
            return self.fallback.run(goal, world)
        rate = self.policy.measured_success(goal)
        if rate is not None and rate < self.mastery:
            self.notes.append(f"{goal.code()}: the policy's measured success is {rate:.2f}, under {self.mastery:.2f}; "
                              "run by the scripted expert")
            return self.fallback.run(goal, world)
        why = missing_tool(self.kb, goal, world)
        if why:
            return _outcome(False, why[0], 0, {}, why[1])
        code = self.policy.codes([goal])
        steps, gained = 0, {}
        for item, wanted in goal.obj.items():
            got = 0
            while got < wanted:
                used = 0
                while True:
                    if world.steps >= world.max_steps:
                        return _outcome(False, f"ran out of environment steps ({world.max_steps})", steps, gained)
                    if used >= self.goal_budget:
                        return _outcome(False, f"could not {goal.action} a {item} within {self.goal_budget} steps "
                                               f"(got {got} of {wanted})", steps, gained)
                    if getattr(world, "dead", False):
                        return _outcome(False, "the agent died", steps, gained)
                    mask, block = action_mask(world)
                    obs = observe(world)
                    if hold_attack(obs):
                        a = ATTACK
                    else:
                        a = int(self.policy.act(obs, code, mask, greedy=self.greedy, rng=self.rng,
                                                temperature=SAMPLE_TEMPERATURE)[0])
                    act = {"action": PRIMITIVES[a]}
                    if PRIMITIVES[a] in ("use", "jump_place"):
                        act["item"] = block
                    _, _, _, _, info = world.step(act)
                    steps += info.get("cost", 1)
                    used += 1
                    for k, n in info.get("gained", {}).items():
                        gained[k] = gained.get(k, 0) + n
                    if goal.action == "kill" and info.get("killed") == item:
                        got += 1
                        break
                    if goal.action == "mine" and self.kb.count(gained, item) > got:
                        got = self.kb.count(gained, item)
                        break
        return _outcome(True, None, steps, gained)


def make_learned_controller(kb: Any, settings: Any, fallback: Any) -> LearnedController:
    """The `learned` controller for the settings' world, with `fallback` (the world's scripted
    controller) for the functional skills; LearnedError (one line) when the world has no
    body or the checkpoint is missing or does not fit."""
    world = getattr(settings, "world", "gridworld")
    if world != "gridworld":
        raise LearnedError(f"the learned controller drives the grid world's body; {world!r} has none "
                           "(accepted there: scripted; --world gridworld for learned)")
    policy = GoalPolicy.load("controller", kb=kb, device=pick_device(getattr(settings, "device", None)))
    return LearnedController(kb, policy, fallback, seed=getattr(settings, "seed", 0))

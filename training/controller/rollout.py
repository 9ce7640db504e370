"""Batched rollouts of one goal per world, driven by the learned policy or the scripted
expert, on the same seeded worlds: the skill table and the training card's success rate.

Success is the goal's item appearing in the inventory (mine), the mob dying by the agent's
hand (kill), or every condition of a find goal holding (the thing within reach, near the
other, in the biome: the world's context_state) within the step budget, as the controllers
judge it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from skills.find import Approach, Shelter, expert_for, find_conditions
from skills.learned import sense
from skills.learned.controller import NO_ITEM, hold_attack, item_args
from skills.learned.idle import IdleActions
from skills.learned.progress import Progress, drop_kill
from skills.learned.shield import Shield
from skills.learned.strike import Quarry
from skills.learned.surround import KEY, around
from training.controller.data import safe_act
from training.controller.why import Recorder
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.spec import PRIMITIVE_ID, PRIMITIVES, goal_code
from worlds.types import Goal

_NO_ITEM_MASK = np.array([p in NO_ITEM for p in PRIMITIVES], dtype=bool)


def _item_ids(kb: Any, vocab: Any, item: str) -> list[int]:
    names = kb.variants(item) or [item]
    return [vocab.item_id[n] for n in names if n in vocab.item_id]


ENDS = ("ok", "died", "stalled", "gave_up", "expert_ended", "out_of_steps")


def rollout(
    kb: Any,
    episodes: Sequence[tuple[Goal, int, dict]],
    driver: str,
    policy: Any = None,
    budget: int = 600,
    n_envs: int = 32,
    greedy: bool = False,
    seed: int = 0,
    temperature: float = 1.0,
    find_budget: int | None = None,
    mine_budget: int | None = None,
    why: int = 0,
    kill_budget: int | None = None,
) -> list[dict]:
    """One result {ok, steps, end} per (goal, world seed, reset options), in order; `driver` is
    'learned' (the policy, batched) or 'scripted' (the expert). A find may take `find_budget`
    steps (default: `budget`), as both controllers let it run to its episode's end; the learned
    one ends a find whose walk takes `budget` policy steps without reaching where it heads
    (skills/learned/controller.py: _find), and so does this rollout. A mine goal may take
    `mine_budget` steps (default: `budget`); the learned one ends after `budget` steps of no
    progress (skills/learned/progress.py: a leaf broken for a sapling, a chicken by for an egg).
    A goal's count is the try's: `mine 4 log` succeeds once 4 more logs are held (a kill goal's,
    once that many of its mob are killed), as a plan's step runs in a task.
    Given `kill_budget`, a kill goal runs the same way, as the learned controller runs it: up to
    `kill_budget` steps, the learned one ending after `budget` steps of no progress (a hunted mob
    come nearer or killed); without it, `budget` steps in all (the tables before 2026-12-04).
    `end` says how a try ended (ENDS): "ok", "died", "stalled" (the no-progress budget spent),
    "gave_up" (a find's walk of `budget` policy steps), "expert_ended" (the scripted expert
    stopped without the item) or "out_of_steps". `why` > 0: a failed try's result also says what it
    did in its last `why` steps ("why": training/controller/why.py)."""
    rng = np.random.default_rng(seed)
    out: list[dict] = []
    for s in range(0, len(episodes), n_envs):
        chunk = list(episodes[s : s + n_envs])
        env = BatchGridWorld(len(chunk), kb)
        v = env.vocab
        obs = env.reset([sd for _, sd, _ in chunk], [o for _, _, o in chunk])
        obs[KEY] = around(env)
        goals = [g for g, _, _ in chunk]
        targeted = driver == "learned" and bool(getattr(policy.net.shape, "target", 0))
        luts = [sense.lut(env, g) for g in goals] if targeted else []
        codes = (  # a set of checkpoints says which drives each goal (two goals may share a code: routed.py)
            policy.codes(goals) if policy is not None else np.array([goal_code(g, v, kb) for g in goals], np.int64)
        )
        near = targeted and sense.near_rows(policy, codes)  # only the rows whose network reads it
        if targeted:
            sense.add_to(obs, env, np.arange(len(chunk)), luts, near=near)
        items = [next(iter(g.obj)) for g in goals]
        need = np.array([max(1, int(next(iter(g.obj.values())))) for g in goals])  # a plan's `mine 4 log`
        ids = [_item_ids(kb, v, it) for it in items]
        start = np.array([env.inv[i, ids[i]].sum() if ids[i] else 0 for i in range(len(chunk))])
        kills = np.zeros(len(chunk), int)  # a kill goal's quarry killed so far
        experts = [expert_for(env, i, g) for i, g in enumerate(goals)] if driver == "scripted" else None
        done = np.zeros(len(chunk), bool)
        end = np.full(len(chunk), "", object)  # how each try ended, set where it ends (ENDS)
        waiters: dict = {}  # world -> the scripted find expert whose wait steps a waiting find takes
        approaches = {i: Approach(env, i, find_conditions(g)) for i, g in enumerate(goals) if g.action == "find"}
        # the learned controller's night hole for its mine and kill pursuits (skills/find.py: Shelter)
        shelters = (
            {i: Shelter(env, i, g) for i, g in enumerate(goals) if g.action != "find"} if driver == "learned" else {}
        )
        hid = np.zeros(len(chunk), bool)  # worlds whose step this turn was the hole's, not the policy's
        idle = IdleActions(len(chunk))  # the controller's rule: no action just tried here to no effect
        shield = Shield(env.rules)  # nor one its view shows to be fatal
        quarry = Quarry(env, goals)  # and attack held while a mob a kill goal hunts stands in front
        ok = np.zeros(len(chunk), bool)
        steps = np.zeros(len(chunk), int)
        # a kill goal for a drop (a rabbit's foot) runs as a mine goal does: to its end, with the progress rule
        runs = ["mine" if drop_kill(env, g) else g.action for g in goals]
        limit = np.array(
            [{"find": find_budget, "mine": mine_budget, "kill": kill_budget}.get(r) or budget for r in runs]
        )
        ruled = ("mine", "kill") if kill_budget else ("mine",)  # the pursuits the no-progress rule ends
        progress = {i: Progress(env, i, g) for i, g in enumerate(goals) if runs[i] in ruled and driver == "learned"}
        idle_for = np.zeros(len(chunk), int)  # a learned mine goal's steps since it last made progress
        walked = np.zeros(len(chunk), int)  # a learned find's policy steps since it stood where it heads
        recorder = Recorder(len(chunk), why) if why else None
        for _ in range(int(limit.max())):
            done |= steps >= limit
            if done.all():
                break
            acts = np.tile(np.array([PRIMITIVE_ID["noop"], -1], np.int64), (len(chunk), 1))
            if driver == "learned":  # what the controller gives the item-taking primitives (action_mask)
                args = [item_args(kb, g, holds(env, i)) for i, g in enumerate(goals)]
                masks = np.tile(_NO_ITEM_MASK, (len(chunk), 1))
                for i, given in enumerate(args):
                    masks[i, [PRIMITIVE_ID[p] for p in given]] = True
                masks = shield.allowed(obs, idle.allowed(obs, masks))
                a = policy.act(obs, codes, masks, greedy=greedy, rng=rng, temperature=temperature)
                held = quarry.held(env, hold_attack(obs))
                a = np.where(held >= 0, held, a)
                waits = waiting(env, goals, done, approaches, walked)
                for i in np.nonzero(waits)[0]:  # the learned controller's waits
                    waiters[i] = waiters.get(i) or expert_for(env, int(i), goals[i])
                    a[i] = waiters[i].wait_action()[0]
                hid[:] = False
                for i, shelter in shelters.items():  # a zombie or spider close at night: into the hole
                    if not done[i] and shelter.needed():
                        a[i], hid[i] = shelter.action()[0], True
                for i in approaches:  # a walk of `budget` policy steps that has not arrived: given up
                    if not (done[i] or waits[i]):
                        if walked[i] >= budget:
                            done[i], end[i] = True, "gave_up"
                        walked[i] += 1
                idle.chose(a)
                acts[:, 0] = a
                for i, given in enumerate(args):
                    if PRIMITIVES[a[i]] in given:
                        acts[i, 1] = v.item_id[given[PRIMITIVES[a[i]]]]
            else:
                for i, ex in enumerate(experts):
                    if not done[i]:
                        a = safe_act(ex)
                        if a is None:
                            done[i] = True
                            ok[i] = bool(ex.result and ex.result["ok"])
                            end[i] = "ok" if ok[i] else "expert_ended"
                        else:
                            acts[i] = a
            acts[done] = (PRIMITIVE_ID["noop"], -1)
            live = ~done
            obs, _, _, _, info = env.step(acts)
            if driver == "learned":
                obs[KEY] = around(env)
                if targeted:
                    sense.add_to(obs, env, np.arange(len(chunk)), luts, near=near)
            steps[live] += 1
            for i, ev in info["events"].items():
                if experts is not None:
                    experts[i].feedback(ev)
                if not done[i] and runs[i] == "kill" and ev.get("killed") == items[i]:
                    kills[i] += 1
                    done[i] = ok[i] = kills[i] >= need[i]
            for i in np.nonzero(~done)[0]:
                if goals[i].action == "find":
                    if found(env, i, goals[i]):
                        done[i], ok[i] = True, True
                elif runs[i] != "kill" and ids[i] and env.inv[i, ids[i]].sum() >= start[i] + need[i]:
                    done[i], ok[i] = True, True
            for i, prog in progress.items():  # a learned mine or kill goal: `budget` steps of no progress end it
                if live[i] and not done[i] and not hid[i]:  # the hole's steps are no policy's stall
                    idle_for[i] = 0 if prog.made(info["events"].get(i)) else idle_for[i] + 1
                    if idle_for[i] >= budget:
                        done[i], end[i] = True, "stalled"
            end[env.dead & ~done] = "died"
            done |= env.dead
            if recorder is not None:  # after the progress rule has forgotten a source broken this step
                for i in np.nonzero(live)[0].tolist():
                    recorder.step(env, i, acts[i, 0], info["events"].get(i), progress.get(i))
        end[ok] = "ok"
        end[end == ""] = "out_of_steps"
        for i in range(len(chunk)):
            out.append({"ok": bool(ok[i]), "steps": int(steps[i]), "end": str(end[i])})
            if recorder is not None and not ok[i]:
                out[-1]["why"] = recorder.summary(env, i, progress.get(i))
    return out


def holds(env: BatchGridWorld, i: int):
    """`has` of world i (a name -> held at least one?), as item_args asks it."""
    return lambda name: bool(env.inv[i, env.vocab.item_id[name]] > 0)


def found(env: Any, i: int, goal: Goal) -> bool:
    """Do all of a find goal's conditions hold in world i now?"""
    from worlds.context_tasks import evaluate_conditions, normalise_state
    from worlds.gridworld.world import GridWorld

    state = normalise_state(GridWorld.view(env, i).context_state())
    return evaluate_conditions(find_conditions(goal), state)[0]


def waiting(env: Any, goals: Sequence[Goal], done: np.ndarray, approaches: dict, walked: np.ndarray) -> np.ndarray:
    """bool [n]: find goals the learned controller would wait on now rather than walk
    (skills/find.py: Approach, one per find world in `approaches`); `walked` [n] is set to 0
    where the agent stands where its walk heads or has nowhere to head (a new walk begins
    there, as in the controller)."""
    out = np.zeros(len(goals), bool)
    for i, a in approaches.items():
        if not done[i]:
            mask, gap = a.cells()
            x, y, z = (int(c) for c in env.pos[i])
            if mask[x, z, y] or not mask.any():  # standing where it heads, or nowhere to head
                walked[i] = 0
            out[i] = a.waits(mask, gap)
    return out

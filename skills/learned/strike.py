"""Attack held on the quarry: while a mob the goal hunts stands in the cell the agent faces, the
learned controller attacks without asking the policy, as it holds attack while a block breaks
(controller.hold_attack) and as a player keeps clicking on the mob in front of them. On a hunt of
the night's mobs it also turns to one that stands beside the agent, where its blows land and the
agent's do not (`Quarry.turn`), as a player turns to what hits them: the held blows follow.

The policy picks where to stand and which way to face; the blows that follow are held. A sampled
policy seldom repeats one action five times running, which is what a zombie takes from a wooden
sword (20 health, 4 a blow), while the zombie hits back every 4 steps: the night's hunts died
fighting (issue 20, rounds 38 and 39). The quarry is the kill goal's own mobs; on a hunt of the
night's mobs (every mob of the goal hostile), at night, every hostile mob, as the scripted expert
goes for them (skills/experts.py: Expert._quarry). Mine and find goals have no quarry.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld.batch import VEC
from worlds.gridworld.sources import goal_sources, hunts_hostiles
from worlds.gridworld.spec import PRIMITIVE_ID

ATTACK = PRIMITIVE_ID["attack"]  # held on the quarry here, and on a breaking block (controller.hold_attack)
# the action that faces each of VEC's six cells (north, south, east, west: face_<way>; up; down)
FACE = np.array([PRIMITIVE_ID[f"face_{w}"] for w in ("north", "south", "east", "west", "up", "down")], np.int64)


class Quarry:
    """The mobs each of a batch's goals hunts: `own` bool [n, M] over mob kinds, `hostiles` bool [n]
    (a hunt of the night's mobs, which at night goes for every hostile one)."""

    def __init__(self, env: Any, goals: list[Any]) -> None:
        kinds = len(env.rules.mob_hostile)
        self.own = np.zeros((len(goals), kinds), bool)
        self.hostiles = np.zeros(len(goals), bool)
        for i, goal in enumerate(goals):
            self.set(env, i, goal)

    def set(self, env: Any, i: int, goal: Any) -> None:
        """Row i hunts what `goal` hunts (a new pursuit in that world)."""
        mobs = sorted(goal_sources(env, goal)[1]) if goal is not None and goal.action == "kill" else []
        self.own[i] = False
        self.own[i, mobs] = True
        self.hostiles[i] = goal is not None and hunts_hostiles(env, goal)

    def faced(self, env: Any, idx: np.ndarray | None = None) -> np.ndarray:
        """bool [len(idx)]: world idx[k]'s agent faces a live mob that row k's goal hunts now."""
        idx = np.arange(len(self.own)) if idx is None else np.asarray(idx)
        tgt = env.pos[idx] + VEC[env.facing[idx]]
        kind = env.mob_kind[idx]
        there = (kind > 0) & (env.mob_pos[idx] == tgt[:, None, :]).all(axis=2)
        if not there.any():
            return np.zeros(len(idx), bool)
        hunted = np.take_along_axis(self.own, kind, axis=1)
        at_night = self.hostiles & env.night()[idx]
        hunted |= at_night[:, None] & env.rules.mob_hostile[kind]
        return (there & hunted & (kind > 0)).any(axis=1)

    def turn(self, env: Any, idx: np.ndarray | None = None) -> np.ndarray:
        """int64 [len(idx)]: on a hunt of the night's mobs, at night, the face action toward a hostile
        mob in one of the six cells beside world idx[k]'s agent (the first of VEC's order) where the
        agent faces none; -1 elsewhere (the policy's step, or attack held on the faced one)."""
        idx = np.arange(len(self.own)) if idx is None else np.asarray(idx)
        out = np.full(len(idx), -1, np.int64)
        rows = np.nonzero(self.hostiles[idx] & env.night()[idx])[0]
        if rows.size == 0:
            return out
        w = idx[rows]
        kind = env.mob_kind[w]
        live = (kind > 0) & env.rules.mob_hostile[kind]
        rel = env.mob_pos[w] - env.pos[w][:, None, :]  # rows, mobs, 3
        beside = live[:, :, None] & (rel[:, :, None, :] == VEC[None, None]).all(axis=3)  # rows, mobs, 6
        side = beside.any(axis=1)  # rows, 6
        faced = side[np.arange(len(w)), env.facing[w]]
        pick = side.any(axis=1) & ~faced
        out[rows[pick]] = FACE[side[pick].argmax(axis=1)]
        return out

    def held(self, env: Any, breaking: Any, idx: np.ndarray | None = None) -> np.ndarray:
        """int64 [len(idx)]: the step the controller takes without asking the policy, -1 where the
        policy picks: attack on a hunted mob in front, else a turn to one beside (`turn`), else
        attack while a block breaks (`breaking`, bool [len(idx)]: controller.hold_attack), except on
        a hunt of the night's mobs: there a block is struck only while the policy picks it, as held
        blows kept the hunters digging through sand, sandstone and stone until their steps ran out
        (issue 20: 120 of 150 against 111 with round 54's network, docs/results/learned-parts.md)."""
        idx = np.arange(len(self.own)) if idx is None else np.asarray(idx)
        breaking = np.asarray(breaking, bool).reshape(-1) & ~self.hostiles[idx]
        out = np.where(breaking, ATTACK, -1).astype(np.int64)
        turn = self.turn(env, idx)
        out = np.where(turn >= 0, turn, out)
        return np.where(self.faced(env, idx), ATTACK, out)

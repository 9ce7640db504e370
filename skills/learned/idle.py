"""Idle actions: the ones the policy just tried that left its world exactly as it was.

A Markov policy that picks an action with no effect sees the same state again and, being
confident there, picks it again: the round-4 controller pressed `jump` 400 times against a
wall with something over its head, spending an iron ore's whole budget (docs/results/
learned-parts.md, round 5). `idle_turns` (skills/learned/choose.py) rules out the one such
action known beforehand, a turn to the facing already held; this rules out, per world, every
action that was tried in the present state and changed nothing, until the state changes.
The state is the observation without the clock: blocks and mobs in view, inventory,
equipment, position, facing, health and mining progress; an attack is never ruled out (a mob's
health is not observed). One rule for the learned controller and the skill table's rollout.
"""

from __future__ import annotations

import numpy as np

from worlds.gridworld.spec import PRIMITIVE_ID, PRIMITIVES

STATE_KEYS = ("blocks", "mobs", "inventory", "equipment", "position", "facing", "health", "mining")
# never ruled out: an attack's effect on a mob (its health) is not in the observation, so a hit
# that leaves the view as it was is still progress (the first version of this rule took the
# second hit away and doubled the kill goals' steps on the skill table)
NEVER_IDLE = (PRIMITIVE_ID["attack"],)


class IdleActions:
    """Per world, the actions found idle in each state met during the pursuit (so a cycle
    such as turn, jump, turn back, jump is broken too, not only the same action repeated)."""

    def __init__(self, n: int, n_actions: int = len(PRIMITIVES)):
        self.n_actions = n_actions
        self.idle: list[dict[bytes, np.ndarray]] = [{} for _ in range(n)]  # state -> its idle actions
        self.before: np.ndarray | None = None  # the state each last action was chosen in, as bytes
        self.last: np.ndarray | None = None  # that action, per world

    def allowed(self, obs: dict, mask: np.ndarray) -> np.ndarray:
        """`mask` [n, A] less each world's idle actions in its state, unless that leaves it none."""
        n = len(self.idle)
        now = np.concatenate(
            [np.ascontiguousarray(obs[k]).reshape(n, -1).view(np.uint8) for k in STATE_KEYS if k in obs], axis=1
        )  # one row of bytes per world: its state
        if self.before is not None and self.last is not None and self.before.shape == now.shape:
            unchanged = (now == self.before).all(1) & ~np.isin(self.last, NEVER_IDLE)
            for i in np.nonzero(unchanged)[0]:  # the last action changed nothing
                row = self.idle[i].setdefault(now[i].tobytes(), np.zeros(self.n_actions, dtype=bool))
                row[self.last[i]] = True
        self.before = now
        out = np.array(mask, dtype=bool, copy=True).reshape(n, -1)
        for i in (i for i in range(n) if self.idle[i]):  # only worlds that met an idle action look up
            row = self.idle[i].get(now[i].tobytes())
            if row is not None and (out[i] & ~row).any():
                out[i] &= ~row
        return out

    def chose(self, actions: np.ndarray) -> None:
        """The actions sent from the states given to the last `allowed`."""
        self.last = np.asarray(actions, dtype=np.int64).reshape(-1)

"""Several controller checkpoints as one policy, each goal driven by the one cut for it, else the first trained for it.

Round 5's `controller.pt` drives the 24 goals of deps71 and MP5's context tasks at 0.92 or more
each. Every fit that taught one network the harvest list's 20 further goals as well slowed
those 24 and lowered deps71 (issue 20, rounds 8 to 10). So the shipped controller is two
checkpoints: `controller.pt` for the goals it was trained on, and `controller-harvest.pt` for
the goals only it was trained on (skills/learned/paths.py: checkpoint_paths). Both read the
same observation and the same goal codes; a batch of worlds with goals of both is split by
goal, each part acting on its own rows. Since round 14 further cut checkpoints come between them
(skills/learned/paths.py: SHIPPED_MORE, in order): each drives the few harvest goals a later
fine-tune lifted, its card saying how they were chosen
(training/controller/restrict.py cuts a checkpoint down to such goals).

Every goal is still driven by the torch policy alone; `RoutedPolicy.part_for` says which
checkpoint drives a goal, and its card gives that checkpoint's measured success.

Two goals may share a goal code: 1.11.2's lapis lazuli and cocoa beans are both dye's one item
(worlds/gridworld/metadata.py), driven by `controller.pt` and `controller-jungle.pt` (round 35).
So a goal goes to the first cut part (a card with "restricted") whose card names it, else the
first part whose card names it, and `codes` gives each row a third column, its part, which `act`
reads (and strips) before the part sees its (skill, target) code; a two-column code, as a
training collection makes with `spec.goal_code`, is routed by the code to the first part that
knows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from skills.learned.features import goal_key
from skills.learned.paths import CheckpointError
from worlds.types import Goal


class RoutedPolicy:
    """GoalPolicy's interface over `parts` (GoalPolicy each; policy.py builds one from several
    paths). The first part stands for the set where one network is asked for (`net`, `card`)."""

    def __init__(self, parts: Sequence[Any]):
        first = parts[0]
        self.net, self.kb, self.card, self.device = first.net, first.kb, first.card, first.device
        self.precision, self.vocab = first.precision, first.vocab
        if len({bool(getattr(p.net.shape, "target", 0)) for p in parts}) > 1:
            raise CheckpointError(
                "the controller's checkpoints read different observations (one reads the goal's target map, "
                "another does not); accepted: checkpoints of one shape"
            )
        self.parts = list(parts)
        self.goals = set().union(*(p.goals for p in parts))
        self._route: dict[tuple[int, int], int] = {}  # a goal's (skill, target) code -> the part that drives it
        self._by_key: dict[str, int] = {}  # a goal's key ('mine:cocoa_beans') -> the part that drives it
        for k, p in enumerate(parts):
            for key in sorted(p.goals):
                action, _, thing = key.partition(":")
                code = self.parts[0].codes([Goal(action, {thing: 1})])[0]
                self._route.setdefault((int(code[0]), int(code[1])), k)
                self._by_key.setdefault(key, k)
        # a checkpoint cut down to some goals (restrict.py) was cut because it drives them better
        # than the one it was cut from, so it takes them by key even from an earlier whole checkpoint
        # (round 42: iron ore cut from a fine-tune of controller.pt, which is still first)
        cut = [k for k, p in enumerate(parts) if p.card.get("restricted")]
        for k in reversed(cut):
            self._by_key.update(dict.fromkeys(parts[k].goals, k))

    def codes(self, goals: Sequence[Any]) -> np.ndarray:
        """int64 [n, 3]: each goal's (skill, target) code and the part that drives it."""
        two = self.parts[0].codes(goals)
        part = [self._by_key.get(goal_key(g), self.parts_of(c)[0]) for g, c in zip(goals, two)]
        return np.concatenate([two, np.asarray(part, np.int64).reshape(-1, 1)], axis=1)

    def knows(self, goal: Any) -> bool:
        return goal_key(goal) in self.goals

    def part_for(self, goal: Any) -> Any:
        """The checkpoint that drives `goal` (the first one, for a goal none was trained for)."""
        return self.parts[int(self.codes([goal])[0, 2])]

    def measured_success(self, goal: Any) -> float | None:
        return self.part_for(goal).measured_success(goal)

    def parts_of(self, codes: np.ndarray) -> np.ndarray:
        """int64 [n]: the part that acts on each row of `codes`."""
        c = np.asarray(codes)
        if c.ndim == 2 and c.shape[1] == 3:  # made by `codes`: the part is said
            return c[:, 2].astype(np.int64)
        return np.array([self._route.get((int(s), int(t)), 0) for s, t in c.reshape(-1, 2)], dtype=np.int64)

    def act(self, obs: dict, codes: np.ndarray, mask: np.ndarray | None = None, **kw: Any) -> np.ndarray:
        """GoalPolicy.act, each world's row acted on by the checkpoint that drives its goal."""
        part = self.parts_of(codes)
        codes = np.asarray(codes)[..., :2]
        if (part == part[0]).all():
            return self.parts[part[0]].act(obs, codes, mask, **kw)
        n = len(part)
        out = np.zeros(n, dtype=np.int64)
        for k in np.unique(part):
            rows = np.nonzero(part == k)[0]
            sub = {
                key: v[rows] if isinstance(v, np.ndarray) and v.ndim and v.shape[0] == n else v
                for key, v in obs.items()
            }
            m = None if mask is None else (np.asarray(mask)[rows] if np.ndim(mask) == 2 else mask)
            out[rows] = self.parts[k].act(sub, np.asarray(codes).reshape(-1, 2)[rows], m, **kw)
        return out

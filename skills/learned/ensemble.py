"""Several checkpoints that act as one policy: their action distributions averaged.

Rounds 15 to 24 of issue 20 fine-tuned one checkpoint at a time on the goals still under 0.9
(the lava bucket, emerald); each round's network failed in its own loops (pillaring, digging
around the source, walking back and forth), and none beat the shipped one on two seeds. Two
networks that fail in different states can be asked together: the mixture of their action
distributions, mean over the members of softmax(logits), so that an action only one of them is
sure of, in a state where the other is unsure, is still likely, and a loop that one of them falls
into is taken half as often.

A path of the form `a.pt+b.pt` (skills/learned/paths.py: ENSEMBLE_SEP) loads as one `Ensemble`
in the routed set; it drives the goals every member was trained for. Its inference costs one
forward per member.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from skills.learned.choose import choose


class Ensemble:
    """GoalPolicy's interface over `members` (GoalPolicy each, on one device): `logits` is
    the log of the members' mean action distribution and of their mean horizon distribution,
    so GoalPolicy's masking, temperature and sampling apply to it unchanged."""

    def __init__(self, members: Sequence[Any], paths: Sequence[str] = ()):
        first = members[0]
        self.members = list(members)
        self.net, self.kb, self.device, self.precision, self.vocab = (
            first.net,
            first.kb,
            first.device,
            first.precision,
            first.vocab,
        )
        self.goals = set.intersection(*(set(m.goals) for m in members))
        self.card = dict(first.card)
        self.card["ensemble"] = list(paths)  # the members' checkpoints, first first

    def knows(self, goal: Any) -> bool:
        return all(m.knows(goal) for m in self.members)

    def measured_success(self, goal: Any) -> float | None:
        return None  # measured for the members alone, not for their mixture

    def codes(self, goals: Sequence[Any]) -> np.ndarray:
        return self.members[0].codes(goals)

    @torch.inference_mode()
    def logits(self, obs: dict, codes: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        policy = horizon = None
        for m in self.members:
            p, h = m.logits(obs, codes)
            p, h = torch.softmax(p, -1), torch.softmax(h, -1)
            policy = p if policy is None else policy + p
            horizon = h if horizon is None else horizon + h
        assert policy is not None and horizon is not None
        k = len(self.members)
        return torch.log(policy / k), torch.log(horizon / k)

    def act(self, obs: dict, codes: np.ndarray, mask: np.ndarray | None = None, **kw: Any) -> np.ndarray:
        """GoalPolicy.act on the mixture's logits."""
        return choose(self.logits(obs, codes)[0], obs["facing"], mask, **kw)

    @torch.inference_mode()
    def expected_horizon(self, obs: dict, codes: np.ndarray) -> np.ndarray:
        return np.mean([m.expected_horizon(obs, codes) for m in self.members], axis=0)

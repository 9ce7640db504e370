"""Deterministic stand-ins for an LLM back-end: LangChain's own fake chat model behind
the same handle the real back-ends give (agent.llm)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from langchain_core.language_models.fake_chat_models import FakeListChatModel


class FakeLLM:
    """Replies with `responses` in order (cycling), like a recorded conversation."""

    supports_json_schema = False
    name = "fake"

    def __init__(self, responses: list[str]):
        self.model = FakeListChatModel(responses=responses)

    def json_mode(self, schema):
        return self.model


class FakeGoalPolicy:
    """A stand-in for the learned controller's network (skills/learned/policy.py: GoalPolicy),
    so that a test is about the controller's rules: it knows `goals`, reads no target map and
    sends what `choose(mask)` picks among the allowed primitives; what it sent is in `sent`."""

    def __init__(self, goals: set[str], choose):
        self.goals, self.choose, self.sent = goals, choose, []
        self.net = SimpleNamespace(shape=SimpleNamespace(target=0))

    def knows(self, goal):
        return True

    def measured_success(self, goal):
        return None

    def codes(self, goals):
        return np.zeros((len(goals), 2), np.int64)

    def act(self, obs, code, mask, **kw):
        a = self.choose(mask)
        self.sent.append(a)
        return np.array([a])

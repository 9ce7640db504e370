"""Deterministic stand-ins for an LLM back-end: LangChain's own fake chat model behind
the same handle the real back-ends give (agent.llm)."""

from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeListChatModel


class FakeLLM:
    """Replies with `responses` in order (cycling), like a recorded conversation."""

    supports_json_schema = False
    name = "fake"

    def __init__(self, responses: list[str]):
        self.model = FakeListChatModel(responses=responses)

    def json_mode(self, schema):
        return self.model

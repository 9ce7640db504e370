"""Retrying an LLM back-end: every chat model `open_chat_model` hands out is wrapped here.

Transient faults are retried with exponential backoff and full jitter, honouring a server's
Retry-After, within a bounded number of attempts and a bounded total wait: timeouts, dropped
connections, HTTP 429 and 5xx, and malformed replies (a body that is not JSON, JSON cut short,
invalid UTF-8, `choices: []`). Persistent faults, and faults that no retry can mend (a refused
key, an unknown model, a bad request), raise `nodes.ask.LLMCallFailed` with one line saying
what happened, which the runner turns into the episode's failure_reason: the episode is stored,
never lost.
"""

from __future__ import annotations

import email.utils
import json
import random
import threading
import time
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.outputs import ChatResult
from pydantic import ConfigDict

from nodes.ask import ContextOverflow, LLMCallFailed

MAX_RETRY_AFTER_S = 60.0
MAX_BACKOFF_S = 30.0
MAX_REPLY_CHARS = 64_000  # one reply (a plan is a few hundred; the embedded model's whole context is 4096 tokens)


class MalformedReply(ValueError):
    """The server answered, but not with a usable completion."""


def classify(exc: BaseException) -> str:
    """'transient' (worth another try), 'fatal' (no retry mends it) or 'bug' (not the back-end's)."""
    import httpx
    import openai

    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, httpx.TransportError)):
        return "transient"
    if isinstance(exc, openai.APIStatusError):
        return "transient" if exc.status_code in (408, 409, 429) or exc.status_code >= 500 else "fatal"
    if isinstance(exc, (MalformedReply, openai.APIResponseValidationError, json.JSONDecodeError, UnicodeDecodeError)):
        return "transient"
    if isinstance(exc, (KeyError, IndexError, TypeError, AttributeError)):
        # the client's parser met a body of the wrong shape (langchain-openai reads it as a dict)
        return "transient"
    return "bug"


# How OpenAI-compatible servers word a prompt longer than the context (llama-cpp-python and vLLM:
# "maximum context length is 4096 tokens"; llama.cpp's own server: "exceeds the available context
# size", error type "exceed_context_size_error"; OpenAI: "context_length_exceeded").
OVERFLOW_WORDS = ("context length", "context_length", "context size", "context_size", "context window")


def overflowed(exc: BaseException) -> bool:
    """Whether a refused request was refused for a prompt longer than the model's context."""
    import openai

    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in (400, 413):
        return False
    text = f"{exc.message} {getattr(exc, 'code', '') or ''} {getattr(exc, 'body', '') or ''}".lower()
    return any(w in text for w in OVERFLOW_WORDS)


def describe(exc: BaseException) -> str:
    import openai

    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code} ({' '.join(str(exc.message).split())[:160]})"
    text = " ".join(str(exc).split())[:160]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def retry_after(exc: BaseException) -> float | None:
    """The server's Retry-After, in seconds (capped), when the fault carries one."""
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        when = email.utils.parsedate_to_datetime(value)
        seconds = when.timestamp() - time.time() if when else 0.0
    return max(0.0, min(MAX_RETRY_AFTER_S, seconds))


class ResilientChat(BaseChatModel):
    """A chat model that retries its inner model's transient faults (see the module doc)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: Any
    retries: int = 2  # extra attempts after the first
    backoff_s: float = 1.0  # base of the exponential backoff
    max_wait_s: float = 60.0  # total sleep across the retries of one call
    seed: int = 0

    def model_post_init(self, context: Any) -> None:
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()
        self._stats = {"calls": 0, "retries": 0, "failed": 0}

    @property
    def _llm_type(self) -> str:
        return getattr(self.inner, "_llm_type", "chat")

    @property
    def extra_body(self) -> Any:  # what agent.llm binds grammars and schemas onto
        return getattr(self.inner, "extra_body", None)

    def _get_invocation_params(self, stop: list[str] | None = None, **kwargs: Any) -> dict[str, Any]:
        return self.inner._get_invocation_params(stop=stop, **kwargs)

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        return self.inner._get_ls_params(stop=stop, **kwargs)

    def stats(self) -> dict[str, int]:
        with self._lock:
            return dict(self._stats)

    def _count(self, key: str) -> None:
        with self._lock:
            self._stats[key] += 1

    def _delay(self, attempt: int, exc: BaseException) -> float:
        hinted = retry_after(exc)
        if hinted is not None:
            return hinted
        with self._lock:
            jitter = self._rng.random()
        return min(MAX_BACKOFF_S, self.backoff_s * 2**attempt) * jitter  # full jitter

    def _generate(
        self, messages: list, stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self._count("calls")
        waited, attempts = 0.0, self.retries + 1
        for attempt in range(attempts):
            try:
                result = self.inner._generate(messages, stop=stop, **kwargs)
                if not result.generations:
                    raise MalformedReply("the reply had no choices")
                text = result.generations[0].text or ""
                if not text.strip():
                    raise MalformedReply("the reply was empty")
                if len(text) > MAX_REPLY_CHARS:  # never stored, shown or parsed: it would bloat every checkpoint
                    raise MalformedReply(
                        f"the reply was {len(text)} characters long; accepted: at most {MAX_REPLY_CHARS}"
                    )
                return result
            except Exception as exc:  # noqa: BLE001 - classified below; a bug is re-raised as it is
                kind = classify(exc)
                if kind == "bug":
                    raise
                if kind == "fatal":
                    self._count("failed")
                    refused = ContextOverflow if overflowed(exc) else LLMCallFailed
                    raise refused(f"the LLM back-end refused the request: {describe(exc)}") from None
                delay = self._delay(attempt, exc)
                if attempt + 1 == attempts or waited + delay > self.max_wait_s:
                    self._count("failed")
                    raise LLMCallFailed(
                        f"the LLM back-end failed {attempt + 1} time(s) in a row (last: {describe(exc)})"
                    ) from None
                self._count("retries")
                if run_manager is not None:
                    run_manager.on_text(f"retrying after {describe(exc)} in {delay:.1f} s\n")
                time.sleep(delay)
                waited += delay
        raise AssertionError("unreachable")  # pragma: no cover

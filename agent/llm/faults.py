"""Fault injection for any LLM back-end, at the wire: `--llm-faults "timeout=0.1,http500=0.1,
ratelimit=0.1,garbage=0.1,empty=0.05"`.

An httpx transport sits under the OpenAI client and, for each chat-completion request, draws
(seeded) whether to pass it to the real server or to answer with one fault, so the real client's
parsing and our retry layer (agent/llm/retry.py) meet exactly what a failing server sends:

| kind       | what the client sees                                              |
| timeout    | the read times out (httpx.ReadTimeout), at once                   |
| drop       | the connection drops mid-response (httpx.RemoteProtocolError)     |
| http500    | HTTP 500 with a JSON error body                                   |
| ratelimit  | HTTP 429 with a Retry-After header                                |
| garbage    | HTTP 200 whose body is not JSON (an HTML error page)              |
| truncated  | HTTP 200 whose JSON body is cut in half                           |
| badutf8    | HTTP 200 whose body is not valid UTF-8                            |
| empty      | HTTP 200 with `choices: []`                                       |
"""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass, field

import httpx

KINDS = ("timeout", "drop", "http500", "ratelimit", "garbage", "truncated", "badutf8", "empty")
ACCEPTED = "KIND=P,... with KIND one of " + ", ".join(KINDS) + " and each P in [0, 1], summing to at most 1"


class FaultSpecError(ValueError):
    """A bad --llm-faults; one line."""


@dataclass(frozen=True)
class FaultSpec:
    rates: dict[str, float] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str | None) -> FaultSpec:
        if not text or not text.strip():
            return cls({})
        rates: dict[str, float] = {}
        for part in text.split(","):
            kind, sep, value = part.strip().partition("=")
            kind = kind.strip()
            if not sep or kind not in KINDS:
                raise FaultSpecError(f"bad --llm-faults entry {part.strip()!r}; accepted: {ACCEPTED}")
            try:
                p = float(value)
            except ValueError:
                raise FaultSpecError(
                    f"bad probability {value!r} for {kind} in --llm-faults; accepted: {ACCEPTED}"
                ) from None
            if not 0.0 <= p <= 1.0:
                raise FaultSpecError(f"probability {p} for {kind} is outside [0, 1]; accepted: {ACCEPTED}")
            rates[kind] = rates.get(kind, 0.0) + p
        if sum(rates.values()) > 1.0 + 1e-9:
            raise FaultSpecError(
                f"--llm-faults probabilities sum to {sum(rates.values()):.2f} > 1; accepted: {ACCEPTED}"
            )
        return cls(rates)

    def __bool__(self) -> bool:
        return any(p > 0 for p in self.rates.values())


class FaultTransport(httpx.BaseTransport):
    """Wraps a real transport; injects the spec's faults into chat-completion requests."""

    def __init__(self, spec: FaultSpec, seed: int = 0, inner: httpx.BaseTransport | None = None):
        self.spec, self.inner = spec, inner or httpx.HTTPTransport()
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.requests = 0
        self.injected: dict[str, int] = {k: 0 for k in KINDS}

    def _draw(self) -> str | None:
        with self._lock:
            self.requests += 1
            x, acc = self._rng.random(), 0.0
            for kind in KINDS:
                acc += self.spec.rates.get(kind, 0.0)
                if x < acc:
                    self.injected[kind] += 1
                    return kind
        return None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        kind = self._draw() if request.url.path.endswith("/chat/completions") else None
        if kind is None:
            return self.inner.handle_request(request)
        if kind == "timeout":
            raise httpx.ReadTimeout("injected fault: the server did not answer in time", request=request)
        if kind == "drop":
            raise httpx.RemoteProtocolError("injected fault: the server closed the connection", request=request)
        json_headers = {"content-type": "application/json"}
        if kind == "http500":
            body = json.dumps({"error": {"message": "injected fault: internal error", "type": "server_error"}})
            return httpx.Response(500, headers=json_headers, content=body.encode(), request=request)
        if kind == "ratelimit":
            body = json.dumps({"error": {"message": "injected fault: rate limited", "type": "rate_limit"}})
            return httpx.Response(
                429, headers={**json_headers, "retry-after": "0"}, content=body.encode(), request=request
            )
        if kind == "garbage":
            return httpx.Response(
                200, headers=json_headers, content=b"<html><body>502 Bad Gateway</body></html>", request=request
            )
        if kind == "truncated":
            return httpx.Response(
                200, headers=json_headers, content=b'{"id": "x", "choices": [{"index": 0, "mess', request=request
            )
        if kind == "badutf8":
            return httpx.Response(200, headers=json_headers, content=b'{"id": "\xff\xfe\xfa"}', request=request)
        body = json.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "model": "m",
                "choices": [],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            }
        )
        return httpx.Response(200, headers=json_headers, content=body.encode(), request=request)

    def close(self) -> None:
        self.inner.close()

    def stats(self) -> dict:
        return {"requests": self.requests, "injected": {k: n for k, n in self.injected.items() if n}}

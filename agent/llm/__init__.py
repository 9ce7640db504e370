"""LLM back-ends behind the `--llm` flag; one client (langchain_openai.ChatOpenAI) for all of them.
(Over 400 lines on purpose: parsing a spec, checking a server and opening a client are one
concern, each back-end's quirks sit side by side; retries and faults live in llm_retry/llm_faults.)

Accepted specs (see ACCEPTED):
  local                     the embedded model (local:rider: SmolLM2-135M-Instruct + the shipped planner
                            LoRA adapter, via llama.cpp on loopback); local:reader the same model with the
                            reader adapter, for the rider planner on items no suite names
  local:gemma3              another packaged model (local:smollm2 is the bare SmolLM2, local:gemma3) or
                            local:/path/model.gguf (a model or a LoRA adapter)
  PROVIDER:MODEL            openai:gpt-4o-mini (OPENAI_API_KEY, honours OPENAI_BASE_URL), or another
                            OpenAI-API provider: groq, together, openrouter, deepseek, mistral (KEY env
                            var per provider), ollama (http://localhost:11434/v1, no key)
  http(s)://host:port/v1    any OpenAI-compatible server (vLLM, Ollama, llama.cpp); the model goes after
                            '#' (http://host:8000/v1#qwen2.5) or in DEPS_LLM_MODEL, else the server's
                            first model; a key, if it needs one, in DEPS_LLM_API_KEY

    with open_chat_model("local", seed=0) as h:
        text, used = nodes.ask.ask(h.model, [("user", "...")])   # used: {calls, tokens_in, tokens_out}
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from agent.llm.local_server import (
    DEFAULT_LOCAL_MODEL,
    LOCAL_MODELS,
    LocalServer,
    LocalServerError,
    shared_here,
    shared_url,
)
from agent.preload import preload
from nodes.settings import redact_llm as redact  # noqa: F401 - re-exported: agent.llm.redact

__all__ = [
    "ACCEPTED",
    "PROVIDERS",
    "LLMError",
    "LLMSpec",
    "ChatModelHandle",
    "parse_llm_spec",
    "open_chat_model",
    "llm_options",
]

ACCEPTED = (
    f"accepted: 'local', {', '.join(repr('local:' + k) for k in LOCAL_MODELS)}, 'local:/path/model.gguf', "
    "'PROVIDER:MODEL' with PROVIDER one of openai, groq, together, openrouter, deepseek, mistral, ollama "
    "(e.g. openai:gpt-4o-mini), or an OpenAI-compatible base URL 'http(s)://host:port/v1[#model]'"
)

# provider -> (default base URL, env var with the key or None, env var that overrides the base URL)
PROVIDERS: dict[str, tuple[str, str | None, str | None]] = {
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY", None),
    "together": ("https://api.together.xyz/v1", "TOGETHER_API_KEY", None),
    "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", None),
    "deepseek": ("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", None),
    "mistral": ("https://api.mistral.ai/v1", "MISTRAL_API_KEY", None),
    "ollama": ("http://localhost:11434/v1", None, "OLLAMA_BASE_URL"),
}
# providers whose chat API takes OpenAI's response_format {"type": "json_schema", ...}
_JSON_SCHEMA_PROVIDERS = {"openai", "ollama"}

_LOCAL_KEY = "local-no-key"  # llama.cpp ignores it; the OpenAI client insists on one


class LLMError(RuntimeError):
    """A bad --llm value or an unusable back-end; the message is one line: what was wrong, what is accepted."""


@dataclass(frozen=True)
class LLMSpec:
    """A parsed --llm value.

    kind: "local" (model = 'smollm2' | 'gemma3' | path of a .gguf), "provider" (provider + model),
    or "url" (base_url, model may be "" = ask the server).
    """

    kind: str
    model: str
    provider: str | None = None
    base_url: str | None = None  # never holds user:password@ (that goes to `auth`)
    raw: str = ""
    auth: tuple[str, str] | None = field(default=None, repr=False)  # user:password@ of a URL: HTTP Basic

    @property
    def name(self) -> str:
        if self.kind == "local":
            return f"local:{self.model}"
        if self.kind == "provider":
            return f"{self.provider}:{self.model}"
        return redact(self.raw or str(self.base_url))  # scheme, host and port, and a hash


def parse_llm_spec(spec: str) -> LLMSpec:
    """Parse a --llm value; LLMError (one line, with the accepted forms) if it is not one."""
    if not isinstance(spec, str) or not spec.strip():
        raise LLMError(f"empty --llm value; {ACCEPTED}")
    raw = spec
    s = spec.strip()
    if not s.isprintable() or len(s) > 2000:
        raise LLMError(f"--llm value has control characters or is over 2000 characters; {ACCEPTED}")
    low = s.lower()

    if low.startswith(("http://", "https://")):
        url, _, model = s.partition("#")
        try:
            parsed = urllib.parse.urlsplit(url)
            parsed.hostname  # noqa: B018 - raises ValueError on a bad IPv6 literal
        except ValueError as exc:
            raise LLMError(f"--llm {redact(raw)!r} is not a valid URL ({exc}); {ACCEPTED}") from None
        if not parsed.hostname:
            raise LLMError(f"--llm {redact(raw)!r}: the URL has no host; {ACCEPTED}")
        try:
            parsed.port  # noqa: B018 - raises ValueError on a bad port
        except ValueError:
            raise LLMError(f"--llm {redact(raw)!r}: the URL has a bad port; {ACCEPTED}") from None
        if parsed.query:
            raise LLMError(f"--llm {redact(raw)!r}: put the model after '#', not in a query string; {ACCEPTED}")
        path = parsed.path.rstrip("/") or "/v1"
        netloc = parsed.netloc.rpartition("@")[2]  # credentials travel as a header, never in the URL
        base = urllib.parse.urlunsplit((parsed.scheme.lower(), netloc, path, "", ""))
        auth = None
        if parsed.username is not None or parsed.password is not None:
            auth = (urllib.parse.unquote(parsed.username or ""), urllib.parse.unquote(parsed.password or ""))
        return LLMSpec(kind="url", model=model.strip(), base_url=base, raw=raw, auth=auth)

    if "://" in s:
        raise LLMError(f"--llm {redact(raw)!r}: only http:// and https:// URLs are supported; {ACCEPTED}")

    if low == "local":
        return LLMSpec(kind="local", model=DEFAULT_LOCAL_MODEL, raw=raw)

    prefix, sep, rest = s.partition(":")
    prefix = prefix.strip().lower()
    rest = rest.strip()
    if not sep:
        raise LLMError(f"--llm {redact(raw)!r} names no provider (did you mean openai:{s}?); {ACCEPTED}")
    if prefix == "local":
        if not rest:
            raise LLMError(f"--llm {redact(raw)!r}: no model after 'local:'; {ACCEPTED}")
        if rest.lower() in LOCAL_MODELS:
            return LLMSpec(kind="local", model=rest.lower(), raw=raw)
        if rest.lower().endswith(".gguf"):
            return LLMSpec(kind="local", model=os.path.abspath(os.path.expanduser(rest)), raw=raw)
        raise LLMError(
            f"--llm {redact(raw)!r}: unknown local model {rest!r}; local models: {', '.join(LOCAL_MODELS)} "
            "or the path of a .gguf file"
        )
    if prefix in PROVIDERS:
        if not rest:
            raise LLMError(f"--llm {redact(raw)!r}: no model after '{prefix}:' (e.g. openai:gpt-4o-mini); {ACCEPTED}")
        return LLMSpec(kind="provider", model=rest, provider=prefix, raw=raw)
    if rest.split("/")[0].isdigit():  # localhost:8000/v1 without a scheme
        raise LLMError(f"--llm {redact(raw)!r} looks like a URL without its scheme (http://{s}?); {ACCEPTED}")
    raise LLMError(f"--llm {redact(raw)!r}: unknown provider {prefix!r}; {ACCEPTED}")


@dataclass
class ChatModelHandle:
    """What open_chat_model yields: the chat model and how to ask it for JSON."""

    model: Any  # langchain_core BaseChatModel (a ChatOpenAI)
    name: str
    spec: LLMSpec
    base_url: str
    supports_json_schema: bool
    response_format_style: str  # "llama.cpp" | "openai" | "json_object"
    server: LocalServer | None = field(default=None, repr=False)
    faults: Any = field(default=None, repr=False)  # the FaultTransport under --llm-faults, for its counts
    siblings: Any = field(default=None, repr=False)  # _Siblings: other local models opened beside this one
    taught: dict = field(default_factory=dict)  # a shipped adapter's card run_settings (agent/llm/taught.py)

    def stats(self) -> dict:
        """Calls, retries and calls that failed for good (a sibling's added in); with
        --llm-faults, the faults injected."""
        out: dict[str, Any] = dict(self.model.stats()) if hasattr(self.model, "stats") else {}
        for other in self.siblings.opened() if self.siblings is not None else ():
            for key, value in other.stats().items():
                if isinstance(value, int) and not isinstance(value, bool):
                    out[key] = out.get(key, 0) + value
        if self.faults is not None:
            out["faults"] = self.faults.stats()
        return out

    def sibling(self, spec: str, warm_for: str | None = None) -> ChatModelHandle:
        """Another embedded model (`local:NAME`) beside this one: started on first use with this
        handle's server threads, timeout and retries (and `warm_for` planner's fixed prompt part
        cached, agent/llm/prompt_state.py), then kept, and stopped with this handle. An eval
        worker's handle gets its own, so workers never queue on one server."""
        if self.siblings is None:
            raise LLMError(f"{self.name} cannot open {spec!r} beside it; accepted: a handle from open_chat_model")
        return self.siblings.get(spec, warm_for)

    @property
    def supports_grammar(self) -> bool:
        """llama.cpp servers take a GBNF grammar that constrains the whole reply."""
        return self.response_format_style == "llama.cpp"

    def grammar_mode(self, gbnf: str):
        """The model bound to a GBNF grammar (llama.cpp only; sent through extra_body)."""
        if not self.supports_grammar:
            raise LLMError(
                f"{self.name} does not take a grammar; accepted: a llama.cpp server (--llm local or its URL)"
            )
        extra = dict(getattr(self.model, "extra_body", None) or {})
        extra["grammar"] = gbnf
        return self.model.bind(extra_body=extra)

    def json_mode(self, schema: dict | None = None, *, name: str = "response"):
        """The model bound to answer with JSON (constrained to `schema` where the back-end can).

        llama.cpp (llama-cpp-python) takes {"type": "json_object", "schema": ...} and compiles the schema
        to a grammar; OpenAI (and Ollama) take {"type": "json_schema", ...}; other providers get plain
        JSON mode, so the prompt must describe the shape.
        """
        rf = response_format_for(self.response_format_style, schema, name)
        # Sent through extra_body, not as `response_format=`: with the latter langchain-openai calls the
        # SDK's .parse(), which raises LengthFinishReasonError on a truncated answer instead of returning
        # it (finish_reason "length" in response_metadata) for the caller to repair or re-ask.
        extra = dict(getattr(self.model, "extra_body", None) or {})
        extra["response_format"] = rf
        return self.model.bind(extra_body=extra)


def response_format_for(style: str, schema: dict | None, name: str = "response") -> dict:
    if schema is None or style == "json_object":
        return {"type": "json_object"}
    if style == "llama.cpp":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}


def _basic_auth(auth: tuple[str, str] | None) -> dict[str, str]:
    """The Authorization header for a URL's user:password@ (HTTP Basic), or none."""
    if not auth:
        return {}
    import base64

    return {"Authorization": "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()}


MAX_KEY_FILE_BYTES = 4096


def _url_key() -> str:
    """The key for an OpenAI-compatible URL: $DEPS_LLM_API_KEY, else the file named by
    $DEPS_LLM_API_KEY_FILE (so the key need not sit in the environment), else the local dummy."""
    key = os.environ.get("DEPS_LLM_API_KEY", "").strip()
    path = os.environ.get("DEPS_LLM_API_KEY_FILE", "").strip()
    if not key and path:
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_KEY_FILE_BYTES + 1)  # bounded: /dev/zero must not fill memory
        except OSError as exc:
            raise LLMError(f"cannot read DEPS_LLM_API_KEY_FILE {path!r} ({exc.strerror})") from None
        try:
            key = data.decode("utf-8").strip()
        except UnicodeDecodeError:
            key = "\0"
        if len(data) > MAX_KEY_FILE_BYTES or not key.isprintable():
            raise LLMError(
                f"DEPS_LLM_API_KEY_FILE {path!r} does not hold one key; accepted: a text file of at "
                f"most {MAX_KEY_FILE_BYTES} bytes holding the key on one line"
            )
    return key or _LOCAL_KEY


def _get_models(
    base_url: str, api_key: str | None, timeout: float, headers: dict[str, str] | None = None
) -> list[dict]:
    """GET {base}/models; returns its `data` list. Raises LLMError when unreachable or refused."""
    req = urllib.request.Request(base_url.rstrip("/") + "/models")
    if api_key:
        req.add_header("Authorization", f"Bearer {api_key}")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            raise LLMError(
                f"{redact(base_url)} refused the API key (HTTP {exc.code}); check the key's env var"
            ) from None
        if exc.code == 404:
            return []  # some servers have no /models; it answered, so it is reachable
        raise LLMError(
            f"{redact(base_url)}/models answered HTTP {exc.code}; is it an OpenAI-compatible base URL?"
        ) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise LLMError(
            f"LLM server {redact(base_url)} is unreachable ({reason}); start it, or pick another --llm ({ACCEPTED})"
        ) from None
    try:
        data = json.loads(body).get("data") or []
        return [d for d in data if isinstance(d, dict)]
    except (ValueError, AttributeError):
        return []


def _chat_openai(
    *,
    base_url: str,
    api_key: str,
    model: str,
    temperature: float,
    seed: int | None,
    max_tokens: int,
    timeout: float,
    legacy_max_tokens: bool,
    http_client: Any = None,
    headers: dict[str, str] | None = None,
    no_repeat_penalty: bool = False,
):
    try:
        from langchain_openai import ChatOpenAI
    except ImportError:  # pragma: no cover - a core dependency
        raise LLMError("langchain-openai is not installed: pip install langchain-openai") from None
    kwargs: dict[str, Any] = dict(
        base_url=base_url,
        api_key=api_key,
        model=model,
        temperature=temperature,
        max_tokens=max_tokens,
        timeout=timeout,
        max_retries=0,  # agent/llm/retry.py retries, the same way for every back-end
    )
    if http_client is not None:
        kwargs["http_client"] = http_client
    if headers:
        kwargs["default_headers"] = headers
    if seed is not None:
        kwargs["seed"] = seed
    if legacy_max_tokens:
        # ChatOpenAI sends only `max_completion_tokens`, which llama-cpp-python (and some other
        # OpenAI-compatible servers) silently ignore -> unbounded generations. Send both.
        kwargs["extra_body"] = {"max_tokens": max_tokens}
    if no_repeat_penalty:
        # llama-cpp-python's server penalises every token seen in the last 64 (repeat_penalty 1.1)
        # unless told otherwise, even at temperature 0. A plan repeats `craft(` and small numbers by
        # its nature: the penalty turned a fine-tuned model's "12 planks" into "8" and its
        # "craft" into "mine" (agent/adapters/rider/card.json). Plain greedy decoding instead.
        kwargs["extra_body"] = {**kwargs.get("extra_body", {}), "repeat_penalty": 1.0}
    return _traced(ChatOpenAI)(**kwargs)


LOCAL_TIMEOUT_S = 300.0  # one request to the embedded model: a 1k-token prompt took 132 s on a loaded 2-core machine
REMOTE_TIMEOUT_S = 60.0  # one request to a hosted API
DEFAULT_RETRIES = 2  # extra attempts after a transient fault (timeouts, 429, 5xx, malformed replies)
LARGE_PARAM_CHARS = 1000


def digest_large(value: Any) -> Any:
    """`value` with every string longer than LARGE_PARAM_CHARS replaced by its length and
    sha256 (a GBNF grammar, a JSON schema), so traces stay small and static payloads are
    still told apart."""
    if isinstance(value, str) and len(value) > LARGE_PARAM_CHARS:
        import hashlib

        return f"<{len(value)} chars, sha256 {hashlib.sha256(value.encode()).hexdigest()[:16]}>"
    if isinstance(value, dict):
        return {k: digest_large(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [digest_large(v) for v in value]
    return value


_TRACED: dict[type, type] = {}


def _traced(model_cls: type) -> type:
    """A subclass of a LangChain chat model whose traced invocation parameters (what LangSmith
    shows under the run's metadata) carry digests of large static payloads, not the payloads."""
    if model_cls not in _TRACED:

        class Traced(model_cls):  # type: ignore[misc, valid-type]
            def _get_invocation_params(self, stop=None, **kwargs):
                return digest_large(super()._get_invocation_params(stop=stop, **kwargs))

        Traced.__name__ = Traced.__qualname__ = model_cls.__name__
        _TRACED[model_cls] = Traced
    return _TRACED[model_cls]


def llm_options(settings: Any) -> dict[str, Any]:
    """open_chat_model's keyword arguments from a run's settings (nodes.settings.RunSettings)."""
    return {
        "seed": settings.seed,
        "timeout": settings.llm_timeout,
        "retries": settings.llm_retries,
        "faults": settings.llm_faults,
        "warm_for": settings.planner,  # a private embedded server starts from this planner's saved prompt part
    }


class _Siblings:
    """The other embedded models a handle opened (ChatModelHandle.sibling), each once, closed together."""

    def __init__(self, threads: int | None, options: dict[str, Any]):
        self.threads, self.options = threads, options
        self.stack = contextlib.ExitStack()
        self.handles: dict[str, ChatModelHandle] = {}
        self.lock = threading.Lock()

    def opened(self) -> list[ChatModelHandle]:
        with self.lock:
            return list(self.handles.values())

    def get(self, spec: str, warm_for: str | None = None) -> ChatModelHandle:
        parsed = parse_llm_spec(spec)
        if parsed.kind != "local":
            raise LLMError(f"{spec!r} cannot be opened beside the run's model; accepted: local:NAME")
        with self.lock:
            if spec not in self.handles:
                srv = LocalServer(parsed.model, n_threads=self.threads, prompt_state_for=warm_for)
                self.stack.callback(srv.stop)
                try:
                    srv.start()
                except LocalServerError as exc:
                    raise LLMError(" | ".join(str(exc).splitlines())) from None
                handle = self.stack.enter_context(open_chat_model(spec, server=srv, **self.options))
                from agent.llm.taught import taught

                handle.taught = taught(spec)
                self.handles[spec] = handle
            return self.handles[spec]


@contextlib.contextmanager
def open_chat_model(
    spec: str,
    *,
    temperature: float = 0.0,
    seed: int | None = None,
    max_tokens: int = 512,
    check: bool = True,
    timeout: float | None = None,
    retries: int = DEFAULT_RETRIES,
    backoff: float = 1.0,
    faults: str | None = None,
    server: LocalServer | None = None,
    warm_for: str | None = None,
) -> Iterator[ChatModelHandle]:
    """Open the back-end named by `spec` and yield a ChatModelHandle.

    local: uses `server` if given, else a shared server (agent.llm.local_server.shared_server) if one is open,
    else starts a private LocalServer that is stopped when the block exits. Remote back-ends: checks up
    front (check=True) that {base}/models answers within a few seconds. All failures raise LLMError.
    Each request may take `timeout` seconds (default: LOCAL_TIMEOUT_S for the embedded model, else
    REMOTE_TIMEOUT_S); transient faults are retried `retries` times (agent/llm/retry.py);
    `faults` injects faults at the wire (agent/llm/faults.py). With `warm_for` (a planner's name), a
    private server starts from that planner's saved fixed prompt part (agent/llm/prompt_state.py).
    """
    from agent.llm.faults import FaultSpec, FaultSpecError, FaultTransport
    from agent.llm.retry import ResilientChat

    try:
        fault_spec = FaultSpec.parse(faults)
    except FaultSpecError as exc:
        raise LLMError(str(exc)) from None
    if retries < 0 or (timeout is not None and timeout <= 0):
        raise LLMError(f"--llm-retries must be 0 or more and --llm-timeout above 0 (got {retries}, {timeout})")
    parsed = parse_llm_spec(spec)
    preload("langchain_openai")  # the client's library loads while a server starts (agent/preload.py)
    headers: dict[str, str] = {}
    own: LocalServer | None = None
    options = {"temperature": temperature, "seed": seed, "max_tokens": max_tokens, "timeout": timeout}
    siblings = _Siblings(None, {**options, "retries": retries, "backoff": backoff, "faults": faults})
    try:
        if parsed.kind == "local":
            if server is not None:
                if not server.is_running():
                    raise LLMError(f"the local server passed for --llm {spec!r} is not running")
                base_url, model_name = server.base_url, server.model_name
            else:
                found = shared_url(parsed.model)
                if found is not None:
                    base_url, model_name = found
                    if check and not shared_here(parsed.model):  # one handed down by a parent process
                        _get_models(base_url, None, 5.0)
                else:
                    try:
                        own = LocalServer(parsed.model, prompt_state_for=warm_for)
                        own.start()
                    except LocalServerError as exc:
                        raise LLMError(" | ".join(str(exc).splitlines())) from None
                    base_url, model_name = own.base_url, own.model_name
            api_key, style = _LOCAL_KEY, "llama.cpp"
            name = f"local:{parsed.model}" if parsed.model in LOCAL_MODELS else f"local:{model_name}"
        elif parsed.kind == "provider":
            default_url, key_env, url_env = PROVIDERS[parsed.provider]
            base_url = (os.environ.get(url_env) if url_env else None) or default_url
            if key_env:
                api_key = os.environ.get(key_env, "").strip()
                if not api_key:
                    raise LLMError(
                        f"{key_env} is not set; export it to use --llm {parsed.name}, or use --llm local "
                        "(the embedded model, no key)"
                    )
            else:
                api_key = _LOCAL_KEY
            if check:
                _get_models(base_url, api_key, 10.0)
            model_name = parsed.model
            style = "openai" if parsed.provider in _JSON_SCHEMA_PROVIDERS else "json_object"
            name = parsed.name
        else:  # url
            base_url = parsed.base_url
            api_key, headers = _url_key(), _basic_auth(parsed.auth)
            model_name = parsed.model or os.environ.get("DEPS_LLM_MODEL", "").strip()
            models = _get_models(base_url, api_key, 5.0, headers) if check or not model_name else []
            if not model_name:
                ids = [str(m.get("id")) for m in models if m.get("id")]
                if not ids:
                    raise LLMError(
                        f"{redact(base_url)} lists no model; name one after '#' ({redact(base_url)}#MODEL) or in DEPS_LLM_MODEL"
                    )
                model_name = ids[0]
            # llama-cpp-python reports owned_by "me" and rejects {"type": "json_schema"}
            is_llama_cpp_py = any(m.get("owned_by") == "me" for m in models)
            style = "llama.cpp" if is_llama_cpp_py else "openai"
            name = redact(parsed.raw if parsed.model else f"{base_url}#{model_name}")

        if timeout is None:
            timeout = LOCAL_TIMEOUT_S if parsed.kind == "local" else REMOTE_TIMEOUT_S
        transport = FaultTransport(fault_spec, seed=seed or 0) if fault_spec else None
        if transport is not None:
            import httpx

            http_client = httpx.Client(transport=transport, timeout=timeout)
        else:
            http_client = None
        chat = _chat_openai(
            base_url=base_url,
            api_key=api_key,
            model=model_name,
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            timeout=timeout,
            http_client=http_client,
            legacy_max_tokens=parsed.provider != "openai",
            headers=headers,
            no_repeat_penalty=style == "llama.cpp",
        )
        handle = ChatModelHandle(
            model=ResilientChat(inner=chat, retries=retries, backoff_s=backoff, seed=seed or 0, name=name),
            faults=transport,
            name=name,
            spec=parsed,
            base_url=base_url,
            supports_json_schema=style != "json_object",
            response_format_style=style,
            server=own or server,
            siblings=siblings,
        )
        siblings.threads = (own or server).n_threads if (own or server) is not None else None
        yield handle
    finally:
        siblings.stack.close()
        if own is not None:
            own.stop()

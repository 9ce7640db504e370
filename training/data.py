"""The supervised chat dataset for fine-tuning the embedded model (`deps-sft/1`).

Written by `deps eval --collect DIR` (exploration, LLaMA-Rider style) and by
`deps train llm-data` (teacher data in the DEPS planner's own prompt form); read by
`deps train llm --data DIR`. One folder per dataset:

DIR/train.jsonl  one example per line, a JSON object:
    {"messages": [{"role": "system" | "user" | "assistant", "content": str}, ...],
     "task": str,                       # task id, e.g. "CraftWoodenPickaxe"
     "source": "exploration" | "teacher:oracle" | "teacher:<llm name>" | "explore:<model>",
     "format": "rider-step" | "deps-plan" | "deps-explain",
     "relabelled": bool}                # true when the task was relabelled after the fact
                                        # (LLaMA-Rider's sub-task relabelling), else false
  - `messages` are exactly what the planner sends (system first when present), followed by
    the reply it should have given. The last message is an "assistant" one, and it is the only
    one trained on (its content and the end-of-turn token); earlier assistant messages are
    context (worked examples in the prompt, the dialogue's earlier turns, a rider step that
    the feedback made it revise). At least one "user" message.
  - "rider-step": the rider planner's next-skill turn(s); "deps-plan": the DEPS planner's
    plan (code form, one goal a line, as the grammar in nodes/planners/grammar.py accepts),
    first or re-planned; "deps-explain": the DEPS explainer's answer to a failed goal.
  - Extra keys are allowed and kept (e.g. "episode", "seed"); the keys above are required.

DIR/card.json  one JSON object:
    {"format": "deps-sft/1",
     "base_model": {"file": "SmolLM2-135M-Instruct.Q4_1.gguf", "sha256": "<hex>"} | "any",
                                        # the GGUF the prompts were written for (a tokenizer /
                                        # chat template matter); "any" when prompts are generic
     "tasks": [task ids present],
     "episodes": int,                   # episodes run to make it (0 for teacher data)
     "examples": int,                   # = number of lines in train.jsonl
     "counts": {...},                   # free-form tallies, e.g. {"source:exploration": 120,
                                        #   "format:rider-step": 120, "relabelled": 40}
     "command": str}                    # the command line that produced it

Writers use `write_dataset` (validates everything first, writes into a temporary folder
next to DIR and renames it into place, so nothing half-written is ever left). Readers use
`load_dataset(dir, base_model=...)`: an empty, malformed or foreign dataset raises
`DatasetError` (a SettingsError, so a ValueError; one line naming the file, the line and what is accepted).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.checksums import file_sha256
from nodes.settings import SettingsError

FORMAT = "deps-sft/1"
ROLES = ("system", "user", "assistant")
FORMATS = ("rider-step", "deps-plan", "deps-explain")
_SOURCE = re.compile(r"^(exploration|(teacher|explore):[A-Za-z0-9_.:/\-]+)$")
TRAIN_FILE = "train.jsonl"
CARD_FILE = "card.json"
CARD_KEYS = ("format", "base_model", "tasks", "episodes", "examples", "counts", "command")


class DatasetError(SettingsError):
    """A bad fine-tuning dataset; the message is one line (the CLI prints it, exit 2)."""


@dataclass
class Dataset:
    path: Path
    card: dict[str, Any]
    examples: list[dict[str, Any]] = field(default_factory=list)


def base_model_id(gguf: str | os.PathLike) -> dict[str, str]:
    """{"file", "sha256"} of a GGUF file: what a card's base_model names."""
    return {"file": Path(gguf).name, "sha256": file_sha256(gguf)}


def default_base_model() -> dict[str, str]:
    """The identity of the packaged default model (SmolLM2-135M-Instruct Q4_1)."""
    from agent.llm.local_server import find_model

    return base_model_id(find_model("smollm2"))


def validate_example(obj: Any, where: str = "example") -> dict[str, Any]:
    """The example itself if it is well formed, else DatasetError naming `where`."""
    if not isinstance(obj, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    for key in ("messages", "task", "source", "format", "relabelled"):
        if key not in obj:
            raise DatasetError(f"{where}: missing key {key!r}; required: messages, task, source, format, relabelled")
    msgs = obj["messages"]
    if not isinstance(msgs, list) or not msgs:
        raise DatasetError(f"{where}: 'messages' must be a non-empty list of {{role, content}} objects")
    for i, m in enumerate(msgs):
        if not isinstance(m, dict) or m.get("role") not in ROLES or not isinstance(m.get("content"), str):
            raise DatasetError(
                f'{where}: messages[{i}] must be {{"role": one of {", ".join(ROLES)}, "content": string}}'
            )
        if m["role"] == "system" and i != 0:
            raise DatasetError(f"{where}: messages[{i}]: a system message may only come first")
    if msgs[-1]["role"] != "assistant" or not msgs[-1]["content"].strip():
        raise DatasetError(f"{where}: the last message must be a non-empty 'assistant' reply (the target)")
    if not any(m["role"] == "user" for m in msgs):
        raise DatasetError(f"{where}: needs at least one 'user' message")
    if not isinstance(obj["task"], str) or not obj["task"]:
        raise DatasetError(f"{where}: 'task' must be a non-empty string (a task id)")
    if not isinstance(obj["source"], str) or not _SOURCE.match(obj["source"]):
        raise DatasetError(
            f"{where}: 'source' {obj['source']!r} not accepted; accepted: exploration, explore:<model>, "
            "teacher:oracle, teacher:<llm name>"
        )
    if obj["format"] not in FORMATS:
        raise DatasetError(f"{where}: 'format' {obj['format']!r} not accepted; accepted: {', '.join(FORMATS)}")
    if not isinstance(obj["relabelled"], bool):
        raise DatasetError(f"{where}: 'relabelled' must be true or false")
    return obj


def _same_base(a: Any, b: Any) -> bool:
    if a == "any" or b == "any":
        return True
    return isinstance(a, dict) and isinstance(b, dict) and a.get("sha256") == b.get("sha256")


def _base_name(b: Any) -> str:
    return b if isinstance(b, str) else f"{b.get('file', '?')} (sha256 {str(b.get('sha256', '?'))[:12]}...)"


def validate_card(card: Any, where: str = CARD_FILE) -> dict[str, Any]:
    if not isinstance(card, dict):
        raise DatasetError(f"{where}: expected a JSON object")
    missing = [k for k in CARD_KEYS if k not in card]
    if missing:
        raise DatasetError(f"{where}: missing {', '.join(missing)}; a {FORMAT} card has {', '.join(CARD_KEYS)}")
    if card["format"] != FORMAT:
        raise DatasetError(f"{where}: format {card['format']!r} not accepted; accepted: {FORMAT}")
    b = card["base_model"]
    if not (
        b == "any" or (isinstance(b, dict) and isinstance(b.get("sha256"), str) and isinstance(b.get("file"), str))
    ):
        raise DatasetError(f'{where}: base_model must be "any" or {{"file": name, "sha256": hex}}')
    if not isinstance(card["tasks"], list) or not isinstance(card["counts"], dict):
        raise DatasetError(f"{where}: 'tasks' must be a list and 'counts' an object")
    for k in ("episodes", "examples"):
        if not isinstance(card[k], int) or isinstance(card[k], bool) or card[k] < 0:
            raise DatasetError(f"{where}: {k!r} must be a whole number >= 0")
    return card


def load_dataset(path: str | os.PathLike, base_model: dict[str, str] | str | None = None) -> Dataset:
    """Read and validate DIR (card.json + train.jsonl). `base_model` (an id from
    base_model_id, or None to skip) must match the card's unless either is "any"."""
    d = Path(path)
    if not d.is_dir():
        raise DatasetError(f"dataset {d}: not a folder; expected DIR with {CARD_FILE} and {TRAIN_FILE}")
    card_p, train_p = d / CARD_FILE, d / TRAIN_FILE
    if not card_p.is_file() or not train_p.is_file():
        raise DatasetError(f"dataset {d}: needs {CARD_FILE} and {TRAIN_FILE} ({FORMAT}; see training/data.py)")
    try:
        card = json.loads(card_p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise DatasetError(f"{card_p}: not valid JSON ({e.msg if hasattr(e, 'msg') else e})") from e
    validate_card(card, str(card_p))
    if base_model is not None and not _same_base(card["base_model"], base_model):
        raise DatasetError(
            f"dataset {d} was written for base model {_base_name(card['base_model'])}, "
            f"not {_base_name(base_model)}; collect it again for this model"
        )
    examples: list[dict[str, Any]] = []
    with open(train_p, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{train_p}:{n}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise DatasetError(f"{where}: not valid JSON ({e.msg})") from e
            examples.append(validate_example(obj, where))
    if not examples:
        raise DatasetError(f"{train_p}: no examples; a dataset needs at least one line")
    if card["examples"] != len(examples):
        raise DatasetError(f"{card_p}: says {card['examples']} examples but {TRAIN_FILE} has {len(examples)}")
    return Dataset(path=d, card=card, examples=examples)


def count(examples: Iterable[dict[str, Any]]) -> dict[str, int]:
    """The card's standard tallies: per source, per format, relabelled."""
    c: dict[str, int] = {}
    for ex in examples:
        for k in (f"source:{ex['source']}", f"format:{ex['format']}"):
            c[k] = c.get(k, 0) + 1
        c["relabelled"] = c.get("relabelled", 0) + int(bool(ex["relabelled"]))
    return c


def write_dataset(
    path: str | os.PathLike,
    examples: list[dict[str, Any]],
    *,
    base_model: dict[str, str] | str,
    command: str = "",
    episodes: int = 0,
    counts: dict[str, Any] | None = None,
    overwrite: bool = True,
) -> dict[str, Any]:
    """Validate every example, then write DIR atomically (temp folder + rename). Returns the card."""
    if not examples:
        raise DatasetError(f"dataset {path}: no examples to write")
    for i, ex in enumerate(examples):
        validate_example(ex, f"example {i}")
    tasks = sorted({ex["task"] for ex in examples})
    card = {
        "format": FORMAT,
        "base_model": base_model,
        "tasks": tasks,
        "episodes": int(episodes),
        "examples": len(examples),
        "counts": {**count(examples), **(counts or {})},
        "command": command,
    }
    validate_card(card, "card")
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise DatasetError(f"dataset {d}: exists and is not a folder")
    if d.exists() and any(d.iterdir()) and not overwrite:
        raise DatasetError(f"dataset {d}: folder is not empty")
    try:
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{d.name}.", dir=d.parent))
    except OSError as e:
        raise DatasetError(f"dataset {d}: cannot write there ({e.strerror})") from e
    try:
        with open(tmp / TRAIN_FILE, "w", encoding="utf-8") as f:
            for ex in examples:
                f.write(json.dumps(ex, ensure_ascii=False) + "\n")
        (tmp / CARD_FILE).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
        if d.exists():
            old = d.with_name(f".{d.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            d.rename(old)
            tmp.rename(d)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(d)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise DatasetError(f"dataset {d}: cannot write there ({e.strerror})") from e
    return card

"""Exploration experience as a fine-tuning dataset: `deps eval ... --planner rider --collect DIR`.

LLaMA-Rider (section 4.2) keeps what its exploration got right: every decision of a
successful episode, and every decision that served a sub-task which was then completed
(also in episodes that failed as a whole), as (prompt, skill) pairs. Each kept decision
becomes one chat example in the `deps-sft/1` format (training/data.py):

- the rider's own next-skill question (nodes/planners/rider/prompt.py, so the data is exactly
  what the planner sends) with the episode's task, and the skill that ran as the reply
  (`relabelled: false`; successful episodes only);
- the same decision with the sub-task it served as the prompt's task (`relabelled: true`),
  whether or not the explored run showed that label (`--no-relabel` runs get it too).

A decision is kept only when its skill ran: the next decision was not a revision, or it was
the last one of a successful episode. The prompt is the plain question, without the
revision's feedback or the requirement check, as the fine-tuned model will be asked.

The dataset is rebuilt from the eval's stored episodes whenever one adds examples, and
written atomically (temp folder, rename), so it always matches the store: a killed run
resumed with `--resume` goes on where it stopped, with nothing lost or counted twice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from nodes.planners.rider.prompt import as_chat, read_record, reply_text, step_messages
from nodes.settings import RunSettings, redact_llm, redact_text
from training.data import CARD_FILE, FORMAT, TRAIN_FILE, DatasetError, write_dataset

SOURCE = "exploration"


def source_of(settings: RunSettings) -> str:
    """exploration: the embedded model explored (the paper's way); teacher:oracle: the rider's
    oracle teacher answered (training/rider_teacher.py); teacher:<llm>: another LLM did."""
    from training.rider_teacher import NAME

    if settings.planner == NAME:
        return "teacher:oracle"
    if settings.llm.startswith("local"):
        return SOURCE
    return "teacher:" + re.sub(r"[^A-Za-z0-9_.:/\-]", "-", redact_llm(settings.llm))


def _base_model(settings: RunSettings) -> dict[str, str] | str:
    """The GGUF the prompts go to (the base model, adapters included), or "any" for other back-ends."""
    llm = settings.llm
    if not llm.startswith("local") or source_of(settings) != SOURCE:
        return "any"
    from agent.llm.local_server import DEFAULT_LOCAL_MODEL, LocalServerError, find_model
    from training.data import base_model_id

    try:  # an adapter (local:rider, local:ADAPTER.gguf) is served on its base model: that one
        return base_model_id(find_model(llm.partition(":")[2] or DEFAULT_LOCAL_MODEL))
    except (LocalServerError, OSError):
        return "any"


def served(record: dict) -> list[dict]:
    """The sub-task stack a decision worked for: the one its skill opened, else the one it was shown."""
    return record["next_stack"] if len(record["next_stack"]) > len(record["stack"]) else record["stack"]


def _completed(records: list[dict], k: int, depth: int) -> bool:
    """Was the sub-task at `depth` of decision k's stack done later in the episode (dropped)?"""
    item = next(iter(served(records[k])[depth]))
    for later in records[k + 1 :]:
        stack = later["stack"]
        if len(stack) <= depth or item not in stack[depth]:
            return True
    return False


def episode_examples(kb: Any, row: dict[str, Any], source: str = SOURCE) -> list[dict[str, Any]]:
    """The examples one stored episode gives (none from other planners' episodes)."""
    records = [r for r in (read_record(p) for p in row.get("plans") or []) if r is not None]
    if not records:
        return []
    success = bool(row.get("success"))
    task = str(row.get("task_id") or row.get("task"))
    root = records[0]["stack"][0]
    out = []

    def example(r: dict, shown: dict, relabelled: bool, k: int) -> dict[str, Any]:
        msgs = step_messages(kb, shown, r["inventory"], r["history"])
        chat = [*as_chat(msgs), {"role": "assistant", "content": reply_text(r["skill"])}]
        return {
            "messages": chat,
            "task": task,
            "source": source,
            "format": "rider-step",
            "relabelled": relabelled,
            "episode": row.get("episode"),
            "seed": row.get("seed"),
            "step": k,
            "subtask": next(iter(shown)) if relabelled else None,
        }

    for k, r in enumerate(records):
        ran = records[k + 1]["revision"] == 0 if k + 1 < len(records) else success
        if not ran:
            continue
        if success:
            out.append(example(r, root, False, k))
        stack = served(r)
        depth = len(stack) - 1
        if depth >= 1 and (success or _completed(records, k, depth)):
            out.append(example(r, stack[-1], True, k))
    return out


def _is_dataset(d: Path) -> bool:
    try:
        card = json.loads((d / CARD_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(card, dict) and card.get("format") == FORMAT


class Collector:
    """Turns each stored episode of an eval into examples and keeps DIR up to date."""

    def __init__(self, out: str, settings: RunSettings, *, command: str = "", resume: bool = False):
        d = Path(out)
        if d.exists() and not d.is_dir():
            raise DatasetError(f"--collect {d} exists and is not a folder; choose another --collect DIR")
        if d.is_dir() and any(d.iterdir()):
            if not _is_dataset(d):
                raise DatasetError(
                    f"--collect {d} holds other files; accepted: a new or empty folder "
                    f"(or one holding this eval's {FORMAT} dataset, with --resume)"
                )
            if not resume:
                raise DatasetError(
                    f"--collect {d} already holds a dataset; choose another folder, or pass "
                    "--resume to rebuild it from this eval's stored episodes"
                )
        from worlds.knowledge import load_kb

        self.out, self.command = d, redact_text(command)  # the command line's credentials never stored
        self.kb = load_kb(settings.mc_version)
        self.base_model = _base_model(settings)
        self.source = source_of(settings)
        self.episodes = 0
        self.successes = 0
        self.examples: list[dict[str, Any]] = []

    def begin(self, rows: Iterable[dict[str, Any]]) -> None:
        """The episodes already stored (a resumed eval): their examples, written once."""
        before = len(self.examples)
        for row in rows:
            self._take(row)
        if len(self.examples) > before:
            self.write()

    def add(self, row: dict[str, Any]) -> None:
        """One newly stored episode; the dataset is rewritten when it adds examples."""
        if self._take(row):
            self.write()

    def _take(self, row: dict[str, Any]) -> int:
        self.episodes += 1
        self.successes += int(bool(row.get("success")))
        new = episode_examples(self.kb, row, self.source)
        self.examples += new
        return len(new)

    def write(self) -> dict[str, Any] | None:
        if not self.examples:
            return None
        return write_dataset(
            self.out,
            self.examples,
            base_model=self.base_model,
            command=self.command,
            episodes=self.episodes,
            counts={
                "successful_episodes": self.successes,
                "subtask_examples": sum(1 for e in self.examples if e["relabelled"]),
            },
        )


def unique_examples(examples: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The examples with each (prompt, reply) pair once, in first-seen order, and without any
    prompt that the data answers in two ways (a teacher's tie: either reply taught alone is
    right, both together teach neither). Teacher runs repeat a step many times over (every
    task that needs planks asks "obtain 4 planks" from the same inventory)."""

    def key(e: dict[str, Any]) -> str:
        return json.dumps(e["messages"][:-1], sort_keys=True)

    replies: dict[str, set[str]] = {}
    for e in examples:
        replies.setdefault(key(e), set()).add(e["messages"][-1]["content"])
    seen: set[tuple[str, str]] = set()
    out = []
    for e in examples:
        k = key(e)
        pair = (k, e["messages"][-1]["content"])
        if len(replies[k]) > 1 or pair in seen:
            continue
        seen.add(pair)
        out.append(e)
    ambiguous = sum(1 for v in replies.values() if len(v) > 1)
    return out, {"duplicates_dropped": len(examples) - len(out), "ambiguous_prompts_dropped": ambiguous}


def merge(out: str, dirs: list[str], *, unique: bool = False) -> dict[str, Any]:
    """One dataset from several (a second round's data with the first's, or exploration with
    teacher data), every example kept with its own source; the bases must agree. `unique`:
    each (prompt, reply) once, and no prompt answered two ways (see unique_examples)."""
    from training.data import load_dataset

    if not dirs:
        raise DatasetError("merge: name one or more dataset folders to merge")
    examples, episodes, commands, bases = [], 0, [], []
    for d in dirs:
        data = load_dataset(d)
        examples += data.examples
        episodes += data.card["episodes"]
        commands.append(data.card["command"])
        bases.append(data.card["base_model"])
    named = [b for b in bases if b != "any"]
    if any(b != named[0] for b in named):
        raise DatasetError("merge: the datasets were written for different base models; merge one base's only")
    counts: dict[str, int] = {}
    if unique:
        examples, counts = unique_examples(examples)
    return write_dataset(
        out,
        examples,
        base_model=named[0] if named else "any",
        command=" && ".join(commands),
        episodes=episodes,
        counts=counts,
    )


def main(argv: list[str] | None = None) -> int:
    """python -m training.collect merge [--unique] OUT DIR [DIR ...]"""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    unique = "--unique" in args
    args = [a for a in args if a != "--unique"]
    if len(args) < 3 or args[0] != "merge" or any(a.startswith("--") for a in args):
        print(
            "usage: python -m training.collect merge [--unique] OUT DIR [DIR ...]  (--unique: each "
            "prompt-reply pair once, prompts answered two ways dropped)",
            file=sys.stderr,
        )
        return 2
    try:
        card = merge(args[1], args[2:], unique=unique)
    except DatasetError as exc:
        print(f"merge: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args[1]}: {card['examples']} examples from {len(args) - 2} datasets", file=sys.stderr)
    return 0


__all__ = ["Collector", "episode_examples", "merge", "TRAIN_FILE", "CARD_FILE"]

if __name__ == "__main__":
    raise SystemExit(main())

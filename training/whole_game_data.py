"""`deps train llm-data --targets all`: the whole-game teacher dataset (training/whole_game.py
picks the items, the held-out split and the start inventories).

Both planners' formats, each written by the planner's own prompt code:
- rider next-skill turns: a teacher rider run through the real graph, one episode per training
  task: the stumbling oracle (training/rider_whole.py), plain turns and feedback-revision turns,
  or with `--teacher reader` the reader (training/rider_reader.py), every question as asked;
- DEPS turns: the first plan (and part-way plans) and re-planning turns after a real failure,
  answered by the oracle (training/teacher.py).
Each prompt-reply pair is kept once (no prompt answered two ways), any example whose task line
names a held-out item is dropped, and each format is cut to its budget, spread over the items.
The card records the Minecraft version, the rule, the held-out items and the counts by source.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from training.data import CARD_FILE, DatasetError, default_base_model, write_dataset
from training.whole_game import (
    HOLDOUT_RULE,
    VARIANTS,
    check_no_heldout,
    heldout_records,
    sample_examples,
    split_items,
    training_tasks,
    write_suite,
)

# who answers the rider's questions: the solver's next skill for the task (oracle), or the skill
# the question's own recipe line names (reader, training/rider_reader.py)
RIDER_TEACHERS = {"oracle": "training.rider_whole:factory", "reader": "training.rider_reader:factory"}


def check_out_folder(out: str | os.PathLike, mc_version: str) -> None:
    """A dataset folder written for another Minecraft version is not overwritten (one line)."""
    card_p = Path(out) / CARD_FILE
    try:
        card = json.loads(card_p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    have = (card.get("counts") or {}).get("mc_version") if isinstance(card, dict) else None
    if have and have != mc_version:
        raise DatasetError(
            f"--out {out} holds a dataset for Minecraft {have}, not {mc_version}; "
            "accepted: a new folder, or one written for the same version"
        )


def one_variant_each(tasks: list) -> list:
    """One task per item (DEPS turns always, rider turns unless --rider-variants all): each
    item's start inventory picked by a hash of its name among the variants it has (stable when
    the knowledge base gains items)."""
    import hashlib

    by_item: dict[str, list] = {}
    for t in tasks:
        by_item.setdefault(next(iter(t.target)), []).append(t)
    return [v[int(hashlib.sha256(k.encode()).hexdigest(), 16) % len(v)] for k, v in sorted(by_item.items())]


def _rows(
    path: str | None, tasks: list, kb: Any, mc_version: str, progress: bool, planner: str = RIDER_TEACHERS["oracle"]
) -> list[dict[str, Any]]:
    """The rider teacher's episodes, one per task. With `path` (a JSONL file) the stored rows of
    these tasks are reused and only the missing tasks are run, each appended as it ends, so a
    killed run goes on where it stopped; rows of other tasks, or of another teacher, are left out."""
    from training.rider_whole import teacher_rows

    stored: dict[str, dict[str, Any]] = {}
    if path and Path(path).is_file():
        for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
            try:
                row = json.loads(line)
                if row.get("teacher", RIDER_TEACHERS["oracle"]) == planner:
                    stored[row["task"]] = row
            except (ValueError, KeyError, TypeError):
                raise DatasetError(
                    f"--episodes {path}:{n} is not a rider teacher episode row; "
                    "accepted: a file this command wrote, or a new path"
                ) from None
    todo = [t for t in tasks if t.id not in stored]
    if progress:
        print(f"rider teacher: {len(tasks) - len(todo)} episodes stored, {len(todo)} to run", file=sys.stderr)
    f = open(path, "a", encoding="utf-8") if path and todo else None
    try:
        for n, task in enumerate(todo, 1):
            row = teacher_rows([task], kb, mc_version=mc_version, planner=planner)[0]
            row["teacher"] = planner
            stored[task.id] = row
            if f:
                f.write(json.dumps(row) + "\n")
                f.flush()
            if progress and n % 25 == 0:
                print(f"rider teacher: {n}/{len(todo)} episodes run", file=sys.stderr)
    finally:
        if f:
            f.close()
    return [stored[t.id] for t in tasks]


def make_whole_game_dataset(
    out: str | os.PathLike,
    *,
    mc_version: str = "1.11.2",
    rule: str = HOLDOUT_RULE,
    variants: tuple[str, ...] = VARIANTS,
    formats: tuple[str, ...] = ("rider", "deps"),
    rider_budget: int = 0,
    deps_budget: int = 0,
    augment: int = 1,
    replans: int = 1,
    heldout_suite: str | None = None,
    episodes: str | None = None,
    seed: int = 0,
    rider_variants: str = "rotate",
    teacher: str = "oracle",
    deps_knowledge: str = "target",
    history_chars: int = 8000,
    command: str = "",
    progress: bool = False,
) -> dict[str, Any]:
    from training.collect import unique_examples
    from training.rider_whole import examples_from_rows
    from training.teacher import teacher_examples
    from worlds.knowledge import load_kb

    check_out_folder(out, mc_version)
    kb = load_kb(mc_version)
    split = split_items(kb, rule)
    tasks = training_tasks(kb, split, variants)
    if not tasks:
        raise DatasetError(f"--holdout-rule {rule} with --variants {','.join(variants)} leaves no training task")
    if progress:
        print(
            f"{len(split.items)} obtainable items at {mc_version}: {len(split.train)} for training "
            f"({len(tasks)} tasks), {len(split.held_out)} held out by {split.rule}",
            file=sys.stderr,
        )
    held = set(split.held_out)
    examples: list[dict[str, Any]] = []
    counts: dict[str, Any] = {}
    if "rider" in formats:
        rider_tasks = tasks if rider_variants == "all" else one_variant_each(tasks)
        rows = _rows(episodes, rider_tasks, kb, mc_version, progress, RIDER_TEACHERS[teacher])
        rider = check_no_heldout(examples_from_rows(kb, rows, teacher), held)
        rider, dropped = unique_examples(rider)
        counts.update(
            {
                "rider_episodes": len(rows),
                "rider_successes": sum(bool(r["success"]) for r in rows),
                "rider_unique": len(rider),
                "rider_duplicates_dropped": dropped["duplicates_dropped"],
            }
        )
        rider = sample_examples(rider, rider_budget, seed)
        counts["rider_revision_turns"] = sum(1 for e in rider if e.get("revision"))
        examples += rider
    if "deps" in formats:
        if teacher == "reader":  # every start inventory, each plan read off its own dialogue
            from training.deps_reader import recorded_examples

            deps_tasks = tasks
            deps = recorded_examples(
                deps_tasks, kb, history_chars=history_chars, knowledge=deps_knowledge, progress=progress
            )
            info = {"skipped": []}
        else:
            deps_tasks = one_variant_each(tasks)
            deps, info = teacher_examples(
                deps_tasks,
                kb,
                augment=augment,
                replans=replans,
                holdout=held,
                progress=progress,
                knowledge=deps_knowledge,
            )
        by_task = {t.id: t for t in tasks}
        for e in deps:
            e["target"] = dict(by_task[e["task"]].target)
        deps = check_no_heldout(deps, held)
        deps = [e for e in deps if not any(kb.is_mob(k) for k in e.get("inventory") or {})]  # teacher._after's mobs
        counts.update(
            {"deps_tasks": len(deps_tasks), "deps_unique": len(deps), "deps_tasks_skipped": len(info["skipped"])}
        )
        examples += sample_examples(deps, deps_budget, seed)
    if not examples:
        raise DatasetError("no training examples: the rule and the --formats leave nothing to write")
    if heldout_suite:
        write_suite(
            heldout_suite,
            heldout_records(kb, split),
            f"{len(split.held_out)} items held out of the whole-game teacher data at Minecraft {mc_version} "
            f"by the rule {split.rule}\n(training/whole_game.py: an item outside every deps71/plan4mc recipe "
            f"tree is held out when\nint(sha256(SALT:item), 16) % 100 < PCT). Written by: {command}",
        )
    counts.update(
        {
            "mc_version": mc_version,
            "holdout_rule": split.rule,
            "items_obtainable": len(split.items),
            "items_train": len(split.train),
            "items_held_out": len(split.held_out),
            "held_out_items": split.held_out,
            "variants": list(variants),
            "tasks": len(tasks),
            "augment": augment,
            "replans": replans,
            "rider_budget": rider_budget,
            "deps_budget": deps_budget,
            "rider_variants": rider_variants,
            "rider_teacher": teacher,
            "deps_knowledge": deps_knowledge,
            "deps_teacher": "reader" if teacher == "reader" else "oracle",
            "history_chars": history_chars,
        }
    )
    return write_dataset(out, examples, base_model=default_base_model(), command=command, episodes=0, counts=counts)

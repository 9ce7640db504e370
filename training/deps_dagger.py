"""DAgger for the DEPS planner's adapter: the model plans, the DEPS reader rule labels.

An adapter taught on the rule's own dialogues (training/deps_reader.py) follows the rule while the
dialogue looks like one the rule writes. Once one of its re-plans strays (a fix line left out, a
line written twice), it meets refusals those dialogues never hold, and on the held-out items it then
repeated a failing block until the loop guard stopped it (docs/results/held-out-items.md). Here the
adapter plays the training split's items through the real graph, and at every request the rule's
answer to that same dialogue is recorded beside the model's: the examples come from the states the
model itself reaches (DAgger, Ross et al. 2011, with the rule as the expert). The episode goes on
with the model's plan. No held-out item is a target: the tasks are whole_game.training_tasks.

    python -m training.deps_dagger --llm local:ADAPTER.gguf --out DIR [--shard K/N] [--limit M]

writes DIR/records.jsonl as each episode ends (a rerun skips the tasks already there), then DIR as
a deps-sft/1 dataset (DIR/train.jsonl, DIR/card.json) of every recorded request. `--recipe-grammar`,
`--history-chars` and `--max-rounds` are those of `deps eval`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from nodes.planners.base import PlanRequest, PlanResult
from nodes.planners.llm import DialoguePlanner, _dialogue
from training.deps_reader import deps_example, plan_text, reader_plan

SOURCE = "teacher:deps-reader-dagger"
RECORDS = "records.jsonl"
_SINK: list[Any] = []  # set while an episode runs: where each request's (messages, label, model's plan) go


class DaggerPlanner(DialoguePlanner):
    """The DEPS planner as it runs, whose every request is also answered by the rule for the sink."""

    def plan(self, req: PlanRequest) -> PlanResult:
        result = super().plan(req)
        if _SINK:
            _SINK[-1](req, self.messages(req), plan_text(reader_plan(req)), result.text)
        return result


def factory(llm: Any, settings: Any = None) -> DaggerPlanner:
    return DaggerPlanner(llm, name="deps", **_dialogue(settings))


def _tasks(limit: int, shard: tuple[int, int], seed: int) -> list[Any]:
    """The training split's tasks (every item and start inventory), in a seeded order, this shard's."""
    from training.whole_game import split_items, training_tasks
    from worlds.knowledge import load_kb

    tasks = training_tasks(load_kb("1.11.2"), split_items(load_kb("1.11.2")))
    random.Random(seed).shuffle(tasks)
    if limit:
        tasks = tasks[:limit]
    k, n = shard
    return tasks[k::n]


def collect(out: Path, settings: Any, tasks: list[Any], progress: bool = True, llm: Any = None) -> list[dict]:
    """Run each task not yet in out/records.jsonl; append its examples when its episode ends (`llm`:
    an open agent.llm handle, else the one settings.llm names)."""
    from agent.runner import run_episode
    from worlds.knowledge import load_kb

    kb = load_kb("1.11.2")
    out.mkdir(parents=True, exist_ok=True)
    path = out / RECORDS
    done = {json.loads(line)["task"] for line in path.open(encoding="utf-8")} if path.exists() else set()
    for n, task in enumerate(tasks, 1):
        if task.id in done:
            continue
        got: list[dict] = []

        def sink(req: PlanRequest, msgs: list, label: str, text: str, task: Any = task, got: list = got) -> None:
            got.append({**deps_example(req, msgs, label, task, SOURCE), "model_plan": text})

        _SINK.append(sink)
        try:
            row = run_episode(task, settings, kb=kb, llm=llm)
        finally:
            _SINK.pop()
        with path.open("a", encoding="utf-8") as f:
            for e in got:
                e["success"] = bool(row["success"])
                f.write(json.dumps(e, ensure_ascii=False) + "\n")
        if progress:
            agree = sum(e["model_plan"] == e["messages"][-1]["content"] for e in got)
            print(
                f"dagger {n}/{len(tasks)} {task.id}: success={bool(row['success'])}, {len(got)} requests, "
                f"the model wrote the rule's plan in {agree}",
                file=sys.stderr,
            )
    return [json.loads(line) for line in path.open(encoding="utf-8")] if path.exists() else []


def main(argv: list[str] | None = None) -> int:
    from nodes.registry import DialogueOptions
    from nodes.settings import RunSettings
    from training.data import DatasetError, base_model_id, write_dataset

    p = argparse.ArgumentParser(prog="python -m training.deps_dagger", description=__doc__.split("\n\n")[0])
    p.add_argument("--llm", required=True, help="the model that plays: local:ADAPTER.gguf (an adapter to improve)")
    p.add_argument("--out", required=True, metavar="DIR", help="records.jsonl as it goes, then the dataset")
    p.add_argument("--limit", type=int, default=0, help="the first M tasks of the seeded order (default: all)")
    p.add_argument("--shard", default="0/1", metavar="K/N", help="run every N-th task from the K-th (default: 0/1)")
    p.add_argument("--seed", type=int, default=0, help="the task order's seed (default: 0)")
    p.add_argument("--max-rounds", type=int, default=30, help="as deps eval (default: 30)")
    p.add_argument("--history-chars", type=int, default=2000, help="as deps eval (default: 2000)")
    p.add_argument("--recipe-grammar", action="store_true", help="as deps eval")
    p.add_argument("--dataset-only", action="store_true", help="write the dataset from the records; run nothing")
    a = p.parse_args(argv)
    try:
        k, n = (int(x) for x in a.shard.split("/"))
        if not 0 <= k < n:
            raise ValueError
    except ValueError:
        p.error(f"--shard {a.shard!r}: expected K/N with 0 <= K < N, e.g. 0/2")
    out = Path(a.out)
    settings = RunSettings(
        planner=f"{__name__}:factory",
        explainer="game",
        llm=a.llm,
        max_rounds=a.max_rounds,
        knowledge="target",
        options={"deps": DialogueOptions(history_chars=a.history_chars, recipe_grammar=a.recipe_grammar)},
    ).validate()
    if a.dataset_only:
        path = out / RECORDS
        records = [json.loads(line) for line in path.open(encoding="utf-8")] if path.exists() else []
    else:
        records = collect(out, settings, _tasks(a.limit, (k, n), a.seed))
    if not records:
        print(f"deps_dagger: error: no records in {out / RECORDS}; run without --dataset-only first", file=sys.stderr)
        return 2
    from agent.llm.local_server import find_model

    examples = [{k2: v for k2, v in e.items() if k2 != "model_plan"} for e in records]
    try:
        card = write_dataset(
            out / "dataset",
            examples,
            base_model=base_model_id(find_model("smollm2")),
            command=" ".join(["python -m training.deps_dagger", *(sys.argv[1:] if argv is None else argv)]),
            episodes=len({e["task"] for e in records}),
            counts={
                "model_wrote_rule_plan": sum(e["model_plan"] == e["messages"][-1]["content"] for e in records),
                "episodes_succeeded": len({e["task"] for e in records if e["success"]}),
            },
        )
    except DatasetError as e:
        print(f"deps_dagger: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out / 'dataset'}: {card['examples']} examples", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

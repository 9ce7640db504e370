"""Skill success and mean steps per skill: the learned controller against the scripted one.

Every skill the policy was trained for (mine X, kill M: training/controller/data.py's
TRAIN_GOALS) is tried on the same fresh generated worlds (seeds never used in training, the
start inventory the skill needs) by both drivers, one goal per world, batched; success is the
goal's item in the inventory (or the mob killed by the agent) within `--kill-budget` steps for a
kill, within `--mine-budget` for a mine goal or a kill goal for a drop (a rabbit's foot, 1 kill in
10), the learned one ending after `--budget` steps of no progress (skills/learned/progress.py: a
leaf broken for a sapling, a hunted mob come nearer or killed); a find: its conditions met within
`--find-budget` steps, each walk within `--budget`. The three default to a task's episode (2400
grid steps, MP5's context tasks and the harvest list), as the controllers run a goal
(`--kill-budget 600` gives the kill rows before 2026-12-04). Mean steps are over the
successful tries. `--baseline PATH` adds another checkpoint's column on
the same worlds; a skill a checkpoint was not trained for is not tried with it ("not
trained"). `--count N` asks every mine and kill try for N of its item or mob, as a plan's
`mine 4 log` runs in a task (the same worlds; a find is asked once): a policy that takes its
first log quickly may still walk far for the next ones. `--workers N` splits the worlds over N
processes (the same worlds, the same results as one process, since every world's actions come
from its own chunk's generator).
With `--out F`, each chunk of 32 worlds is written to `F.parts.jsonl` as it finishes, and
`--resume` runs only the chunks not yet there (experiments/chunk_log.py): a whole table takes
about an hour on two cores, and a stopped one keeps what it did.

    python -m experiments.skill_table --episodes 20 --out results/skill_table.json
    python -m experiments.skill_table --episodes 50 --workers 16 --checkpoint DIR/controller.pt \\
        --baseline skills/checkpoints/controller.pt
    python -m experiments.skill_table --episodes 50 --skills find      # the find goals only, same worlds
    python -m experiments.skill_table --episodes 50 --skills mine:flint --no-scripted --why 600  # what failed tries did
    python -m experiments.skill_table --episodes 50 --workers 2 --out t.json --resume  # go on after a stop
    python -m experiments.skill_table --episodes 50 --skills mine:log,mine:iron_ore --count 4  # four of each
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from experiments.chunk_log import ChunkLog

CHUNK = 32  # worlds per batched rollout


def episodes_for(n: int, seed: int, skills: str = "") -> list:
    """n fresh worlds per trained skill, in skill order; `skills` ("find,mine:log"): only the
    goals named, or whose skill is named (the same worlds as in the whole table)."""
    from training.controller.data import TRAIN_GOALS
    from training.controller.train import eval_episodes

    keys = [f"{a}:{i}" for a, i, _, _ in TRAIN_GOALS]
    wanted = {w.strip() for w in skills.split(",") if w.strip()}

    def keep(goal) -> bool:
        return not wanted or _key(goal) in wanted or goal.action in wanted

    return sorted(eval_episodes(n * len(TRAIN_GOALS), seed, keep), key=lambda e: keys.index(_key(e[0])))


def with_count(eps: list, count: int) -> list:
    """The episodes with every mine and kill goal asking for `count` of its item or mob (a find
    is asked once): the same worlds, the same start inventories."""
    if count == 1:
        return eps
    from dataclasses import replace

    return [(g if g.action == "find" else replace(g, obj={k: count for k in g.obj}), sd, o) for g, sd, o in eps]


def context_budget() -> int:
    """A find's steps in the tasks that ask for one: the grid steps of MP5's context tasks'
    episode (their suite's max_steps, as GridWorld.budget_steps converts it; 2400)."""
    from worlds.gridworld.world import GridWorld
    from worlds.tasks import load_suite

    return max(GridWorld.budget_steps(t.max_steps) for t in load_suite("mp5-context"))


def _key(goal) -> str:
    return f"{goal.action}:{next(iter(goal.obj))}"


def check_skills(skills: str) -> str | None:
    """One line when --skills names no trained goal or skill, else None."""
    from training.controller.data import TRAIN_GOALS

    keys = {f"{a}:{i}" for a, i, _, _ in TRAIN_GOALS} | {a for a, _, _, _ in TRAIN_GOALS}
    bad = [w.strip() for w in skills.split(",") if w.strip() and w.strip() not in keys]
    if bad:
        return f"--skills {bad[0]!r} is not a trained goal or skill; accepted: {', '.join(sorted(keys))}"
    return None


def _chunk_job(job: dict) -> list[dict]:
    """One chunk of worlds with one driver (a process of --workers, or inline)."""
    import torch

    from skills.learned.policy import GoalPolicy
    from training.controller.rollout import rollout
    from worlds.knowledge import load_kb

    torch.set_num_threads(1)
    kb = load_kb("1.11.2")
    policy = None
    if job["path"]:
        policy = GoalPolicy.load("controller", kb=kb, device=job["device"], path=job["path"])
    return rollout(
        kb,
        job["eps"],
        job["driver"],
        policy,
        budget=job["budget"],
        n_envs=CHUNK,
        greedy=job["greedy"],
        seed=job["chunk_seed"],
        find_budget=job["find_budget"],
        mine_budget=job["mine_budget"],
        kill_budget=job["kill_budget"],
        why=job["why"],
    )


def _indexed(arg: tuple[int, dict]) -> tuple[int, list[dict]]:
    k, job = arg
    return k, _chunk_job(job)


def run_driver(
    driver: str, path: str | None, eps: list, a: argparse.Namespace, trained: list[bool], log: ChunkLog | None = None
) -> list[dict]:
    """Results for every world (untrained skills: not tried, {"ok": False, "untrained": True}).
    With `log` (experiments/chunk_log.py: ChunkLog) each chunk is written there as it finishes,
    and a chunk it already holds is taken from it instead of being run."""
    todo = [k for k in range(len(eps)) if trained[k] or driver == "scripted"]
    chunks = [todo[s : s + CHUNK] for s in range(0, len(todo), CHUNK)]
    # chunks are runs of consecutive worlds (skills are in order), so each is one slice of eps
    jobs = [
        {
            "driver": driver,
            "path": path,
            "device": a.device,
            "episodes": a.episodes,
            "seed": a.seed,
            "skills": a.skills,
            "lo": c[0],
            "hi": c[-1] + 1,
            "budget": a.budget,
            "find_budget": a.find_budget,
            "mine_budget": a.mine_budget,
            "kill_budget": a.kill_budget,
            "count": a.count,
            "greedy": a.greedy,
            "why": a.why,
            "chunk_seed": a.seed * 1000 + c[0],
            # the chunk's own worlds, made once here: a worker making all of them again for each
            # chunk spent up to a minute a chunk on it (eval_episodes checks each world for its source)
            "eps": eps[c[0] : c[-1] + 1],
        }
        for c in _runs(chunks)
    ]
    parts: dict[int, list[dict]] = {}
    for k, j in enumerate(jobs):
        kept = log.done(j) if log is not None else None
        if kept is not None:
            parts[k] = kept
    resumed, t0 = len(parts), time.monotonic()
    pending = [(k, j) for k, j in enumerate(jobs) if k not in parts]
    if resumed and log is not None:
        print(f"skill_table: {driver}: {resumed} of {len(jobs)} chunks taken from {log.path}", file=sys.stderr)
    pool = mp.get_context("spawn").Pool(min(a.workers, len(pending))) if a.workers > 1 and len(pending) > 1 else None
    finished: Iterator[tuple[int, list[dict]]] = (
        pool.imap_unordered(_indexed, pending) if pool is not None else map(_indexed, pending)
    )
    try:
        for k, res in finished:  # as each chunk finishes: logged at once, so a stopped run keeps it
            parts[k] = log.add(jobs[k], res) if log is not None else res
            print(
                f"skill_table: {driver}: {len(parts)}/{len(jobs)} chunks, {time.monotonic() - t0:.0f} s",
                file=sys.stderr,
            )
    finally:
        if pool is not None:
            pool.terminate()
    out: list[dict] = [{"ok": False, "steps": 0, "untrained": True} for _ in eps]
    for k, j in enumerate(jobs):
        for w, r in zip(range(j["lo"], j["hi"]), parts[k]):
            out[w] = r
    return out


def _runs(chunks: list[list[int]]) -> list[list[int]]:
    """Split each chunk where its indices are not consecutive (skipped untrained skills)."""
    out = []
    for c in chunks:
        cur = [c[0]]
        for k in c[1:]:
            if k == cur[-1] + 1:
                cur.append(k)
            else:
                out.append(cur)
                cur = [k]
        out.append(cur)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.skill_table", description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=20, help="worlds per skill (default: 20)")
    ap.add_argument("--budget", type=int, default=600, help="steps one mine or kill try may take (default: 600)")
    ap.add_argument(
        "--find-budget",
        type=int,
        default=None,
        help="steps one find may take, its walks --budget each (default: a context task's episode, "
        f"{context_budget()} grid steps; both controllers run a find to its episode's end)",
    )
    ap.add_argument(
        "--mine-budget",
        type=int,
        default=None,
        help="steps one mine try may take, the learned one ending after --budget steps of no progress "
        f"(default: {context_budget()}, a task's episode: both controllers run a mine goal to its end; "
        "600 gives the tables before 2026-11-27)",
    )
    ap.add_argument(
        "--kill-budget",
        type=int,
        default=None,
        help="steps one kill try may take, the learned one ending after --budget steps of no progress "
        f"(default: {context_budget()}, a task's episode, as the learned controller runs a kill goal; "
        "600 gives the tables before 2026-12-04)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--count",
        type=int,
        default=1,
        metavar="N",
        help="items (or kills) each mine and kill try must get, as a plan's `mine 4 log` (default: 1)",
    )
    ap.add_argument(
        "--why",
        type=int,
        default=0,
        metavar="N",
        help="for each failed try, what it did in its last N steps: blocks broken, commonest actions, the "
        "nearest source (stderr, and <column>_why in --out's rows; default: 0, off)",
    )
    ap.add_argument("--greedy", action="store_true", help="argmax actions (default: sample, as the controller does)")
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    ap.add_argument("--device", default="cpu")
    ap.add_argument(
        "--checkpoint",
        default=None,
        help="the controller to measure: a checkpoint, or several joined by ':' (skills/learned/routed.py;"
        " default: the ones deps uses)",
    )
    ap.add_argument("--baseline", default=None, help="another controller checkpoint, measured on the same worlds")
    ap.add_argument("--workers", type=int, default=1, help="processes (default: 1)")
    ap.add_argument(
        "--skills", default="", help="only these goals or skills, comma-separated (e.g. find,mine:log; default: all)"
    )
    ap.add_argument(
        "--no-scripted",
        action="store_true",
        help="leave out the scripted expert's column (measured before, same worlds)",
    )
    ap.add_argument(
        "--no-learned", action="store_true", help="leave out the learned controller's column (the expert's only)"
    )
    ap.add_argument(
        "--resume",
        action="store_true",
        help="keep the chunks of worlds already finished in OUT.parts.jsonl (written as each finishes, with "
        "--out) where the worlds, budgets and checkpoint files are the same, and run only the rest",
    )
    a = ap.parse_args(argv)
    a.find_budget = context_budget() if a.find_budget is None else a.find_budget
    a.mine_budget = context_budget() if a.mine_budget is None else a.mine_budget
    a.kill_budget = context_budget() if a.kill_budget is None else a.kill_budget
    if min(a.episodes, a.budget, a.workers, a.find_budget, a.mine_budget, a.kill_budget) < 1:
        ap.error("--episodes, --budget, --find-budget, --mine-budget, --kill-budget and --workers must be 1 or more")
    if not 1 <= a.count <= 64:
        ap.error(f"--count must be from 1 to 64 (items a try must get), got {a.count}")
    if a.why < 0:
        ap.error(f"--why must be 0 (off) or a number of steps, got {a.why}")
    bad = check_skills(a.skills)
    if bad:
        ap.error(bad)
    if a.resume and not a.out:
        ap.error("--resume needs --out: the finished chunks are kept beside it, in OUT.parts.jsonl")
    import torch

    from experiments.chunk_log import ChunkLog
    from skills.learned.features import goal_key
    from skills.learned.paths import LearnedError, checkpoint_paths
    from skills.learned.policy import GoalPolicy
    from training.controller.why import describe
    from worlds.knowledge import load_kb

    torch.set_num_threads(1)
    kb = load_kb("1.11.2")
    shipped = os.pathsep.join(str(p) for p in checkpoint_paths("controller"))  # every part, as deps loads them
    drivers: dict[str, str | None] = {"scripted": None, "learned": a.checkpoint or shipped}
    if a.no_learned:
        del drivers["learned"]
    if a.no_scripted:
        del drivers["scripted"]
    if a.baseline:
        drivers["baseline"] = a.baseline
    policies = {}
    for name, path in drivers.items():
        if path is None:
            continue
        try:
            policies[name] = GoalPolicy.load("controller", kb=kb, device=a.device, path=path)
        except LearnedError as e:
            print(f"skill_table: error: {e}", file=sys.stderr)
            return 2
    eps = with_count(episodes_for(a.episodes, a.seed, a.skills), a.count)
    log = ChunkLog(a.out, resume=a.resume) if a.out else None
    res, wall = {}, {}
    for name, path in drivers.items():
        trained = [True if path is None else policies[name].knows(g) for g, _, _ in eps]
        t0 = time.monotonic()
        res[name] = run_driver("scripted" if path is None else "learned", path, eps, a, trained, log)
        wall[name] = round(time.monotonic() - t0, 1)
        print(f"{name}: {sum(r['ok'] for r in res[name])}/{len(eps)} in {wall[name]} s", file=sys.stderr)
    rows = []
    keys = list(dict.fromkeys(goal_key(g) for g, _, _ in eps))
    for key in [*keys, "all"]:
        idx = [k for k, (g, _, _) in enumerate(eps) if key in ("all", goal_key(g))]
        row: dict = {"skill": key, "episodes": len(idx)}
        for name in drivers:
            if all(res[name][k].get("untrained") for k in idx):
                row[f"{name}_success"], row[f"{name}_mean_steps"] = None, None
                continue
            ok = [res[name][k] for k in idx if res[name][k]["ok"]]
            row[f"{name}_success"] = round(len(ok) / len(idx), 3)
            row[f"{name}_mean_steps"] = round(float(np.mean([r["steps"] for r in ok])), 1) if ok else None
            ends = Counter(res[name][k].get("end", "not_tried") for k in idx if not res[name][k]["ok"])
            row[f"{name}_failures"] = dict(sorted(ends.items()))  # how the failed tries ended (rollout.ENDS)
            if a.why and key != "all":  # what each failed try did last (training/controller/why.py)
                row[f"{name}_why"] = [
                    {"world": k, "end": res[name][k]["end"], **res[name][k]["why"]}
                    for k in idx
                    if "why" in res[name][k]
                ]
                for w in row[f"{name}_why"]:
                    print(f"{name} {key} world {w['world']} {w['end']}: {describe(w)}", file=sys.stderr)
        rows.append(row)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(
            json.dumps(
                {
                    "rows": rows,
                    "budget": a.budget,
                    "find_budget": a.find_budget,
                    "mine_budget": a.mine_budget,
                    "kill_budget": a.kill_budget,
                    "count": a.count,
                    "seed": a.seed,
                    "greedy": a.greedy,
                    "wall_s": wall,
                    "checkpoints": {n: p for n, p in drivers.items() if p},
                    "checkpoint": policies["learned"].card.get("command") if "learned" in policies else None,
                },
                indent=1,
            )
            + "\n"
        )
    names = list(drivers)
    print("| skill | worlds | " + " | ".join(f"{n} success | {n} mean steps" for n in names) + " |")
    print("|---|---|" + "---|---|" * len(names))
    for r in rows:
        cells = []
        for n in names:
            s = r[f"{n}_success"]
            cells += ["not trained", "-"] if s is None else [f"{s:.2f}", str(r[f"{n}_mean_steps"])]
        print(f"| {r['skill']} | {r['episodes']} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

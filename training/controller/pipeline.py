"""The issue-20 controller run: expert data in parallel, behaviour cloning, capped DAgger, one command.

    python -m training.controller.pipeline --out DIR [--workers 16] [--device cuda] [--resume]

Stages, each leaving its files in DIR so that `--resume` (after a stop, or on another machine
with DIR copied) skips what is done and goes on from the last saved step:

1. expert pursuits, split over `--workers` processes (DIR/data/bc-K.pt);
2. behaviour cloning of a network that reads the goal's target map (skills/learned/sense.py) and
   has the auxiliary heads (model.py: direction and distance to the expert's target), fitted on
   `--device` (DIR/state.pt every `--save-every` steps, DIR/bc/controller.pt at the end); with
   `--init CKPT --steps 0` no fit here: the expert rows only join the DAgger rounds' mix;
3. `--rounds` rounds of capped DAgger (the policy acts, sampled as the controller runs it, the
   expert labels; at most `--max-rows` rows per learner pursuit), each fine-tuning from where
   the last stopped (DIR/roundR/controller.pt); the last is DIR/controller.pt. `--learner-share`
   draws that share of each DAgger batch from the learner's rows (default 0: uniform).

Every fit also stops at `--stage-seconds` and every collection at `--collect-seconds` (with
fewer steps or pursuits; the checkpoint is still written), so that a run fits a fixed time: 2 CPU cores with the defaults' scale reduced, or a GPU
machine. The card beside each checkpoint records the command, the data and the wall time.
"""

from __future__ import annotations

import argparse
import copy
import json
import multiprocessing as mp
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from training.controller.data import FOCUS, TRAIN_GOALS, above_rows

BANDS_DEFAULT = 6


@dataclass
class PipelineConfig:
    out: str
    workers: int = 2
    device: str = "cpu"
    seed: int = 0
    episodes: int = 2000  # expert pursuits for behaviour cloning
    steps: int = 8000  # behaviour-cloning gradient steps
    batch_size: int = 256
    lr: float = 2e-3
    rounds: int = 1  # capped DAgger rounds
    pursuits: int = 800  # learner pursuits per round
    max_rows: int = 40
    dagger_steps: int = 3000
    dagger_lr: float = 5e-4
    learner_share: float = 0.0  # a DAgger fit's share of each batch drawn from the learner's rows (0: uniform)
    learner_above: float = -1.0  # leave out learner rows whose expert heads above, beyond this many cells (-1: keep)
    channels: int = 32
    hidden: int = 192
    scatter_p: float = 0.3
    repeat_p: float = 0.0  # chance the next goal repeats the mine/kill goal just finished (`mine 3 iron_ore`)
    source_biome_p: float = 0.0  # share of fresh worlds made where their first goal's source forms (round 8)
    near_source_p: float = 0.0  # chance a buried source's pursuit begins a few levels above it (round 12)
    source_seed_p: float = 0.0  # share of fresh worlds whose seed moves on to one holding the goal's source (round 20)
    cut_trunks_p: float = 0.0  # chance a log pursuit begins with its world's trunks cut at the foot (round 34)
    n_envs: int = 16
    stage_seconds: float = 0.0  # each stage's fit stops after this many seconds (0: no limit)
    collect_seconds: float = 0.0  # each process's collection stops after this many seconds (0: no limit)
    save_every: int = 1000
    resume: bool = False
    with_data: str = ""  # also fit on the expert rows another run of this pipeline left in DIR/data (round 8)
    init: str = ""  # start behaviour cloning from this checkpoint's weights (same shape) instead of fresh
    keep_old: float = 0.0  # with init: weight of the KL to its policy on the goals it knew (round 9)
    teacher: str = ""  # with keep_old: hold the old goals to this checkpoint's policy instead of init's (round 10)
    new_goals_only: bool = False  # with init: fit only the target embeddings of the goals new to it (round 9)
    near: bool = False  # read the near map too (sense.py, round 19); an --init net without one gets it (widen.py)
    focus: str = ""  # "GOAL=W,..." sampling weights for these goals instead of data.FOCUS (e.g. mine:diamond=2.5)
    mc_version: str = "1.11.2"
    command: str = ""


def goals() -> list[str]:
    return [f"{a}:{i}" for a, i, _, _ in TRAIN_GOALS]


def focus_weights(spec: str) -> dict[str, float]:
    """--focus "mine:diamond=2.5,mine:reeds=2" -> {goal: weight}; empty: data.FOCUS. Goals not
    named keep TRAIN_GOALS' own weights, or with "*=W" (every goal not named) the weight W, so that
    "mine:apple=3,*=0.001" is a round on one goal written in one short argument."""
    if not spec.strip():
        return dict(FOCUS)
    out: dict[str, float] = {}
    rest = None
    for part in spec.split(","):
        goal, _, w = part.strip().partition("=")
        try:
            weight = float(w)
        except ValueError:
            weight = -1.0
        if goal not in (*goals(), "*") or not weight > 0:
            raise ValueError(
                f"bad --focus entry {part.strip()!r}; accepted: GOAL=WEIGHT with a weight above 0 and GOAL one of "
                + ", ".join(goals())
                + ", or * for every goal not named"
            )
        if goal == "*":
            rest = weight
        else:
            out[goal] = weight
    return out if rest is None else {g: out.get(g, rest) for g in goals()}


# ---------------------------------------------------------------- parallel collection


def _worker(job: dict) -> dict:
    """One process's share of a stage's pursuits, saved to job["path"]; its stats returned."""
    torch.set_num_threads(1)
    from skills.learned.model import GoalNet, NetShape
    from skills.learned.policy import GoalPolicy
    from training.controller.dagger import SampledPolicy
    from training.controller.data import collect, weights_set
    from worlds.knowledge import load_kb

    kb = load_kb(job["mc_version"])
    policy = None
    if job.get("state") is not None:
        net = GoalNet(NetShape(**job["shape"]))
        net.load_state_dict(job["state"])
        policy = SampledPolicy(GoalPolicy(net.eval(), kb, {"goals": goals()}, "cpu"), job["seed"])
    with weights_set(job["weights"]):  # the process's own weights back after (a one-worker run is in it)
        data, stats = collect(
            kb,
            job["pursuits"],
            job["seed"],
            n_envs=job["n_envs"],
            policy=policy,
            scatter_p=job["scatter_p"],
            repeat_p=job["repeat_p"],
            source_biome_p=job.get("source_biome_p", 0.0),
            near_source_p=job.get("near_source_p", 0.0),
            source_seed_p=job.get("source_seed_p", 0.0),
            cut_trunks_p=job.get("cut_trunks_p", 0.0),
            keep_failed=policy is not None,
            max_rows=job["max_rows"] if policy is not None else 0,
            target=True,
            near=job.get("near", False),
            seconds=job["seconds"],
        )
    if policy is not None and len(data["horizon"]):
        data["horizon"] = torch.full_like(data["horizon"], -1)  # the learner's times are not the expert's
    torch.save(data, job["path"])
    Path(job["path"] + ".json").write_text(json.dumps(stats))  # read back by a --resume run
    return stats


def collect_parallel(
    cfg: PipelineConfig, name: str, pursuits: int, seed: int, net: Any = None, log=print, only: list[str] | None = None
) -> tuple[dict, dict]:
    """`pursuits` pursuits over cfg.workers processes (expert-driven, or learner-driven with the
    expert's labels when `net` is given); the parts are kept in DIR/data/NAME-K.pt. With `only`,
    every pursuit's goals are drawn from those goals (no scatter maps, whose kinds are others)."""
    weights = focus_weights(cfg.focus)
    if only:
        default = {f"{a}:{i}": w for a, i, w, _ in TRAIN_GOALS}
        weights = {k: (weights.get(k, default[k]) if k in only else 0.0) for k in goals()}
    d = Path(cfg.out) / "data"
    d.mkdir(parents=True, exist_ok=True)
    w = max(1, cfg.workers)
    share = [pursuits // w + (1 if k < pursuits % w else 0) for k in range(w)]
    state = None if net is None else {k: v.detach().cpu() for k, v in net.state_dict().items()}
    jobs = [
        {
            "path": str(d / f"{name}-{k}.pt"),
            "pursuits": share[k],
            "seed": seed * 1000 + k,
            "n_envs": cfg.n_envs,
            "scatter_p": 0.0 if only else cfg.scatter_p,
            "repeat_p": cfg.repeat_p,
            "source_biome_p": cfg.source_biome_p,
            "near_source_p": cfg.near_source_p,
            "source_seed_p": cfg.source_seed_p,
            "cut_trunks_p": cfg.cut_trunks_p,
            "max_rows": cfg.max_rows,
            "mc_version": cfg.mc_version,
            "weights": weights,
            "state": state,
            "shape": None if net is None else net.shape.to_dict(),
            "near": cfg.near,
            "seconds": cfg.collect_seconds,
        }
        for k in range(w)
        if share[k] > 0
    ]
    todo = [j for j in jobs if not (cfg.resume and Path(j["path"]).is_file())]
    t0 = time.monotonic()
    if len(todo) == 1:
        _worker(todo[0])
    elif todo:
        with mp.get_context("spawn").Pool(len(todo)) as pool:
            pool.map(_worker, todo)
    stats = [json.loads(Path(j["path"] + ".json").read_text()) for j in jobs]
    data = _joined([Path(j["path"]) for j in jobs])
    total = {"pursuits": sum(s["pursuits"] for s in stats), "ok": sum(s["ok"] for s in stats)}
    total["rows"] = int(len(data["action"])) if data is not None else 0
    total["wall_s"] = round(time.monotonic() - t0, 1)
    by_goal: dict[str, dict] = {}
    for s in stats:
        for k, v in s["by_goal"].items():
            g = by_goal.setdefault(k, {"ok": 0, "failed": 0, "steps": 0})
            for f in g:
                g[f] += v[f]
    total["by_goal"] = by_goal
    log(f"{name}: {json.dumps({k: v for k, v in total.items() if k != 'by_goal'})}")
    return data, total


# ---------------------------------------------------------------- fitting, resumable


def fit_stage(
    net: Any,
    data: dict,
    cfg: PipelineConfig,
    stage: str,
    steps: int,
    lr: float,
    seed: int,
    log=print,
    rows: list[int] | None = None,
    keep: Any = None,
) -> tuple[list[float], int]:
    """Adam with a cosine schedule over `steps` steps or cfg.stage_seconds, whichever ends first
    (the schedule follows the larger fraction done); the state (weights, optimiser, step,
    seconds) goes to DIR/state.pt every cfg.save_every steps and is taken up again with --resume.
    Returns this run's losses and the step it began at (0, or where a resumed state stopped).
    With `rows`, only those rows of the goal-target embedding are fitted (`only_targets`); `keep`
    adds the KL to a teacher on the goals it knew (fit.losses)."""
    from skills.learned.features import time_column
    from skills.learned.paths import LearnedError
    from training.controller.fit import jitter_time, losses
    from worlds.gridworld.spec import make_vocab
    from worlds.knowledge import load_kb

    time_col = time_column(make_vocab(load_kb(cfg.mc_version)))
    dev = cfg.device
    net.to(dev).train()
    release = only_targets(net, rows) if rows is not None else None
    opt = torch.optim.Adam([p for p in net.parameters() if p.requires_grad], lr=lr)
    state_path = Path(cfg.out) / "state.pt"
    start, spent = 0, 0.0
    if cfg.resume and state_path.is_file():
        # states saved before the learning rate was cast to float hold numpy scalars in opt
        with torch.serialization.safe_globals([np._core.multiarray.scalar, np.dtype, np.dtypes.Float64DType]):
            st = torch.load(state_path, map_location=dev, weights_only=True)
        if st.get("stage") == stage:
            net.load_state_dict(st["net"])
            opt.load_state_dict(st["opt"])
            start, spent = int(st["step"]), float(st.get("seconds", 0.0))
            log(f"{stage}: resumed at step {start}")
    data = {k: v.to(dev) for k, v in data.items()}
    n = len(data["action"])
    if n == 0:
        raise LearnedError(f"{stage}: no rows to fit; try more --episodes")
    g = torch.Generator(device="cpu").manual_seed(seed * 7919 + start)
    draw = _sampler(data, cfg.batch_size, cfg.learner_share if stage.startswith("dagger") else 0.0, g)
    history: list[float] = []
    t0 = time.monotonic() - spent
    for step in range(start, steps):
        # cosine from lr to lr/20 over the steps or the stage's seconds, whichever runs out first
        frac = step / steps
        if cfg.stage_seconds:
            frac = max(frac, (time.monotonic() - t0) / cfg.stage_seconds)
        if frac >= 1.0:
            log(f"{stage}: stopped at step {step} of {steps} after {cfg.stage_seconds:.0f} s")
            break
        for group in opt.param_groups:
            group["lr"] = float(lr / 20 + (lr - lr / 20) * 0.5 * (1 + np.cos(np.pi * frac)))
        idx = draw().to(dev)
        batch = {k: v[idx] for k, v in data.items()}
        batch["vec"] = jitter_time(batch["vec"], time_col, 0.05, g)
        loss, parts = losses(net, batch, 1.0, 0.5, keep)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        history.append(float(loss.detach()))
        if (step + 1) % cfg.save_every == 0 or step + 1 == steps:
            torch.save(
                {
                    "stage": stage,
                    "step": step + 1,
                    "seconds": time.monotonic() - t0,
                    "net": net.state_dict(),
                    "opt": opt.state_dict(),
                },
                state_path,
            )
            log(f"{stage}: step {step + 1}/{steps} loss {np.mean(history[-100:]):.3f} {parts}")
    if release is not None:
        release()
    net.eval()
    return history, start


def _steps(history: list[float], start: int) -> dict[str, int]:
    """A stage's gradient steps for its card: all of them, and where a resumed fit took up."""
    return {"steps": start + len(history), **({"resumed_at_step": start} if start else {})}


def only_targets(net: Any, rows: list[int]) -> Callable[[], None]:
    """Freeze every weight but these rows of the goal-target embedding (the goals new to an --init
    checkpoint): every goal it was trained on then reads exactly the weights it read before, so
    it acts as before, bit for bit, whatever the fit does to the new ones. Returns what undoes it."""
    for p in net.parameters():
        p.requires_grad_(False)
    weight = net.goal_target.weight
    weight.requires_grad_(True)
    keep = torch.zeros(weight.shape[0], 1, device=weight.device)
    keep[torch.as_tensor(rows, dtype=torch.long)] = 1.0
    hook = weight.register_hook(lambda grad: grad * keep)  # Adam's step is 0 where every gradient was 0

    def release() -> None:
        hook.remove()
        for p in net.parameters():
            p.requires_grad_(True)

    return release


def target_rows(keys: list[str], kb: Any, vocab: Any) -> list[int]:
    """The goal-target embedding row each goal key ('mine:log2') reads."""
    from worlds.gridworld.spec import goal_code
    from worlds.types import Goal

    return [int(goal_code(Goal(k.split(":", 1)[0], {k.split(":", 1)[1]: 1}), vocab, kb)[1]) for k in keys]


def _sampler(data: dict, batch: int, share: float, g: torch.Generator):
    """Row indices of each batch: uniform over the rows, or with `share` of them drawn from the
    learner's rows (DAgger's, the ones with no horizon label) and the rest from the expert's, so
    that a round's few learner rows are not lost among the many expert ones."""
    n = len(data["action"])
    learner = torch.nonzero(data["horizon"].cpu() < 0).flatten()
    expert = torch.nonzero(data["horizon"].cpu() >= 0).flatten()
    k = int(round(min(batch, n) * share))
    if not share or not len(learner) or not len(expert):
        return lambda: torch.randint(0, n, (min(batch, n),), generator=g)

    def draw() -> torch.Tensor:
        a = learner[torch.randint(0, len(learner), (k,), generator=g)]
        b = expert[torch.randint(0, len(expert), (min(batch, n) - k,), generator=g)]
        return torch.cat([a, b])

    return draw


def _save(net: Any, cfg: PipelineConfig, path: Path, card: dict) -> Path:
    from skills.learned import checkpoint
    from worlds.gridworld.spec import make_vocab
    from worlds.knowledge import load_kb

    vocab = make_vocab(load_kb(cfg.mc_version))
    return checkpoint.save(path, net.cpu(), vocab_version=vocab.version, goals=goals(), card=card)


def with_rows(data: dict | None, other: str) -> tuple[dict, int]:
    """`data` with the expert rows of another run of this pipeline (OTHER/data/bc-*.pt) appended,
    and how many those were; LearnedError (one line) when OTHER holds none."""
    from skills.learned.paths import LearnedError

    theirs = _joined(sorted((Path(other) / "data").glob("bc-*.pt")))
    if theirs is None:
        raise LearnedError(
            f"--with-data {other!r} holds no expert rows (DIR/data/bc-*.pt); accepted: the --out of a run"
        )
    if data is None or not len(data["action"]):
        return theirs, len(theirs["action"])
    if set(data) != set(theirs):
        raise LearnedError(f"--with-data {other!r} holds rows of another layout; accepted: a run of this pipeline")
    return {k: torch.cat([data[k], theirs[k]]) for k in data}, len(theirs["action"])


def _joined(paths: list[Path]) -> dict | None:
    """The rows of the saved parts `paths`, one after another (empty parts left out); None if none."""
    parts = [torch.load(p, weights_only=True) for p in paths]
    parts = [p for p in parts if len(p["action"])]
    return {k: torch.cat([p[k] for p in parts]) for k in parts[0]} if parts else None


def seed_new_targets(net: Any, trained: list[str], kb: Any, vocab: Any) -> list[str]:
    """Start the target embedding of each TRAIN_GOALS goal that `trained` (an --init checkpoint's
    goals) lacks at the mean of the trained targets' embeddings of the same skill: a new block
    begins as "a block to mine" (its target map says where), not as a random direction never
    trained. Returns the goals so seeded."""

    def row(key: str) -> int:
        return target_rows([key], kb, vocab)[0]

    have = set(trained)
    taken = {row(k) for k in have}  # a row a trained goal reads (a variant's, say) keeps its weights
    new = [k for k in goals() if k not in have and row(k) not in taken]
    weight = net.goal_target.weight
    with torch.no_grad():
        for key in new:
            same = sorted({row(k) for k in have if k.split(":", 1)[0] == key.split(":", 1)[0]})
            if same:
                weight[row(key)] = weight[same].mean(0)
    return new


def run(cfg: PipelineConfig, log=print) -> dict:
    from skills.learned import checkpoint, sense
    from skills.learned.features import net_shape
    from skills.learned.model import GoalNet
    from skills.learned.paths import LearnedError
    from training.controller.fit import concat, evaluate, split
    from training.controller.widen import with_near
    from worlds.gridworld.spec import make_vocab
    from worlds.knowledge import load_kb

    t_all = time.monotonic()
    torch.manual_seed(cfg.seed)
    if cfg.device == "cpu":
        torch.set_num_threads(1)  # the fastest on a small or shared CPU
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    kb = load_kb(cfg.mc_version)
    vocab = make_vocab(kb)
    near = len(sense.NEAR_LEVELS) if cfg.near else 0
    shape = net_shape(vocab, target=len(sense.BANDS), aux=1, channels=cfg.channels, hidden=cfg.hidden, near=near)
    net = GoalNet(shape)
    fresh: list[str] = []
    card_goals: list[str] = []
    if cfg.init:
        net, init_card = checkpoint.load(cfg.init, expected=net_shape(vocab), vocab=vocab)
        card_goals = list(init_card.get("goals") or [])
        if not net.shape.target:
            raise LearnedError(f"--init {cfg.init!r} reads no target map; accepted: a checkpoint this pipeline wrote")
        if cfg.near and not net.shape.near:
            net = with_near(net)
            log("--near: the near map joins the --init network's inputs, its output layer at zero (widen.py)")
        elif net.shape.near and not cfg.near:
            raise LearnedError(f"--init {cfg.init!r} reads the near map; give --near too")
        fresh = seed_new_targets(net, card_goals, kb, vocab)
        if fresh:
            log(
                f"--init: {len(fresh)} goal targets new to it start at the mean of its trained ones: {', '.join(fresh)}"
            )
    only, rows, keep = None, None, None
    if cfg.keep_old:
        if not cfg.init:
            raise LearnedError("--keep-old holds the net to an --init checkpoint's policy, and no --init was given")
        if cfg.teacher:  # another policy for the old goals (round 10: round 5's, while --init is a later one)
            teacher, t_card = checkpoint.load(cfg.teacher, expected=net_shape(vocab), vocab=vocab)
            t_goals = list(t_card.get("goals") or [])
        else:  # as loaded, but for the new goals' rows, which the KL never reads
            teacher, t_goals = copy.deepcopy(net), card_goals
        known = torch.zeros(teacher.shape.n_targets, dtype=torch.bool)
        known[torch.as_tensor(target_rows(t_goals, kb, vocab))] = True
        keep = (teacher.eval().requires_grad_(False).to(cfg.device), known.to(cfg.device), cfg.keep_old)
        who = f"--teacher {cfg.teacher}" if cfg.teacher else "the --init policy"
        log(f"--keep-old: KL to {who}, weight {cfg.keep_old}, on the rows of its {len(t_goals)} goals")
    if cfg.new_goals_only:
        if not cfg.init or not fresh:
            raise LearnedError(
                "--new-goals-only fits the goals an --init checkpoint was not trained on, and "
                + (f"{cfg.init!r} was trained on every one" if cfg.init else "no --init was given")
            )
        only, rows = fresh, target_rows(fresh, kb, vocab)
        log(f"--new-goals-only: every weight frozen but the target embeddings of those {len(fresh)} goals")
    card: dict[str, Any] = {"kind": "controller", "command": cfg.command, "config": asdict(cfg), "stages": []}
    bc, st = collect_parallel(cfg, "bc", cfg.episodes, cfg.seed + 1, log=log, only=only)
    if cfg.with_data:
        bc, more = with_rows(bc, cfg.with_data)
        st = {**st, "rows": int(len(bc["action"])), "with_data": {"dir": cfg.with_data, "rows": more}}
        log(f"--with-data: {more} expert rows from {cfg.with_data} join this run's")
    if bc is None:
        raise LearnedError(
            f"behaviour cloning: none of the {st['pursuits']} expert pursuits ended well; try more --episodes"
        )
    if rows is not None:  # the other goals' rows move no weight that is fitted
        mine = torch.isin(bc["goal"][:, 1], torch.as_tensor(rows))
        bc = {k: v[mine] for k, v in bc.items()}
        st = {**st, "rows": int(mine.sum())}
        log(f"--new-goals-only: {int(mine.sum())} rows of those goals kept")
    train_set, held_out = split(bc, 0.05, cfg.seed)
    card["data"] = {
        "expert_pursuits": st["pursuits"],
        "successful": st["ok"],
        "rows": st["rows"],
        "by_goal": st["by_goal"],
    }
    card["stages"].append({"stage": "expert data", **{k: v for k, v in st.items() if k != "by_goal"}})
    bc_path = out / "bc" / "controller.pt"
    t1 = time.monotonic()
    if cfg.resume and bc_path.is_file():
        net, _ = checkpoint.load(bc_path, expected=net_shape(vocab), vocab=vocab)
        log("behaviour cloning: done before, loaded")
    else:
        h, h0 = fit_stage(net, train_set, cfg, "bc", cfg.steps, cfg.lr, cfg.seed, log, rows=rows, keep=keep)
        measured = evaluate(net, held_out, cfg.device)
        card["stages"].append(
            {"stage": "behaviour cloning", **_steps(h, h0), "wall_s": round(time.monotonic() - t1, 1), **measured}
        )
        _save(net, cfg, bc_path, {**card, "wall_s": round(time.monotonic() - t_all, 1)})
        log(f"behaviour cloning: {json.dumps(card['stages'][-1])}")
    for r in range(cfg.rounds):
        path = out / f"round{r + 1}" / "controller.pt"
        if cfg.resume and path.is_file():
            net, _ = checkpoint.load(path, expected=net_shape(vocab), vocab=vocab)
            log(f"DAgger round {r + 1}: done before, loaded")
            continue
        t1 = time.monotonic()
        more, st = collect_parallel(
            cfg, f"dagger{r + 1}", cfg.pursuits, cfg.seed + 100 + r, net=net, log=log, only=only
        )
        left_out = {}
        if cfg.learner_above >= 0 and more is not None and "aux_dir" in more:
            drop = above_rows(more, cfg.learner_above)
            more = {k: v[~drop] for k, v in more.items()}
            left_out = {"rows_left_out_above": int(drop.sum())}
            log(f"dagger{r + 1}: {int(drop.sum())} learner rows left out (their expert heads above, --learner-above)")
        train_set = concat(train_set, more)
        h, h0 = fit_stage(
            net,
            train_set,
            cfg,
            f"dagger{r + 1}",
            cfg.dagger_steps,
            cfg.dagger_lr,
            cfg.seed + 1 + r,
            log,
            rows=rows,
            keep=keep,
        )
        measured = evaluate(net, held_out, cfg.device)
        card["stages"].append(
            {
                "stage": f"DAgger round {r + 1}",
                "learner_pursuits": st["pursuits"],
                "learner_ok": st["ok"],
                "learner_ok_rate": round(st["ok"] / max(st["pursuits"], 1), 3),
                "rows": st["rows"],
                **left_out,
                **_steps(h, h0),
                "wall_s": round(time.monotonic() - t1, 1),
                **measured,
            }
        )
        _save(net, cfg, path, {**card, "wall_s": round(time.monotonic() - t_all, 1)})
        log(f"DAgger round {r + 1}: {json.dumps(card['stages'][-1])}")
    card.update(
        {
            "device": cfg.device,
            "torch": str(torch.__version__),
            "machine": f"{platform.machine()} {platform.system()}, {cfg.workers} collection processes",
            "wall_s": round(time.monotonic() - t_all, 1),
            "vocab_version": vocab.version,
        }
    )
    final = _save(net, cfg, out / "controller.pt", card)
    card["file"], card["bytes"] = str(final), final.stat().st_size
    return card


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.controller.pipeline", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, metavar="DIR", help="writes DIR/controller.pt, its card and its stages")
    d = PipelineConfig(out="")
    for f, typ, what in (
        ("workers", int, "collection processes, one core each"),
        ("seed", int, "seed of every collection and fit"),
        ("episodes", int, "expert pursuits for behaviour cloning"),
        ("steps", int, "behaviour-cloning gradient steps (0: none, with --init)"),
        ("batch_size", int, "rows per gradient step"),
        ("lr", float, "behaviour cloning's learning rate"),
        ("rounds", int, "capped DAgger rounds after behaviour cloning"),
        ("pursuits", int, "learner pursuits per DAgger round (the collection may stop sooner: --collect-seconds)"),
        ("max_rows", int, "rows kept per learner pursuit, spread over the steps where it decides (0: all)"),
        ("dagger_steps", int, "gradient steps of each DAgger fit"),
        ("dagger_lr", float, "each DAgger fit's learning rate"),
        ("learner_share", float, "a DAgger fit's share of each batch drawn from the learner's rows (0: uniform)"),
        (
            "learner_above",
            float,
            "leave out the learner's rows whose expert heads for a cell above it more than this many cells away"
            " (0: any above; -1: keep all)",
        ),
        ("channels", int, "conv channels of a fresh network"),
        ("hidden", int, "hidden width of a fresh network"),
        ("scatter_p", float, "share of training worlds that are scatter maps (sources at set distances)"),
        ("repeat_p", float, "chance the next goal repeats the mine or kill goal just finished"),
        ("source_biome_p", float, "share of fresh worlds made where their first goal's source forms"),
        ("near_source_p", float, "chance a buried source's pursuit begins a few levels above it"),
        (
            "source_seed_p",
            float,
            "share of fresh worlds whose seed moves on to the first holding their goal's source, as the skill"
            " table's worlds are chosen (a world of any biome)",
        ),
        (
            "cut_trunks_p",
            float,
            "chance a log pursuit begins with every trunk of its world cut at the foot, the logs left hanging",
        ),
        ("keep_old", float, "with --init: weight of the KL to its policy (or --teacher's) on the goals its card lists"),
        ("n_envs", int, "worlds stepped together in each collection process"),
        ("stage_seconds", float, "each fit stops after this many seconds (0: no limit)"),
        ("collect_seconds", float, "each process's collection stops after this many seconds (0: no limit)"),
        ("save_every", int, "gradient steps between saved states (a killed run resumes with --resume)"),
    ):
        ap.add_argument(
            "--" + f.replace("_", "-"), type=typ, default=getattr(d, f), help=f"{what} (default: {getattr(d, f)})"
        )
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--init", default="", help="start from this checkpoint (one this pipeline wrote)")
    ap.add_argument("--resume", action="store_true", help="go on from what DIR already holds")
    ap.add_argument(
        "--near",
        action="store_true",
        help="the network reads the goal's near map too (each level from feet - 5 to feet + 5, cell by cell);"
        " an --init network without one gets it, acting as before until the fit moves it",
    )
    ap.add_argument(
        "--with-data",
        default="",
        metavar="DIR",
        help="also fit on the expert rows another run of this pipeline collected (its --out DIR)",
    )
    ap.add_argument(
        "--teacher",
        default="",
        metavar="CKPT",
        help="with --keep-old: hold the goals this checkpoint was trained on to its policy (default: --init's)",
    )
    ap.add_argument(
        "--new-goals-only",
        action="store_true",
        help="with --init: fit only the goal embeddings of the goals it was not trained on; every other weight"
        " is frozen, so the goals it knew act exactly as before",
    )
    ap.add_argument(
        "--focus",
        default="",
        metavar="GOAL=W,...",
        help="goal sampling weights instead of the issue-20 focus; *=W weighs every goal not named",
    )
    a = ap.parse_args(argv)
    if a.device == "cuda" and not torch.cuda.is_available():
        print("pipeline: error: --device cuda but no CUDA device is visible; accepted: --device cpu", file=sys.stderr)
        return 2
    for name, zero in (  # the chances and shares, each from 0 to 1, and what 0 means
        ("repeat_p", "every next goal drawn afresh"),
        ("source_biome_p", "every map's biome by its seed"),
        ("source_seed_p", "every seed as drawn"),
        ("near_source_p", "every pursuit starts where the last ended"),
        ("cut_trunks_p", "every tree as it grew"),
    ):
        if not 0.0 <= getattr(a, name) <= 1.0:
            flag = "--" + name.replace("_", "-")
            print(f"pipeline: error: {flag} must be from 0 to 1 (0: {zero})", file=sys.stderr)
            return 2
    if a.keep_old < 0:
        print("pipeline: error: --keep-old must be 0 or more (0: no pull toward the --init policy)", file=sys.stderr)
        return 2
    if a.teacher and not a.keep_old:
        print(
            "pipeline: error: --teacher is the policy --keep-old holds the old goals to; give --keep-old W too",
            file=sys.stderr,
        )
        return 2
    if a.learner_above < 0 and a.learner_above != -1:
        print("pipeline: error: --learner-above must be 0 or more cells, or -1 (keep every row)", file=sys.stderr)
        return 2
    if not 0.0 <= a.learner_share < 1.0:
        print("pipeline: error: --learner-share must be from 0 to under 1 (0: rows drawn uniformly)", file=sys.stderr)
        return 2
    if min(a.workers, a.episodes, a.batch_size) < 1 or a.rounds < 0 or a.steps < (0 if a.init else 1):
        print(
            "pipeline: error: --workers, --episodes, --steps and --batch-size must be 1 or more"
            " (--steps 0 only with --init: DAgger from that checkpoint, its expert rows kept in the mix)",
            file=sys.stderr,
        )
        return 2
    try:
        focus_weights(a.focus)
    except ValueError as e:
        print(f"pipeline: error: {e}", file=sys.stderr)
        return 2
    cfg = PipelineConfig(
        **vars(a), command="python -m training.controller.pipeline " + " ".join(sys.argv[1:] if argv is None else argv)
    )
    from skills.learned.paths import LearnedError

    def log(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    try:
        card = run(cfg, log)
    except LearnedError as e:
        print(f"pipeline: error: {e}", file=sys.stderr)
        return 2
    print(json.dumps({k: card[k] for k in ("file", "bytes", "wall_s", "stages")}, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`deps train controller|selector`: collect expert data, fit, measure, write the checkpoint.

controller: behaviour cloning of the scripted experts (policy loss, horizon loss as an
auxiliary), then `dagger_rounds` rounds of DAgger (the policy acts, the expert labels).
selector: the horizon predictor (horizon loss, policy loss as an auxiliary: the encoder
is shared, DEPS 3.3). Progress bars go to stderr; the card records what was done.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from skills.learned import checkpoint
from skills.learned.features import net_shape, time_column
from skills.learned.model import GoalNet
from skills.learned.paths import LearnedError
from skills.learned.policy import GoalPolicy
from training.controller import find_goals
from training.controller.data import (
    NEW_IN_ROUND_8,
    NEW_IN_ROUND_35,
    NEW_IN_ROUND_36,
    NEW_IN_ROUND_37,
    NEW_IN_ROUND_40,
    NEW_KILLS_IN_ROUND_37,
    NEW_KILLS_IN_ROUND_38,
    TRAIN_GOALS,
    collect,
    own_biome,
    own_time,
    start_options,
)
from training.controller.fit import concat, evaluate, fit, split
from training.controller.seeds import with_source
from worlds.gridworld.spec import make_vocab
from worlds.types import Goal

HELD_OUT = 0.1
EVAL_EPISODES = 64


@dataclass
class TrainConfig:
    kind: str  # controller | selector
    out: str
    device: str = "cpu"
    seed: int = 0
    episodes: int = 600  # expert goal pursuits collected
    steps: int = 3000  # gradient steps per round
    dagger_rounds: int = 0
    batch_size: int = 256
    n_envs: int = 16
    threads: int = 1  # torch CPU threads (1: fastest on a shared or small CPU)
    eval_episodes: int = EVAL_EPISODES  # controller only: rollouts on fresh worlds for the card (0: none)
    mc_version: str = "1.11.2"
    command: str = ""


def _bar(total: int, desc: str, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, file=sys.stderr, disable=not enabled, leave=False, dynamic_ncols=True)


def _collect(kb: Any, n: int, seed: int, cfg: TrainConfig, policy: Any, desc: str, progress: bool):
    with _bar(n, desc, progress) as bar:
        data, stats = collect(kb, n, seed, n_envs=cfg.n_envs, policy=policy, on_pursuit=lambda ok: bar.update(1))
    return data, stats


def _fit(
    net: GoalNet, data: dict, cfg: TrainConfig, seed: int, desc: str, progress: bool, time_col: int | None = None
) -> list[float]:
    w_pol, w_hor = (1.0, 0.5) if cfg.kind == "controller" else (0.5, 1.0)
    with _bar(cfg.steps, desc, progress) as bar:

        def on_step(i: int, parts: dict) -> None:
            bar.update(1)
            if i % 50 == 0:
                bar.set_postfix({k: f"{v:.3f}" for k, v in parts.items()})

        return fit(
            net,
            data,
            steps=cfg.steps,
            batch_size=cfg.batch_size,
            device=cfg.device,
            seed=seed,
            w_policy=w_pol,
            w_horizon=w_hor,
            time_col=time_col,
            on_step=on_step,
        )


def eval_episodes(n: int, seed: int, keep: Callable[[Goal], bool] | None = None) -> list[tuple[Goal, int, dict]]:
    """Fresh worlds (seeds not used in training), one goal each, in a fixed order. A mine goal's
    world holds at least one of its source blocks: a generated 48 x 48 map can hold no sugar
    cane at all (12 of 50 reeds worlds did), which no driver can mine and which an episode's own
    map would not be (worlds/gridworld/world.py grows a map for what its task mines); such a
    seed is replaced by the next one that holds the source, the other worlds unchanged.

    `keep`: only the episodes of the goals it keeps are made and returned, each exactly as in the
    whole list. Every goal's draws are still taken from its generator, but a left-out mine goal's
    world is not generated to check its source (that check draws nothing: `seeds.with_source`
    tries the next seeds in turn), and the finds, whose where-conditions are drawn from their own
    worlds, are skipped as a whole when none is kept (their generator serves only them). Checking
    the 3,150 worlds of a whole skill table took about a minute where a table of three goals
    needed none of it."""
    from worlds.gridworld.batch import BatchGridWorld
    from worlds.knowledge import load_kb

    rng = np.random.default_rng(10_000 + seed)
    frng = np.random.default_rng(20_000 + seed)  # find goals' own draws: the mine and kill worlds stay as they were
    urng = np.random.default_rng(30_000 + seed)  # and a held item used on a mob (milk): its own draws too
    nrng = np.random.default_rng(40_000 + seed)  # and round 8's goals theirs
    jrng = np.random.default_rng(50_000 + seed)  # and round 35's (the jungle's and the swamp's) theirs
    orng = np.random.default_rng(60_000 + seed)  # and round 36's (obsidian) its own
    srng = np.random.default_rng(70_000 + seed)  # and round 37's (mushrooms, snowballs) theirs
    krng = np.random.default_rng(80_000 + seed)  # and round 38's (the night's mobs) theirs
    trng = np.random.default_rng(90_000 + seed)  # and round 40's (the tall flowers) theirs
    own = {
        i: g
        for goals, g in (
            (NEW_IN_ROUND_8, nrng),
            (NEW_IN_ROUND_35, jrng),
            (NEW_IN_ROUND_36, orng),
            (NEW_IN_ROUND_37, srng),
            (NEW_KILLS_IN_ROUND_37, srng),
            (NEW_KILLS_IN_ROUND_38, krng),
            (NEW_IN_ROUND_40, trng),
        )
        for i in goals
    }
    kb = load_kb("1.11.2")
    probe = BatchGridWorld(1, kb)
    kept = keep or (lambda goal: True)
    finds = any(kept(Goal(a, {i: 1})) for a, i, _, _ in TRAIN_GOALS if a == "find")
    eps = []
    for k in range(n):
        action, item, _, inv = TRAIN_GOALS[k % len(TRAIN_GOALS)]
        goal = Goal(action, {item: 1})
        if action == "find":  # some at night, the where-conditions drawn for the world itself
            if not finds:
                continue
            world_seed = int(frng.integers(2**30, 2**31 - 1))
            options = {**start_options(frng, dict(inv)), "time_of_day": find_goals.night_start(frng) or 0.1}
            world_seed = with_source(probe, goal, world_seed, options)
            probe.reset([world_seed], [options])
            settled = find_goals.settle(probe, 0, goal, frng)
            if kept(goal):
                eps.append((settled, world_seed, options))
            continue
        r = own.get(item) or (urng if inv.get("bucket") else rng)
        world_seed = int(r.integers(2**30, 2**31 - 1))
        options = {**start_options(r, dict(inv)), "time_of_day": 0.1, **own_biome(kb, goal), **own_time(kb, goal, r)}
        if kept(goal):
            eps.append((goal, with_source(probe, goal, world_seed, options), options))
    return eps


def measure(
    net: GoalNet, kb: Any, goals: list[str], held_out: Any, history: list[float], device: str, n_eval: int, seed: int
) -> dict[str, Any]:
    """A fitted network's card figures: held-out agreement (fit.evaluate), the first and last
    20 steps' mean loss, and with `n_eval` > 0 its success rolled out on fresh worlds."""
    from training.controller.rollout import rollout

    measured: dict[str, Any] = evaluate(net, held_out, device)
    if history:
        measured["loss_first"] = round(float(np.mean(history[:20])), 4)
        measured["loss_last"] = round(float(np.mean(history[-20:])), 4)
    if n_eval > 0:
        policy = GoalPolicy(net, kb, {"goals": goals}, device)
        res = rollout(kb, eval_episodes(n_eval, seed), "learned", policy, budget=600, n_envs=32, seed=seed)
        measured["rollout_success"] = round(sum(r["ok"] for r in res) / len(res), 3)
        measured["rollout_episodes"] = len(res)
    return measured


def data_facts(stats: dict, train_set: Any, held_out: Any, rounds: list) -> dict[str, Any]:
    """The card's "data": what the expert collected, how it was split, the DAgger rounds."""
    return {
        "expert_pursuits": stats["pursuits"],
        "successful": stats["ok"],
        "rows": stats["rows"],
        "train_rows": int(len(train_set["goal"])),
        "held_out_rows": int(len(held_out["goal"])),
        "by_goal": stats["by_goal"],
        "dagger": rounds,
    }


def run_facts(device: str, t0: float, measured: dict, vocab_version: Any) -> dict[str, Any]:
    """The card's fields on where and how long it ran, and what it measured."""
    return {
        "device": device,
        "torch": str(torch.__version__),
        "machine": f"{platform.machine()} {platform.system()}, {torch.get_num_threads()} torch threads",
        "wall_s": round(time.monotonic() - t0, 1),
        "measured": measured,
        "vocab_version": vocab_version,
    }


def setup(threads: int, seed: int, mc_version: str) -> tuple[Any, Any]:
    """Torch threads and seed set; the knowledge base and the grid vocabulary of `mc_version`."""
    from worlds.knowledge import load_kb

    if threads > 0:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    kb = load_kb(mc_version)
    return kb, make_vocab(kb)


def train(cfg: TrainConfig, progress: bool = True) -> dict:
    if cfg.kind not in ("controller", "selector"):
        raise LearnedError(f"unknown training target {cfg.kind!r}; accepted: controller, selector")
    t0 = time.monotonic()
    kb, vocab = setup(cfg.threads, cfg.seed, cfg.mc_version)
    data, stats = _collect(kb, cfg.episodes, cfg.seed, cfg, None, "expert episodes", progress)
    if len(data["goal"]) == 0:
        raise LearnedError("the experts produced no successful episode; try more --episodes")
    train_set, held_out = split(data, HELD_OUT, cfg.seed)
    net = GoalNet(net_shape(vocab))
    history = _fit(
        net,
        train_set,
        cfg,
        cfg.seed,
        "fit (behaviour cloning)" if cfg.kind == "controller" else "fit (horizon)",
        progress,
        time_column(vocab),
    )
    rounds = []
    for r in range(cfg.dagger_rounds if cfg.kind == "controller" else 0):
        policy = GoalPolicy(net, kb, {"goals": [f"{a}:{i}" for a, i, _, _ in TRAIN_GOALS]}, cfg.device)
        more, st = _collect(
            kb, max(cfg.episodes // 2, 1), cfg.seed + 1 + r, cfg, policy, f"DAgger round {r + 1}", progress
        )
        train_set = concat(train_set, more)
        rounds.append({"pursuits": st["pursuits"], "rows": st["rows"], "learner_ok": st["ok"]})
        history += _fit(net, train_set, cfg, cfg.seed + 1 + r, f"fit (DAgger {r + 1})", progress, time_column(vocab))
    goals = [f"{a}:{i}" for a, i, _, _ in TRAIN_GOALS]
    n_eval = cfg.eval_episodes if cfg.kind == "controller" else 0
    measured = measure(net, kb, goals, held_out, history, cfg.device, n_eval, cfg.seed)
    card = {
        "kind": cfg.kind,
        "command": cfg.command or f"deps train {cfg.kind} --out {cfg.out}",
        "config": asdict(cfg),
        "data": data_facts(stats, train_set, held_out, rounds),
        **run_facts(cfg.device, t0, measured, vocab.version),
    }
    path = checkpoint.save(
        Path(cfg.out) / f"{cfg.kind}.pt", net.cpu(), vocab_version=vocab.version, goals=goals, card=card
    )
    card["file"] = str(path)
    card["bytes"] = path.stat().st_size
    return card

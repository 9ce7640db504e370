"""DAgger fine-tuning of a trained controller checkpoint (Ross et al. 2011).

    python -m training.controller.dagger --init skills/checkpoints/controller-bc.pt --out DIR --rounds 2

Behaviour cloning alone leaves the policy wandering: it never saw the states its own
mistakes lead to. Each round here lets the current policy act on fresh worlds (sampled at
the controller's own temperature, as `deps run --controller learned` does), labels every
state it visits with the scripted expert's action from that state (training/controller/data.py,
`collect(policy=...)`), adds those rows to fresh behaviour-cloning rows and fine-tunes the
network from where it was for `--steps` steps. The card records every round.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from skills.learned import checkpoint
from skills.learned.features import net_shape, time_column
from skills.learned.model import GoalNet
from skills.learned.policy import GoalPolicy
from training.controller.data import TRAIN_GOALS, collect
from training.controller.fit import concat, fit, split

HELD_OUT = 0.1


@dataclass
class DaggerConfig:
    init: str  # the checkpoint to start from
    out: str
    rounds: int = 2
    episodes: int = 600  # expert pursuits (behaviour-cloning rows kept in the mix)
    pursuits: int = 300  # learner pursuits per round
    steps: int = 600  # gradient steps per round
    max_rows: int = 0  # learner rows kept per pursuit, spread evenly (0: all)
    batch_size: int = 128
    lr: float = 5e-4  # lower than from scratch: a fine-tune
    n_envs: int = 16
    seed: int = 0
    device: str = "cpu"
    threads: int = 1
    eval_episodes: int = 32
    mc_version: str = "1.11.2"
    command: str = ""


class SampledPolicy:
    """The policy as the learned controller runs it: actions sampled, not argmax."""

    def __init__(self, policy: GoalPolicy, seed: int):
        from skills.learned.controller import SAMPLE_TEMPERATURE

        self.policy, self.rng, self.temperature = policy, np.random.default_rng(seed), SAMPLE_TEMPERATURE

    def act(self, obs: dict, codes: np.ndarray) -> np.ndarray:
        return self.policy.act(obs, codes, greedy=False, rng=self.rng, temperature=self.temperature)


def goals() -> list[str]:
    return [f"{a}:{i}" for a, i, _, _ in TRAIN_GOALS]


def dagger_round(
    net: GoalNet,
    kb: Any,
    pursuits: int,
    seed: int,
    n_envs: int = 16,
    device: str = "cpu",
    on_pursuit=None,
    max_rows: int = 0,
) -> tuple[dict, dict]:
    """Rows from `pursuits` pursuits driven by `net` (sampled), labelled by the expert's action;
    failed pursuits kept. No horizon labels (-1): the learner's time to a goal is not the
    expert's, and the horizon head is trained on expert rows only."""
    net.to(device).eval()
    policy = SampledPolicy(GoalPolicy(net, kb, {"goals": goals()}, device), seed)
    data, stats = collect(
        kb,
        pursuits,
        seed,
        n_envs=n_envs,
        policy=policy,
        on_pursuit=on_pursuit,
        keep_failed=True,
        max_rows=max_rows,
        target=bool(net.shape.target),  # a net that reads the goal's target map (skills/learned/sense.py)
        near=bool(net.shape.near),
    )
    if len(data["horizon"]):
        data["horizon"] = torch.full_like(data["horizon"], -1)
    stats["rows"] = int(len(data["action"]))
    return data, stats


def _bar(total: int, desc: str, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, file=sys.stderr, disable=not enabled, leave=False, dynamic_ncols=True)


def finetune(cfg: DaggerConfig, progress: bool = True) -> dict:
    from training.controller.train import data_facts, measure, run_facts, setup

    t0 = time.monotonic()
    kb, vocab = setup(cfg.threads, cfg.seed, cfg.mc_version)
    net, init_card = checkpoint.load(cfg.init, expected=net_shape(vocab), vocab=vocab)
    with _bar(cfg.episodes, "expert episodes", progress) as bar:
        bc, stats = collect(
            kb,
            cfg.episodes,
            50_000 + cfg.seed,
            n_envs=cfg.n_envs,
            on_pursuit=lambda ok: bar.update(1),
            target=bool(net.shape.target),
            near=bool(net.shape.near),
        )
    train_set, held_out = split(bc, HELD_OUT, cfg.seed)
    rounds, history = [], []
    for r in range(cfg.rounds):
        t1 = time.monotonic()
        with _bar(cfg.pursuits, f"DAgger round {r + 1}", progress) as bar:
            more, st = dagger_round(
                net,
                kb,
                cfg.pursuits,
                60_000 + 1000 * cfg.seed + r,
                cfg.n_envs,
                cfg.device,
                on_pursuit=lambda ok: bar.update(1),
                max_rows=cfg.max_rows,
            )
        train_set = concat(train_set, more)
        with _bar(cfg.steps, f"fit (DAgger {r + 1})", progress) as bar:
            h = fit(
                net,
                train_set,
                steps=cfg.steps,
                batch_size=cfg.batch_size,
                device=cfg.device,
                seed=cfg.seed + 1 + r,
                w_policy=1.0,
                w_horizon=0.5,
                lr=cfg.lr,
                time_col=time_column(vocab),
                on_step=lambda i, parts: bar.update(1),
            )
        history += h
        rounds.append(
            {
                "pursuits": st["pursuits"],
                "learner_ok": st["ok"],
                "rows": st["rows"],
                "learner_ok_rate": round(st["ok"] / max(st["pursuits"], 1), 3),
                "train_rows_after": int(len(train_set["goal"])),
                "wall_s": round(time.monotonic() - t1, 1),
            }
        )
        if progress:
            print(f"round {r + 1}: {json.dumps(rounds[-1])}", file=sys.stderr)
        if r + 1 < cfg.rounds:  # each round's net, to be measured while the next one runs
            checkpoint.save(
                Path(cfg.out) / f"round{r + 1}" / "controller.pt",
                net,
                vocab_version=vocab.version,
                goals=goals(),
                card={"command": cfg.command, "rounds": list(rounds)},
            )
    measured = measure(net, kb, goals(), held_out, history, cfg.device, cfg.eval_episodes, cfg.seed)
    card = {
        "kind": "controller",
        "command": cfg.command
        or f"python -m training.controller.dagger --init {cfg.init} --out {cfg.out} --rounds {cfg.rounds}",
        "config": asdict(cfg),
        "init": {
            "file": str(cfg.init),
            "command": init_card.get("command"),
            "data": init_card.get("data"),
            "wall_s": init_card.get("wall_s"),
        },
        "data": data_facts(stats, train_set, held_out, rounds),
        **run_facts(cfg.device, t0, measured, vocab.version),
    }
    path = checkpoint.save(
        Path(cfg.out) / "controller.pt", net.cpu(), vocab_version=vocab.version, goals=goals(), card=card
    )
    card["file"], card["bytes"] = str(path), path.stat().st_size
    return card


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.controller.dagger", description=__doc__.split("\n\n")[0])
    ap.add_argument("--init", required=True, help="the controller checkpoint to start from")
    ap.add_argument("--out", required=True, metavar="DIR", help="writes DIR/controller.pt and its card")
    d = DaggerConfig(init="", out="")
    for flag, typ in (
        ("rounds", int),
        ("episodes", int),
        ("pursuits", int),
        ("steps", int),
        ("max_rows", int),
        ("batch_size", int),
        ("lr", float),
        ("n_envs", int),
        ("seed", int),
        ("threads", int),
        ("eval_episodes", int),
    ):
        ap.add_argument(
            "--" + flag.replace("_", "-"), type=typ, default=getattr(d, flag), help=f"(default: {getattr(d, flag)})"
        )
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    cfg = DaggerConfig(
        **{k: v for k, v in vars(a).items() if k != "quiet"},
        command="python -m training.controller.dagger " + " ".join(sys.argv[1:] if argv is None else argv),
    )
    card = finetune(cfg, progress=not a.quiet)
    print(f"wrote {card['file']} ({card['bytes']} bytes): " + json.dumps(card["measured"]), file=sys.stderr)
    print(json.dumps(card, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())

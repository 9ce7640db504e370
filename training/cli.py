"""`deps train TARGET`: the training commands, one sub-parser per learned part.

The training package adds `deps train` to the CLI through the `deps.commands` entry point
(`register`, pyproject.toml), so the agent layer never imports it. `add_train_parsers(sub)`
registers `controller` and `selector` (the grid world's goal-conditioned policy and horizon
predictor, skills/learned/) and `llm`, `llm-data` (the embedded model's LoRA fine-tuning,
training/llm_cli.py): each a sub-parser with `fn` set.
"""

from __future__ import annotations

import argparse
import json
import sys

from training.device import pick_device as _device  # the training commands' --device

MAX_EPISODES = 1_000_000  # expert episodes collected, or rollouts for the card
MAX_STEPS = 10_000_000  # gradient steps per round
MAX_DAGGER = 100  # DAgger rounds
MAX_BATCH = 65_536  # examples per optimizer step
MAX_ENVS = 4_096  # grid worlds stepped at once


def max_threads() -> int:
    """torch CPU threads: at most this machine's cores (at least 1)."""
    import os

    return max(1, os.cpu_count() or 1)


def cmd_train_learned(a: argparse.Namespace) -> int:
    from nodes.settings import SettingsError, bounded
    from skills.learned.paths import LearnedError
    from training.controller.train import TrainConfig, train

    # every count bounded (a typo of 10^12 steps would run for ever; 10^6 threads crashed torch)
    for flag, v, low, high in (
        ("--episodes", a.episodes, 1, MAX_EPISODES),
        ("--steps", a.steps, 1, MAX_STEPS),
        ("--dagger", a.dagger, 0, MAX_DAGGER),
        ("--batch-size", a.batch_size, 1, MAX_BATCH),
        ("--threads", a.threads, 1, max_threads()),
        ("--eval-episodes", a.eval_episodes, 0, MAX_EPISODES),
        ("--envs", a.envs, 1, MAX_ENVS),
        ("--seed", a.seed, 0, 2**32 - 1),
    ):
        bounded(flag, v, low, high)
    cfg = TrainConfig(
        kind=a.target,
        out=a.out,
        device=_device(a.device),
        seed=a.seed,
        episodes=a.episodes,
        steps=a.steps,
        dagger_rounds=a.dagger,
        batch_size=a.batch_size,
        threads=a.threads,
        eval_episodes=a.eval_episodes,
        n_envs=a.envs,
        command="deps " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["train"] else "",
    )
    try:
        card = train(cfg, progress=not a.quiet)
    except LearnedError as e:
        raise SettingsError(str(e)) from None
    print(
        f"wrote {card['file']} ({card['bytes']} bytes): "
        + ", ".join(f"{k} {v}" for k, v in card.get("measured", {}).items()),
        file=sys.stderr,
    )
    if a.json:
        sys.stdout.write(json.dumps(card, default=str) + "\n")
    return 0


def add_train_parsers(sub: argparse._SubParsersAction) -> None:
    for target, what, episodes in (
        ("controller", "the grid world's goal-conditioned policy pi(a|s,g), by behaviour cloning (+ DAgger)", 600),
        ("selector", "the grid world's horizon predictor mu(h|s,g) for the horizon selector", 600),
    ):
        p = sub.add_parser(
            target,
            help=f"train {what}",
            description=f"Train {what} on scripted-expert "
            "trajectories from the batched grid world; writes DIR/<target>.pt and its card.",
        )
        p.add_argument("--out", required=True, metavar="DIR", help="output folder for the checkpoint and its card")
        p.add_argument(
            "--device",
            default="auto",
            choices=("auto", "cpu", "cuda"),
            help="where to train (default: auto, CUDA when present)",
        )
        p.add_argument("--seed", type=int, default=0, help="seed of the worlds and the weights (default: 0)")
        p.add_argument(
            "--episodes", type=int, default=episodes, help=f"expert episodes to collect (default: {episodes})"
        )
        p.add_argument("--steps", type=int, default=3000, help="gradient steps per round (default: 3000)")
        p.add_argument(
            "--dagger",
            type=int,
            default=0,
            help="controller: DAgger rounds after behaviour cloning (default: 0; each re-plans the expert "
            "wherever the policy leaves its path: slow on a small CPU)",
        )
        p.add_argument("--batch-size", type=int, default=256, help="examples per optimizer step (default: 256)")
        p.add_argument(
            "--envs", type=int, default=16, help="grid worlds stepped at once while collecting (default: 16)"
        )
        p.add_argument(
            "--threads",
            type=int,
            default=1,
            help="torch CPU threads (default: 1, the fastest on a small or shared CPU)",
        )
        p.add_argument(
            "--eval-episodes",
            type=int,
            default=64 if target == "controller" else 0,
            help="rollouts of the trained policy on fresh worlds, for the card's success rate "
            "(default: 64 for controller; 0: none)",
        )
        p.add_argument("--quiet", action="store_true", help="no progress bar")
        p.add_argument("--json", action="store_true", help="print the card as JSON on the last line")
        p.set_defaults(fn=cmd_train_learned, target=target)
    from training.llm_cli import add_llm_parsers  # llm, llm-data: the embedded model's LoRA fine-tuning

    add_llm_parsers(sub)


def register(sub: argparse._SubParsersAction, cli: object) -> None:
    """The `deps.commands` hook: `deps train TARGET ...`."""
    tr = sub.add_parser(
        "train",
        help="train a learned part (deps train controller|selector|llm|llm-data ...)",
        description="Train a learned part; each target has its own flags (deps train TARGET --help).",
    )
    tr_sub = tr.add_subparsers(dest="target", metavar="TARGET", parser_class=type(tr), required=True)
    add_train_parsers(tr_sub)

"""`deps train llm` and `deps train llm-data`: the embedded model's fine-tuning commands,
registered into the `deps train` group by training/cli.py."""

from __future__ import annotations

import argparse
import json
import sys

from training.device import pick_device as _device  # the training commands' --device
from training.whole_game import HOLDOUT_RULE, VARIANTS  # --targets all: the split's rule


def _command() -> str:
    return "deps " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["train"] else ""


MAX_AUGMENT = 1_000  # --augment: extra examples per task
MAX_REPLANS = 100  # --replans: re-planning turns per task
MAX_BUDGET = 10_000_000  # --rider-budget, --deps-budget


def cmd_train_llm(a: argparse.Namespace) -> int:
    from training.lora import LoraTrainConfig, train_lora

    cfg = LoraTrainConfig(
        data=a.data,
        out=a.out,
        base=a.base,
        device=_device(a.device),
        seed=a.seed,
        steps=a.steps,
        epochs=a.epochs,
        lr=a.lr,
        rank=a.rank,
        alpha=a.alpha,
        batch_size=a.batch_size,
        max_len=a.max_len,
        threads=a.threads,
        layers=a.layers,
        prefix_refresh=a.prefix_refresh,
        init=a.init,
        command=_command(),
    )
    card = train_lora(cfg, progress=not a.quiet)
    print(
        f"wrote {a.out}/adapter.gguf ({card['adapter']['bytes']} bytes) after {card['train']['steps']} steps, "
        f"loss {card['train']['loss_first']} -> {card['train']['loss_last']}, {card['wall_s']} s; "
        f"serve it with --llm local:{a.out}/adapter.gguf",
        file=sys.stderr,
    )
    if a.json:
        sys.stdout.write(json.dumps(card, default=str) + "\n")
    return 0


def cmd_train_llm_data(a: argparse.Namespace) -> int:
    from nodes.settings import SettingsError
    from training.teacher import make_teacher_dataset

    if a.teacher not in ("oracle", "reader"):
        raise SettingsError(f"--teacher {a.teacher!r} not accepted; accepted: oracle, reader")
    if a.teacher == "reader" and a.targets != "all":
        raise SettingsError("--teacher reader answers the rider's questions; it goes with --targets all")
    from nodes.settings import bounded

    bounded("--augment", a.augment, 0, MAX_AUGMENT)  # examples per task: each is a prompt and a plan
    bounded("--replans", a.replans, 0, MAX_REPLANS)  # each runs the text world again
    if a.targets == "all":
        return _whole_game(a)
    if a.targets != "suites":
        raise SettingsError(f"--targets {a.targets!r} not accepted; accepted: suites, all")
    card = make_teacher_dataset(
        a.out,
        [s.strip() for s in a.suite.split(",") if s.strip()],
        mc_version=a.mc_version,
        augment=a.augment,
        replans=a.replans,
        holdout=a.holdout,
        command=_command(),
        progress=not a.quiet,
        only=a.tasks,
    )
    print(
        f"wrote {a.out}/train.jsonl: {card['examples']} examples from {len(card['tasks'])} tasks "
        f"({card['counts'].get('tasks_held_out', 0)} held out)",
        file=sys.stderr,
    )
    if a.json:
        sys.stdout.write(json.dumps(card) + "\n")
    return 0


def _names(text: str, flag: str, accepted: tuple[str, ...]) -> tuple[str, ...]:
    from nodes.settings import SettingsError

    names = tuple(w.strip() for w in text.split(",") if w.strip())
    bad = [w for w in names if w not in accepted]
    if bad or not names:
        raise SettingsError(f"{flag} {text!r} not accepted; accepted: one or more of {', '.join(accepted)}")
    return names


def _whole_game(a: argparse.Namespace) -> int:
    """--targets all: every obtainable item, a held-out split by rule (training/whole_game_data.py)."""
    from nodes.settings import SettingsError
    from training.whole_game import VARIANTS
    from training.whole_game_data import make_whole_game_dataset

    for flag, v in (("--rider-budget", a.rider_budget), ("--deps-budget", a.deps_budget)):
        if not isinstance(v, int) or not 0 <= v <= MAX_BUDGET:
            raise SettingsError(f"{flag} must be 0 (no cut) to {MAX_BUDGET}, got {v}")
    card = make_whole_game_dataset(
        a.out,
        mc_version=a.mc_version,
        rule=a.holdout_rule,
        variants=_names(a.variants, "--variants", VARIANTS),
        formats=_names(a.formats, "--formats", ("rider", "deps")),
        rider_budget=a.rider_budget,
        deps_budget=a.deps_budget,
        augment=a.augment,
        replans=a.replans,
        heldout_suite=a.heldout_suite,
        episodes=a.episodes,
        rider_variants=a.rider_variants,
        teacher=a.teacher,
        deps_knowledge=a.deps_knowledge,
        history_chars=a.history_chars,
        command=_command(),
        progress=not a.quiet,
    )
    c = card["counts"]
    print(
        f"wrote {a.out}/train.jsonl: {card['examples']} examples over {c['items_train']} items "
        f"({c['items_held_out']} held out by {c['holdout_rule']})",
        file=sys.stderr,
    )
    if a.json:
        sys.stdout.write(json.dumps(card) + "\n")
    return 0


def add_llm_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "llm",
        help="LoRA fine-tuning of the embedded model on a deps-sft/1 dataset",
        description="LoRA supervised fine-tuning of the embedded model (SmolLM2-135M, the shipped "
        "GGUF's own weights) on DIR/train.jsonl; writes OUT/adapter.gguf (a llama.cpp LoRA "
        "adapter: --llm local:OUT/adapter.gguf) and OUT/card.json.",
    )
    p.add_argument("--data", required=True, metavar="DIR", help="a deps-sft/1 dataset folder (training/data.py)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder for adapter.gguf and card.json")
    p.add_argument("--base", default="smollm2", help="base model: smollm2 or a .gguf path (default: smollm2)")
    p.add_argument(
        "--device",
        default="cpu",
        choices=("auto", "cpu", "cuda"),
        help="where to train (default: cpu; auto = CUDA when present)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the adapter's weights and the data order (default: 0)")
    p.add_argument("--steps", type=int, default=None, help="optimizer steps (default: --epochs over the data)")
    p.add_argument("--epochs", type=float, default=2.0, help="passes over the data when --steps is not given")
    p.add_argument("--lr", type=float, default=5e-4, help="learning rate (default: 5e-4)")
    p.add_argument("--rank", type=int, default=8, help="LoRA rank (default: 8)")
    p.add_argument("--alpha", type=float, default=None, help="LoRA alpha (default: 2 x rank)")
    p.add_argument("--batch-size", type=int, default=4, help="examples per optimizer step (default: 4)")
    p.add_argument("--max-len", type=int, default=1536, help="tokens per example, cut from the left (default: 1536)")
    p.add_argument("--layers", type=int, default=None, help="LoRA on the top N transformer blocks only (default: all)")
    p.add_argument(
        "--prefix-refresh",
        type=int,
        default=8,
        help="steps between recomputing the shared prompt prefix's cache (default: 8)",
    )
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    p.add_argument(
        "--init",
        default=None,
        metavar="DIR",
        help="go on training the adapter a previous run wrote to DIR (its peft/ folder), or a shipped one "
        "(a folder holding adapter.gguf, e.g. agent/adapters/reader); its rank and alpha are kept; "
        "default: fresh LoRA weights",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the card as JSON on the last line")
    p.set_defaults(fn=cmd_train_llm)

    d = sub.add_parser(
        "llm-data",
        help="teacher data for `deps train llm`: the DEPS planner's prompt, the oracle's plan",
        description="Writes a deps-sft/1 dataset: for each task, the messages the DEPS planner sends "
        "for its first plan, answered by the oracle's plan in the grammar's code form.",
    )
    d.add_argument(
        "--teacher",
        default="oracle",
        help="who answers: oracle (the solver's plan or next skill; default) or reader (--targets all: the "
        "rider's questions answered by the skill their own recipe line names, training/rider_reader.py; the "
        "DEPS planner's by the plan its own dialogue spells out, training/deps_reader.py)",
    )
    d.add_argument("--suite", default="deps71,plan4mc", help="suites, comma-separated (default: deps71,plan4mc)")
    d.add_argument("--tasks", default="", help="only these task ids or groups, comma-separated (e.g. MT1,MT2,log)")
    d.add_argument(
        "--holdout",
        default="plan4mc:iron",
        metavar="SUITE:GROUP",
        help="tasks whose targets are left out entirely (default: plan4mc:iron; 'none' keeps all)",
    )
    d.add_argument(
        "--augment",
        type=int,
        default=2,
        help="extra examples per task that start part-way through the oracle's plan (default: 2)",
    )
    d.add_argument(
        "--replans",
        type=int,
        default=0,
        help="re-planning turns per task, each after the oracle's plan with one goal left out has "
        "failed in the text world, with the explainer's turn before it (default: 0)",
    )
    d.add_argument(
        "--targets",
        default="suites",
        metavar="suites|all",
        help="suites: the --suite tasks (default); all: every item the oracle obtains in the text world, "
        "with a held-out split by --holdout-rule and both planners' formats (training/whole_game.py)",
    )
    d.add_argument(
        "--holdout-rule",
        default=HOLDOUT_RULE,
        metavar="sha256:SALT:PCT",
        help=f"--targets all: hold out an item outside the deps71/plan4mc recipe trees when "
        f"sha256(SALT:item) %% 100 < PCT (default: {HOLDOUT_RULE}; 'none' holds out nothing)",
    )
    d.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"--targets all: start inventories per item (default: {','.join(VARIANTS)})",
    )
    d.add_argument("--formats", default="rider,deps", help="--targets all: rider, deps or both (default: both)")
    d.add_argument(
        "--deps-knowledge",
        default="target",
        choices=("none", "target", "tree"),
        help="--targets all: the recipe facts the DEPS turns' prompts carry, as `deps run --knowledge` "
        "(default: target)",
    )
    d.add_argument(
        "--history-chars",
        type=int,
        default=8000,
        metavar="N",
        help="--targets all --teacher reader: the DEPS turns' dialogue window, as `deps run --history-chars` "
        "(default: 8000; give the same N to the runs that use the adapter)",
    )
    d.add_argument(
        "--rider-budget",
        type=int,
        default=0,
        help="--targets all: at most this many rider turns, spread over the items (default: 0, all)",
    )
    d.add_argument(
        "--deps-budget",
        type=int,
        default=0,
        help="--targets all: at most this many DEPS turns, spread over the items (default: 0, all)",
    )
    d.add_argument(
        "--rider-variants",
        default="rotate",
        choices=("rotate", "all"),
        help="--targets all: the rider teacher's episodes: one per item, its start inventory taken in "
        "turn (rotate, the default), or one per item and start inventory (all)",
    )
    d.add_argument(
        "--heldout-suite",
        default=None,
        metavar="FILE",
        help="--targets all: also write the held-out items as a suite file for deps eval --suite FILE",
    )
    d.add_argument(
        "--episodes",
        default=None,
        metavar="FILE",
        help="--targets all: the rider teacher's episodes, read from FILE when it exists, else run and "
        "saved there (the prompts are rebuilt from them by today's prompt code)",
    )
    d.add_argument("--mc-version", default="1.11.2", help="Minecraft data version of the tasks (default: 1.11.2)")
    d.add_argument("--out", required=True, metavar="DIR", help="output folder for train.jsonl and card.json")
    d.add_argument("--quiet", action="store_true", help="no progress on stderr")
    d.add_argument("--json", action="store_true", help="print the card as JSON on the last line")
    d.set_defaults(fn=cmd_train_llm_data)

"""The episode flags shared by `deps run` and `deps eval` (and the eval harness through
`agent.cli`): how they are declared, and how they become one validated RunSettings."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields as dc_fields
from typing import Any

from nodes import registry
from nodes.settings import KNOWLEDGE, MC_VERSIONS, SHORT_GOALS, SKILL_TYPES, RunSettings


class UserError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


def _inventory(text: str | None) -> dict[str, int]:
    if not text:
        return {}
    try:
        inv = json.loads(text)
    except json.JSONDecodeError as e:
        raise UserError(
            f"--inventory is not valid JSON ({e.msg}); accepted: a JSON object such as '{{\"stone_pickaxe\": 1}}'"
        ) from None
    except RecursionError:
        raise UserError(
            "--inventory is nested too deeply; accepted: a flat JSON object such as '{\"stone_pickaxe\": 1}'"
        ) from None
    if not isinstance(inv, dict):
        raise UserError("--inventory must be a JSON object of item name to count, e.g. '{\"stone_pickaxe\": 1}'")
    return inv


def _skills(text: str | None) -> tuple[str, ...] | None:
    if not text:
        return None
    return tuple(s.strip() for s in text.split(",") if s.strip())


def _faults(text: str | None) -> str | None:
    from agent.llm.faults import FaultSpec, FaultSpecError

    try:
        FaultSpec.parse(text)
    except FaultSpecError as e:
        raise UserError(str(e)) from None
    return text


def _choices(kind: str) -> str:
    return ", ".join(registry.names(kind))


def _add_run_flags(p: argparse.ArgumentParser) -> None:
    """The episode flags: the core settings, then each registered part's own options."""
    g = p.add_argument_group("episode settings")
    g.add_argument(
        "--world",
        default="textworld",
        choices=registry.names("world"),
        metavar="NAME",
        help=f"the world to act in: {_choices('world')} (default: textworld)",
    )
    g.add_argument(
        "--mc-version",
        default="1.11.2",
        choices=MC_VERSIONS,
        help="Minecraft data version (default: 1.11.2, MineDojo's)",
    )
    g.add_argument(
        "--planner",
        default="deps",
        metavar="NAME",
        help=f"one of {_choices('planner')}, or package.module:factory (default: deps)",
    )
    g.add_argument(
        "--selector",
        default=None,
        metavar="NAME",
        help=f"one of {_choices('selector')}, or package.module:factory "
        "(default: horizon where a trained predictor exists for the world, else fixed)",
    )
    g.add_argument(
        "--controller",
        default=None,
        metavar="NAME",
        help=f"one of {_choices('controller')}, or package.module:factory "
        "(default: learned where a trained policy exists for the world, else scripted)",
    )
    g.add_argument(
        "--explainer",
        default=None,
        metavar="NAME",
        help=f"one of {_choices('explainer')}, or package.module:factory "
        "(default: the LLM where the planner has one, else the game's message)",
    )
    g.add_argument(
        "--parser",
        default=None,
        metavar="NAME",
        help=f"one of {_choices('parser')}, or package.module:factory "
        "(default: goals: code form, grammar, then embedding nearest neighbour)",
    )
    g.add_argument(
        "--describer",
        default=None,
        metavar="NAME",
        help=f"one of {_choices('describer')}, or package.module:factory "
        "(default: game: the outcome in the DEPS descriptor's words)",
    )
    g.add_argument(
        "--llm",
        default=None,
        help="local (the embedded model with the planner's shipped adapter: local:reader for "
        "rider, local:rider for the others), local:NAME or a .gguf path, PROVIDER:MODEL "
        "(openai:gpt-4o-mini) or an OpenAI-compatible base URL (default: local)",
    )
    g.add_argument(
        "--llm-timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds one LLM request may take (default: 300 for the embedded model, 60 remote)",
    )
    g.add_argument(
        "--llm-retries",
        type=int,
        default=2,
        metavar="N",
        help="extra attempts after a transient LLM fault: timeout, 429, 5xx, malformed reply; "
        "with backoff and jitter, honouring Retry-After (default: 2)",
    )
    g.add_argument(
        "--llm-faults",
        default=None,
        metavar="SPEC",
        help='inject LLM faults to test resilience, seeded, e.g. "timeout=0.1,http500=0.1,ratelimit=0.1,'
        'garbage=0.1,empty=0.05" (kinds: timeout, drop, http500, ratelimit, garbage, truncated, '
        "badutf8, empty)",
    )
    g.add_argument("--inventory", default=None, metavar="JSON", help="initial inventory, e.g. '{\"stone_pickaxe\": 1}'")
    g.add_argument(
        "--skills",
        default=None,
        metavar="LIST",
        help=f"skill types allowed, comma-separated, from {','.join(SKILL_TYPES)} (default: all)",
    )
    g.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    g.add_argument(
        "--max-rounds",
        type=int,
        default=None,
        help="re-planning rounds allowed; 0 = never (default: 12, or the one the --llm adapter was taught with)",
    )
    g.add_argument("--max-tokens", type=int, default=200_000, help="token budget of one episode (default: 200000)")
    g.add_argument(
        "--no-recipe-hints",
        dest="recipe_hints",
        action="store_false",
        help="describe failures as the paper does, without the recipe book's line for the missing item",
    )
    g.add_argument(
        "--knowledge",
        default=None,
        choices=KNOWLEDGE,
        help="recipe facts in the planner's prompt: none, target (the task's item and what the world "
        "reports missing), or tree (every item on the way) (default: target)",
    )
    g.add_argument(
        "--short-goals",
        default=None,
        choices=SHORT_GOALS,
        help="a goal that failed but left enough of its item for the rest of the plan (5 planks asked, 4 made, "
        "7 held, 5 used later): go-on counts it done and runs the next goal; replan describes, explains and "
        "plans again, as the paper does (default: go-on)",
    )
    g.add_argument("--trace-dir", default=None, metavar="DIR", help="write the episode's trace and checkpoints here")
    g.add_argument(
        "--random-drop",
        action="store_true",
        help="MP5's Random Drop: each new sub-objective first loses one finished one's items",
    )
    _add_option_flags(p)


def _dest(part: registry.Part, f: Any) -> str:
    return f"opt__{part.name}__{f.name}"


def _add_option_flags(p: argparse.ArgumentParser) -> None:
    """Each registered part's options (nodes/registry.py), one flag per dataclass field."""
    seen = {a for action in p._actions for a in action.option_strings}
    for part in registry.parts():
        fs = registry.option_fields(part)
        if not fs:
            continue
        g = p.add_argument_group(f"{part.kind} {part.name} options")
        for f in fs:
            flag = registry.flag_of(f)
            if flag in seen:
                raise ValueError(f"{part.kind} {part.name}: option flag {flag} is already taken")
            seen.add(flag)
            kw: dict[str, Any] = {"dest": _dest(part, f), "default": argparse.SUPPRESS, "help": f.metadata.get("help")}
            if isinstance(f.default, bool):
                kw["action"] = "store_false" if f.default else "store_true"
            else:
                kw["metavar"] = f.metadata.get("metavar", "VALUE")
                if isinstance(f.default, int):
                    kw["type"] = int
                elif isinstance(f.default, float):
                    kw["type"] = float
            g.add_argument(flag, **kw)


def _options(a: argparse.Namespace) -> dict[str, Any]:
    """The options the user gave, per part: that part's dataclass with those fields set."""
    out: dict[str, Any] = {}
    for part in registry.parts():
        given = {f.name: getattr(a, _dest(part, f)) for f in registry.option_fields(part) if hasattr(a, _dest(part, f))}
        if given:
            cls = part.options_type()
            for f in dc_fields(cls):
                if f.name in given and "choices" in f.metadata:  # a comma-separated list
                    given[f.name] = _skills(given[f.name])
            out[part.name] = cls(**given)
    return out


def _settings(a: argparse.Namespace) -> RunSettings:
    return _settings_taught(a)[0]


def _settings_taught(a: argparse.Namespace) -> tuple[RunSettings, list[str]]:
    """The run's settings, with those its --llm adapter was taught with where no flag gave them
    (agent/llm/taught.py), and those as flags."""
    from agent.llm import taught

    defaults = RunSettings()
    settings = RunSettings(
        world=a.world,
        mc_version=a.mc_version,
        planner=a.planner,
        selector=a.selector,
        controller=a.controller,
        explainer=a.explainer,
        parser=a.parser,
        describer=a.describer,
        llm=a.llm or "local",
        inventory=_inventory(a.inventory),
        skills=_skills(a.skills),
        seed=a.seed,
        max_rounds=defaults.max_rounds if a.max_rounds is None else a.max_rounds,
        max_tokens=a.max_tokens,
        recipe_hints=a.recipe_hints,
        knowledge=a.knowledge or defaults.knowledge,
        short_goals=a.short_goals or defaults.short_goals,
        random_drop=a.random_drop,
        trace_dir=a.trace_dir,
        llm_timeout=a.llm_timeout,
        llm_retries=a.llm_retries,
        llm_faults=_faults(a.llm_faults),
        options=_options(a),
    )
    given = {k for k in taught.CORE if getattr(a, k) is not None}
    given |= {f"{part}.{name}" for part, opts in settings.options.items() for name in _given_fields(a, part)}
    filled = taught.fill(settings, given)
    return settings.validate(), filled


def _given_fields(a: argparse.Namespace, part_name: str) -> list[str]:
    part = next(p for p in registry.parts() if p.name == part_name)
    return [f.name for f in registry.option_fields(part) if hasattr(a, _dest(part, f))]

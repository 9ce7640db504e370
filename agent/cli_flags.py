"""The episode flags shared by `deps run` and `deps eval` (and the eval harness through
`agent.cli`): how they are declared, and how they become one validated RunSettings."""
from __future__ import annotations

import argparse
import json

from nodes.settings import (
    CONTROLLERS,
    MC_VERSIONS,
    PLANNERS,
    SELECTORS,
    SKILL_TYPES,
    WORLDS,
    RunSettings,
)


class UserError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""



def _inventory(text: str | None) -> dict[str, int]:
    if not text:
        return {}
    try:
        inv = json.loads(text)
    except json.JSONDecodeError as e:
        raise UserError(f"--inventory is not valid JSON ({e.msg}); accepted: a JSON object such as "
                        "'{\"stone_pickaxe\": 1}'") from None
    except RecursionError:
        raise UserError("--inventory is nested too deeply; accepted: a flat JSON object such as "
                        "'{\"stone_pickaxe\": 1}'") from None
    if not isinstance(inv, dict):
        raise UserError("--inventory must be a JSON object of item name to count, e.g. '{\"stone_pickaxe\": 1}'")
    return inv


def _skills(text: str | None) -> tuple[str, ...] | None:
    if not text:
        return None
    return tuple(s.strip() for s in text.split(",") if s.strip())


def _faults(text: str | None) -> str | None:
    from agent.llm_faults import FaultSpec, FaultSpecError

    try:
        FaultSpec.parse(text)
    except FaultSpecError as e:
        raise UserError(str(e)) from None
    return text


def _add_run_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("episode settings")
    g.add_argument("--world", default="textworld", choices=WORLDS, help="the world to act in: textworld, gridworld (minedojo is named for scripts but not in this "
                        "build: it needs MineDojo's JDK 8 build) (default: textworld)")
    g.add_argument("--mc-version", default="1.11.2", choices=MC_VERSIONS,
                   help="Minecraft data version (default: 1.11.2, MineDojo's)")
    g.add_argument("--planner", default="deps", metavar="NAME",
                   help=f"one of {', '.join(PLANNERS)}, or package.module:factory (default: deps)")
    g.add_argument("--selector", default=None, metavar="NAME",
                   help=f"one of {', '.join(SELECTORS)}, or package.module:factory "
                        "(default: horizon where a trained predictor exists for the world, else fixed)")
    g.add_argument("--controller", default=None, metavar="NAME",
                   help=f"one of {', '.join(CONTROLLERS)}, or package.module:factory "
                        "(default: learned where a trained policy exists for the world, else scripted)")
    g.add_argument("--explainer", default=None, metavar="package.module:factory",
                   help="your own explainer (default: the LLM where the planner has one, else the game's message)")
    g.add_argument("--parser", default=None, metavar="package.module:factory",
                   help="your own plan parser (default: code form, grammar, then embedding nearest neighbour)")
    g.add_argument("--describer", default=None, metavar="package.module:factory",
                   help="your own describer (default: the game's outcome in the DEPS descriptor's words)")
    g.add_argument("--llm", default=None,
                   help="local (the embedded model), PROVIDER:MODEL (openai:gpt-4o-mini) or an "
                        "OpenAI-compatible base URL (default: local)")
    g.add_argument("--llm-timeout", type=float, default=None, metavar="S",
                   help="seconds one LLM request may take (default: 300 for the embedded model, 60 remote)")
    g.add_argument("--llm-retries", type=int, default=2, metavar="N",
                   help="extra attempts after a transient LLM fault: timeout, 429, 5xx, malformed reply; "
                        "with backoff and jitter, honouring Retry-After (default: 2)")
    g.add_argument("--llm-faults", default=None, metavar="SPEC",
                   help="inject LLM faults to test resilience, seeded, e.g. \"timeout=0.1,http500=0.1,ratelimit=0.1,"
                        "garbage=0.1,empty=0.05\" (kinds: timeout, drop, http500, ratelimit, garbage, truncated, "
                        "badutf8, empty)")
    g.add_argument("--inventory", default=None, metavar="JSON", help="initial inventory, e.g. '{\"stone_pickaxe\": 1}'")
    g.add_argument("--skills", default=None, metavar="LIST",
                   help=f"skill types allowed, comma-separated, from {','.join(SKILL_TYPES)} (default: all)")
    g.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    g.add_argument("--max-rounds", type=int, default=12, help="re-planning rounds allowed; 0 = never (default: 12)")
    g.add_argument("--max-tokens", type=int, default=200_000, help="token budget of one episode (default: 200000)")
    g.add_argument("--stochastic", action="store_true",
                   help="text world: skills succeed with DEPS Table 18's rates instead of always")
    g.add_argument("--no-recipe-hints", dest="recipe_hints", action="store_false",
                   help="describe failures as the paper does, without the recipe book's line for the missing item")
    g.add_argument("--trace-dir", default=None, metavar="DIR", help="write the episode's trace and checkpoints here")
    g.add_argument("--biome", default=None, metavar="NAME",
                   help="grid world: the biome around the spawn (plains, forest, birch_forest, savanna, desert, "
                        "taiga, extreme_hills; default: the task's, else chosen by the seed)")
    g.add_argument("--random-drop", action="store_true",
                   help="MP5's Random Drop: each new sub-objective first loses one finished one's items")
    g.add_argument("--memory", default=None, metavar="DIR",
                   help="mp5: the knowledge and performer memory folder, kept across runs "
                        "(default: ~/.cache/deps-agent/mp5)")
    g.add_argument("--percipient", default=None, metavar="package.module:factory",
                   help="mp5: who answers the patroller's questions (default: the observation's symbols)")
    g.add_argument("--ablate", default=None, metavar="LIST",
                   help="mp5: modules to switch off, comma-separated: performer-memory,patroller")
    g.add_argument("--revisions", type=int, default=5, metavar="N",
                   help="rider: feedback-revisions of a skill that cannot run, before the episode gives up (default: 5)")
    g.add_argument("--no-relabel", dest="relabel", action="store_false",
                   help="rider: keep the episode's task in the prompt (no sub-task relabelling)")
    g.add_argument("--rider-cot", action="store_true",
                   help="rider: check the recipe's requirements against the inventory (one more LLM call) first")


def _settings(a: argparse.Namespace) -> RunSettings:
    return RunSettings(
        world=a.world, mc_version=a.mc_version, planner=a.planner, selector=a.selector,
        controller=a.controller, explainer=a.explainer, parser=a.parser, describer=a.describer, llm=a.llm or "local", inventory=_inventory(a.inventory), skills=_skills(a.skills),
        seed=a.seed, max_rounds=a.max_rounds, max_tokens=a.max_tokens, stochastic=a.stochastic,
        recipe_hints=a.recipe_hints,
        random_drop=a.random_drop, memory=a.memory, percipient=a.percipient, ablate=_skills(a.ablate),
        trace_dir=a.trace_dir, biome=a.biome, render=getattr(a, "render", False),
        llm_timeout=a.llm_timeout, llm_retries=a.llm_retries, llm_faults=_faults(a.llm_faults),
        revisions=a.revisions, relabel=a.relabel, rider_cot=a.rider_cot,
    ).validate()

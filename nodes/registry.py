"""The one registry of swappable parts: every world, planner, selector, controller, explainer,
describer and parser is named here once, with its factory, whether it needs an LLM, a line of
help, and its own options as a small dataclass; a planner may also name the embedded model that
plain `--llm local` means for it (`local_model`: the rider's reader adapter).

Everything that lists parts is derived from this table: the CLI's choices and `--help`, the
flags of each part's options, `RunSettings.validate`, Studio's context form, and the builders
in `agent/components.py`. A user's part joins the same way, from Python:

    from nodes.registry import register
    register("planner", "mine", "my_pkg.planner:make", help="my planner", needs_llm=True)

or, without registering, as `--planner my_pkg.planner:make` (a `package.module:factory`).

A factory is called with whichever of `llm`, `settings`, `kb` and `task` it names (all four
if it takes **kwargs). A world's factory returns the world already reset for the task.
Factories and options are given as `"module:attr"` strings and imported on first use, so
listing the parts (for `--help`) loads none of their code.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

KINDS = ("world", "planner", "selector", "controller", "explainer", "describer", "parser")


class RegistryError(ValueError):
    """A bad registration or an unknown part; one line."""


@dataclass(frozen=True)
class Part:
    kind: str
    name: str
    factory: str | Callable[..., Any]
    help: str
    needs_llm: bool = False
    options: str | type | None = None  # a dataclass whose fields (with metadata["help"]) become CLI flags
    local_model: str | None = None  # what plain `--llm local` means for this planner (None: the default adapter)

    def load(self) -> Callable[..., Any]:
        return _resolve(self.factory)

    def options_type(self) -> type | None:
        return _resolve(self.options) if self.options is not None else None


def _resolve(ref: Any) -> Any:
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


_PARTS: dict[str, dict[str, Part]] = {k: {} for k in KINDS}


def register(
    kind: str,
    name: str,
    factory: str | Callable[..., Any],
    *,
    help: str,
    needs_llm: bool = False,
    options: str | type | None = None,
    local_model: str | None = None,
    replace: bool = False,
) -> Part:
    """Add a part; `replace=True` to swap a registered one. Returns the registered Part."""
    if kind not in KINDS:
        raise RegistryError(f"unknown kind of part {kind!r}; accepted: {', '.join(KINDS)}")
    if not name or ":" in name or name != name.strip():
        raise RegistryError(f"bad {kind} name {name!r}; accepted: a short name without ':' or spaces")
    if name in _PARTS[kind] and not replace:
        raise RegistryError(f"{kind} {name!r} is already registered; pass replace=True to swap it")
    if not isinstance(options, (str, type(None))) and not is_dataclass(options):
        raise RegistryError(f"the options of {kind} {name!r} must be a dataclass")
    part = Part(kind, name, factory, help, needs_llm, options, local_model)
    _PARTS[kind][name] = part
    return part


def unregister(kind: str, name: str) -> None:
    _PARTS.get(kind, {}).pop(name, None)


def names(kind: str) -> tuple[str, ...]:
    return tuple(_PARTS[kind])


def parts(kind: str | None = None) -> list[Part]:
    kinds = (kind,) if kind else KINDS
    return [p for k in kinds for p in _PARTS[k].values()]


def get(kind: str, name: str) -> Part:
    """The registered part, or a one-line error naming what is registered."""
    try:
        return _PARTS[kind][name]
    except KeyError:
        accepted = ", ".join(names(kind)) or "none registered"
        raise RegistryError(f"unknown {kind} {name!r}; accepted: {accepted}, or package.module:factory") from None


def wanted(factory: Callable[..., Any], offered: tuple[str, ...] = ("llm", "settings", "kb", "task")) -> set[str]:
    """The keyword arguments among `offered` that `factory` accepts."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return set()
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return set(offered)
    return set(offered) & set(params)


def call(factory: Callable[..., Any], **offered: Any) -> Any:
    """Call `factory` with what it asks for among `offered` (its signature read once, not per argument)."""
    asked = wanted(factory, tuple(offered))
    return factory(**{k: v for k, v in offered.items() if k in asked})


def option_fields(part: Part) -> list[Any]:
    """The dataclass fields of a part's options (empty when it has none)."""
    cls = part.options_type()
    return list(fields(cls)) if cls is not None else []


def flag_of(f: Any) -> str:
    """The CLI flag of an option field: metadata["flag"], else --field-name."""
    return f.metadata.get("flag") or "--" + f.name.replace("_", "-")


# --- each part's own options -------------------------------------------------------------------


@dataclass
class TextWorldOptions:
    stochastic: bool = field(
        default=False, metadata={"help": "text world: skills succeed with DEPS Table 18's rates instead of always"}
    )


@dataclass
class GridWorldOptions:
    biome: str | None = field(
        default=None,
        metadata={
            "help": "grid world: the biome around the spawn (plains, forest, birch_forest, savanna, desert, taiga, "
            "extreme_hills, jungle, swampland, ice_plains, sunflower_plains, flower_forest, or the hills forest_hills, "
            "birch_forest_hills, taiga_hills, desert_hills; default: the task's, else chosen by the seed)",
            "metavar": "NAME",
        },
    )
    render: bool = field(default=False, metadata={"help": "grid world: draw the local view on stderr while it runs"})


@dataclass
class RiderOptions:
    revisions: int = field(
        default=5,
        metadata={
            "help": "rider: feedback-revisions of a skill that cannot run, before the episode gives up (default: 5)",
            "metavar": "N",
            "bounds": (0, 100),
        },
    )
    relabel: bool = field(
        default=True,
        metadata={
            "help": "rider: keep the episode's task in the prompt (no sub-task relabelling)",
            "flag": "--no-relabel",
        },
    )
    rider_cot: bool = field(
        default=False,
        metadata={"help": "rider: check the recipe's requirements against the inventory (one more LLM call) first"},
    )


@dataclass
class DialogueOptions:
    history_chars: int = field(
        default=8000,
        metadata={
            "help": "deps, dep: characters of the dialogue's earlier rounds kept in each prompt, the first plan "
            "and the newest rounds (default: 8000; the embedded model's context is 4096 tokens)",
            "metavar": "N",
            "bounds": (500, 200000),
        },
    )
    recipe_grammar: bool = field(
        default=False,
        metadata={
            "help": "deps, dep: with the embedded model, each plan line also holds to the knowledge base's facts: "
            "a craft line's materials come from its item's recipe, a smelt line's input is what the furnace turns "
            "into its item, a mine line gathers what a block drops (default: item names only)"
        },
    )
    relay: str = field(
        default="auto",
        metadata={
            "help": "deps: the model that takes the dialogue over once the first plan fails, in a dialogue of its "
            "own and with the settings it was taught (local:NAME, a shipped adapter); auto: local:deps-reader "
            "where --llm is the default embedded model, else none (default: auto)",
            "metavar": "MODEL",
            "names": ("auto", "none"),
            "prefixes": ("local:",),
        },
    )


ABLATABLE = ("performer-memory", "patroller")  # MP5 Table 7's ablations (--ablate)


@dataclass
class MP5Options:
    memory: str | None = field(
        default=None,
        metadata={
            "help": "mp5: the knowledge and performer memory folder, kept across runs (default: ~/.cache/deps-agent/mp5)",
            "metavar": "DIR",
        },
    )
    percipient: str | None = field(
        default=None,
        metadata={
            "help": "mp5: who answers the patroller's questions (default: the observation's symbols)",
            "metavar": "package.module:factory",
            "plugin": True,
        },
    )
    ablate: tuple[str, ...] | None = field(
        default=None,
        metadata={
            "help": "mp5: modules to switch off, comma-separated: performer-memory,patroller",
            "metavar": "LIST",
            "choices": ABLATABLE,
        },
    )


# --- the built-in parts, each named once ---------------------------------------------------------

_P = "nodes.planners"
for _kind, _name, _factory, _help, _llm, _opts, *_local in (
    (
        "world",
        "textworld",
        "worlds.textworld:make_world",
        "MC-TextWorld semantics: inventory, recipes and mining rules from minecraft-data",
        False,
        TextWorldOptions,
    ),
    (
        "world",
        "gridworld",
        "worlds.gridworld.factory:make_world",
        "a seeded voxel world with biomes, depths, mobs, day and night",
        False,
        GridWorldOptions,
    ),
    (
        "world",
        "mineflayer",
        "worlds.mineflayer:make_world",
        "a real Minecraft server, played by a mineflayer bot through a Node sidecar",
        False,
        "worlds.mineflayer.world:MineflayerOptions",
    ),
    (
        "world",
        "minedojo",
        "worlds.minedojo:make_world",
        "MineDojo's observations and MultiDiscrete actions: its stand-in simulator, or the real one (Java 8)",
        False,
        "worlds.minedojo:MineDojoOptions",
    ),
    (
        "planner",
        "deps",
        f"{_P}.llm:deps_planner",
        "describe, explain, plan (one growing dialogue), with a selector",
        True,
        DialogueOptions,
    ),
    ("planner", "dep", f"{_P}.llm:dep_planner", "the same loop as deps, goals run in plan order", True, None),
    (
        "planner",
        "zero-shot",
        f"{_P}.baselines:zero_shot",
        "plan once from the task (DEPS baseline)",
        True,
        f"{_P}.baselines:ZeroShotOptions",
    ),
    (
        "planner",
        "progprompt",
        f"{_P}.baselines:progprompt",
        "plan once as a program (DEPS baseline)",
        True,
        f"{_P}.baselines:ProgPromptOptions",
    ),
    (
        "planner",
        "cot",
        f"{_P}.baselines:chain_of_thought",
        "plan once after reasoning (DEPS baseline)",
        True,
        f"{_P}.baselines:CoTOptions",
    ),
    (
        "planner",
        "inner-monologue",
        f"{_P}.baselines:InnerMonologuePlanner",
        "one goal at a time from the scene and success feedback (DEPS baseline)",
        True,
        f"{_P}.baselines:InnerMonologueOptions",
    ),
    (
        "planner",
        "code-as-policies",
        f"{_P}.baselines:code_as_policies",
        "a program with assertions, re-planned on the game's message (DEPS baseline)",
        True,
        f"{_P}.baselines:CodeAsPoliciesOptions",
    ),
    (
        "planner",
        "rider",
        f"{_P}.rider:make_rider",
        "LLaMA-Rider: one skill a round, feedback-revision, sub-task relabelling",
        True,
        RiderOptions,
        "reader",  # the reader adapter: 87 of 106 held-out items, 34/40 plan4mc (docs/results/held-out-items.md)
    ),
    (
        "planner",
        "mp5",
        f"{_P}.mp5.planner:MP5Planner",
        "MP5: parser, percipient, performer memory and patroller",
        True,
        MP5Options,
    ),
    ("planner", "oracle", f"{_P}.oracle:OraclePlanner", "the shortest plan from the recipe data (no LLM)", False, None),
    ("selector", "fixed", "nodes.selectors:FixedSelector", "plan order (DEP)", False, None),
    (
        "selector",
        "ready",
        "nodes.selectors:ReadySelector",
        "the first goal in plan order whose preconditions hold",
        False,
        None,
    ),
    (
        "selector",
        "unstick",
        "nodes.selectors:UnstickSelector",
        "plan order, passing over a goal the world refused before while a later one can run",
        False,
        None,
    ),
    (
        "selector",
        "random",
        "nodes.selectors:random_selector",
        "a random goal among those whose preconditions hold",
        False,
        None,
    ),
    (
        "selector",
        "horizon",
        "nodes.horizon:make_horizon_selector",
        "DEPS's learned horizon predictor: the goal nearest to reach",
        False,
        None,
    ),
    ("selector", "oracle", "nodes.selectors:OracleSelector", "the candidate the world says is cheapest", False, None),
    (
        "controller",
        "scripted",
        "skills.controller:make_scripted",
        "the world's unit skills (text world) or the scripted experts (grid world)",
        False,
        None,
    ),
    (
        "controller",
        "learned",
        "skills.controller:make_learned",
        "the torch goal-conditioned policy (grid world)",
        False,
        "skills.learned.options:LearnedOptions",
    ),
    ("explainer", "llm", "nodes.explain:LLMExplainer", "the LLM explains the failure (DEPS)", True, None),
    ("explainer", "game", "nodes.explain:GameMessageExplainer", "the game's own message, no LLM", False, None),
    ("describer", "game", "nodes.describe:make_describer", "the outcome in the DEPS descriptor's words", False, None),
    (
        "parser",
        "goals",
        "nodes.parse:GoalParser",
        "code form, then a small grammar, then embedding nearest neighbour",
        False,
        None,
    ),
):
    register(
        _kind, _name, _factory, help=_help, needs_llm=_llm, options=_opts, local_model=_local[0] if _local else None
    )

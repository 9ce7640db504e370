"""Run settings: everything a user chooses for one episode or one evaluation.

These are the CLI flags of docs/cli.md as one typed object; the graph reads them through
its runtime context (nodes/context.py), never through globals.
"""
from __future__ import annotations

import re
import urllib.parse
from dataclasses import asdict, dataclass, field
from typing import Any

from worlds.types import ACTIONS

WORLDS = ("textworld", "gridworld", "minedojo")
MC_VERSIONS = ("1.11.2", "1.16.5", "1.19.2")
PLANNERS = (
    "deps", "dep", "zero-shot", "progprompt", "cot", "inner-monologue",
    "code-as-policies", "rider", "mp5", "oracle",
)
SELECTORS = ("fixed", "random", "horizon", "oracle")
CONTROLLERS = ("scripted", "learned")
ABLATABLE = ("performer-memory", "patroller")   # MP5 Table 7's ablations (--ablate)
SKILL_TYPES = ACTIONS               # the skill types a plan may use (worlds.types)


_SECRETISH = re.compile(r"^(?=.*\d)[A-Za-z0-9_\-.]{20,}$|^(sk|pk|key|tok)[-_][A-Za-z0-9_\-]{8,}$", re.I)


def redact_llm(spec: str) -> str:
    """An --llm value fit to show or store: a URL loses its user:password@, its query string and
    any path segment that looks like a token; other values are returned as they are. Every place
    that prints or writes the --llm value (settings, summaries, reports, traces) goes through it."""
    text = str(spec)
    if "://" not in text:
        return text
    base, hash_, model = text.partition("#")
    try:
        parts = urllib.parse.urlsplit(base)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "***"          # not a URL we can take apart: show none of it
    if ":" in host:
        host = f"[{host}]"
    if port:
        host = f"{host}:{port}"
    if parts.username or parts.password:
        host = "***@" + host
    path = "/".join("***" if _SECRETISH.match(seg) else seg for seg in parts.path.split("/"))
    return urllib.parse.urlunsplit((parts.scheme, host, path, "***" if parts.query else "", "")) + hash_ + model


class SettingsError(ValueError):
    """A bad setting; the message is one line: what was wrong and what is accepted."""


# Bounds on every number a user gives: a count past these is a typo, and would otherwise mean
# unbounded work or memory (or a seed that no store can keep).
MAX_SEED = 2**53 - 1             # exact in JSON and every store (an eval's base seed: evaluation.runner)
MAX_ROUNDS = 1_000_000        # a sweep's "inf" (evaluation.sweep.INF_ROUNDS)
MAX_TOKENS = 100_000_000
MAX_LLM_RETRIES = 20
MAX_LLM_TIMEOUT_S = 3600.0
MAX_COUNT = 1_000_000            # items of one kind, in an inventory or a goal
MAX_INVENTORY_KINDS = 10_000


def bounded(name: str, value: Any, low: int, high: int) -> int:
    """`value` as a whole number in [low, high], else SettingsError naming the flag and the bounds."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise SettingsError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    return value


_PLUGIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")


def plugin_spec(flag: str, spec: str, names: tuple[str, ...]) -> str:
    """`spec` if it has the form package.module:factory, else SettingsError naming what is accepted."""
    if not isinstance(spec, str) or len(spec) > 500 or not _PLUGIN.match(spec):
        choices = f"one of {', '.join(names)}, or " if names else ""
        raise SettingsError(f"bad --{flag} {str(spec)[:80]!r}; accepted: {choices}package.module:factory")
    return spec


@dataclass
class RunSettings:
    world: str = "textworld"
    mc_version: str = "1.11.2"
    planner: str = "deps"
    selector: str | None = None      # None: horizon where a trained one exists, else fixed
    controller: str | None = None    # None: learned where a trained one exists, else scripted
    explainer: str | None = None     # None: the LLM where the planner has one, else the game's message
    parser: str | None = None        # None: code form, then grammar, then embedding nearest neighbour
    describer: str | None = None     # None: the game's outcome in the DEPS descriptor's words
    llm: str = "local"
    inventory: dict[str, int] = field(default_factory=dict)
    skills: tuple[str, ...] | None = None   # allowed skill types; None = all
    seed: int = 0
    max_rounds: int = 12
    max_tokens: int = 200_000        # token budget (in + out) for one episode
    stochastic: bool = False         # text world: per-skill success rates of DEPS Table 18
    recipe_hints: bool = True        # descriptions add the recipe book's line for a missing item
    trace_dir: str | None = None
    random_drop: bool = False        # MP5's Random Drop: a new goal first loses one done goal's items
    memory: str | None = None        # mp5: the memory folder (None: ~/.cache/deps-agent/mp5)
    percipient: str | None = None    # mp5: package.module:factory answering questions (None: symbols)
    ablate: tuple[str, ...] | None = None  # mp5 modules switched off: performer-memory, patroller
    biome: str | None = None         # grid world: the biome around the spawn (None: the task's, else by seed)
    render: bool = False             # grid world: draw the local view on stderr while it runs
    llm_timeout: float | None = None  # seconds per LLM request (None: 300 for the embedded model, 60 remote)
    llm_retries: int = 2             # extra attempts after a transient LLM fault
    llm_faults: str | None = None    # inject faults at the wire, e.g. "timeout=0.1,http500=0.1" (agent/llm_faults.py)
    revisions: int = 5               # rider: feedback-revisions allowed per skill before it gives up (T)
    relabel: bool = True             # rider: sub-task relabelling (the prompt's task is the item being worked on)
    rider_cot: bool = False          # rider: ask the recipe requirement check (chain of thought) before each skill

    def validate(self) -> "RunSettings":
        def check(name: str, value: Any, accepted: tuple[str, ...]) -> None:
            if value not in accepted:
                raise SettingsError(f"unknown {name} {value!r}; accepted: {', '.join(accepted)}")

        check("world", self.world, WORLDS)
        check("mc-version", self.mc_version, MC_VERSIONS)
        for name, accepted in (("planner", PLANNERS), ("selector", SELECTORS), ("controller", CONTROLLERS)):
            spec = getattr(self, name)
            if spec is None:
                continue
            if ":" in spec:   # package.module:factory loads a user's own
                plugin_spec(name, spec, accepted)
            else:
                check(name, spec, accepted)
        for name in ("explainer", "parser", "describer", "percipient"):
            spec = getattr(self, name)
            if spec is not None:
                plugin_spec(name, spec, ())
        for s in self.skills or ():
            check("skill type", s, SKILL_TYPES)
        for part in self.ablate or ():
            check("--ablate part", part, ABLATABLE)
        bounded("--seed", self.seed, 0, MAX_SEED)
        bounded("--max-rounds", self.max_rounds, 0, MAX_ROUNDS)
        bounded("--max-tokens", self.max_tokens, 1, MAX_TOKENS)
        bounded("--llm-retries", self.llm_retries, 0, MAX_LLM_RETRIES)
        bounded("--revisions", self.revisions, 0, 100)
        if self.llm_timeout is not None and (isinstance(self.llm_timeout, bool)
                                             or not 0 < self.llm_timeout <= MAX_LLM_TIMEOUT_S):
            raise SettingsError(f"--llm-timeout must be above 0 and at most {MAX_LLM_TIMEOUT_S:g} seconds, "
                                f"got {self.llm_timeout!r}")
        if len(self.inventory) > MAX_INVENTORY_KINDS:
            raise SettingsError(f"the inventory names {len(self.inventory)} kinds of item; accepted: at most "
                                f"{MAX_INVENTORY_KINDS}")
        for k, v in self.inventory.items():
            if not isinstance(k, str) or not k.strip() or not isinstance(v, int) or isinstance(v, bool) \
                    or not 0 <= v <= MAX_COUNT:
                raise SettingsError(
                    f"bad inventory entry {k!r}: {v!r}; accepted: a JSON object of item name to whole count "
                    f"from 0 to {MAX_COUNT}, e.g. '{{\"stone_pickaxe\": 1}}'"
                )
        return self

    def to_dict(self) -> dict[str, Any]:
        """The settings as stored in run.json and traces: the --llm value redacted (redact_llm)."""
        d = asdict(self)
        d["llm"] = redact_llm(self.llm)
        d["skills"] = list(self.skills) if self.skills else None
        d["ablate"] = list(self.ablate) if self.ablate else None
        return d

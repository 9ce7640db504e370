"""Run settings: everything a user chooses for one episode or one evaluation.

These are the CLI flags of CONTRACT.md as one typed object; the graph reads them through
its runtime context (nodes/context.py), never through globals.
"""
from __future__ import annotations

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


class SettingsError(ValueError):
    """A bad setting; the message is one line: what was wrong and what is accepted."""


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

    def validate(self) -> "RunSettings":
        def check(name: str, value: Any, accepted: tuple[str, ...]) -> None:
            if value not in accepted:
                raise SettingsError(f"unknown {name} {value!r}; accepted: {', '.join(accepted)}")

        check("world", self.world, WORLDS)
        check("mc-version", self.mc_version, MC_VERSIONS)
        if ":" not in self.planner:  # package.module:factory loads a user's own planner
            check("planner", self.planner, PLANNERS)
        if self.selector is not None and ":" not in self.selector:   # package.module:factory: a user's own
            check("selector", self.selector, SELECTORS)
        if self.controller is not None and ":" not in self.controller:
            check("controller", self.controller, CONTROLLERS)
        for name in ("explainer", "parser", "describer"):
            spec = getattr(self, name)
            if spec is not None and (":" not in spec or spec.startswith(":") or spec.endswith(":")):
                raise SettingsError(f"bad --{name} {spec!r}; accepted: package.module:factory")
        for s in self.skills or ():
            check("skill type", s, SKILL_TYPES)
        for part in self.ablate or ():
            check("--ablate part", part, ABLATABLE)
        if self.max_rounds < 0:
            raise SettingsError(f"--max-rounds must be 0 or more, got {self.max_rounds}")
        for k, v in self.inventory.items():
            if not isinstance(k, str) or not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise SettingsError(
                    f"bad inventory entry {k!r}: {v!r}; accepted: a JSON object of item name to whole count, "
                    "e.g. '{\"stone_pickaxe\": 1}'"
                )
        return self

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["skills"] = list(self.skills) if self.skills else None
        d["ablate"] = list(self.ablate) if self.ablate else None
        return d

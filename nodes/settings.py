"""Run settings: everything a user chooses for one episode or one evaluation.

These are the CLI flags of docs/cli.md as one typed object; the graph reads them through
its runtime context (nodes/context.py), never through globals.
"""

from __future__ import annotations

import hashlib
import re
import urllib.parse
from dataclasses import asdict, dataclass, field
from typing import Any

from worlds.types import ACTIONS

MC_VERSIONS = ("1.11.2", "1.16.5", "1.19.2")
SKILL_TYPES = ACTIONS  # the skill types a plan may use (worlds.types)
SHORT_GOALS = ("go-on", "replan")  # --short-goals (nodes/enough.py), the default first
KNOWLEDGE = ("none", "target", "tree")  # how much of the recipe book a planner's prompt carries (--knowledge)
# The parts' names (worlds, planners, selectors, controllers...) live in one place: nodes/registry.py.


def redact_llm(spec: str) -> str:
    """An --llm value fit to show or store. A URL keeps its scheme, host and port only, plus a
    short hash (8 hex digits of sha256 over the host, port, path, query and fragment, never the
    user info) that tells two endpoints apart: `http://u:pw@h:8000/tok/v1#m` becomes
    `http://h:8000~1a2b3c4d`. Its user info, path, query and fragment (the model) are never shown
    or stored, whatever they look like. Other values (local, openai:gpt-4o-mini) are returned as
    they are. Every place that prints or writes the --llm value goes through this one function."""
    text = str(spec).strip()
    if "://" not in text:
        return text
    try:
        parts = urllib.parse.urlsplit(text)
        host = parts.hostname or ""
        port = parts.port
        scheme = parts.scheme.lower()
    except ValueError:
        return "***"  # not a URL we can take apart: show none of it
    if not re.fullmatch(r"[a-z][a-z0-9+.-]{0,15}", scheme) or not re.fullmatch(r"[A-Za-z0-9._:%-]{0,255}", host):
        return "***"
    shown = f"[{host}]" if ":" in host else host
    if port:
        shown = f"{shown}:{port}"
    m = re.match(r"([^/?#]*)(.*)", text.split("://", 1)[1], re.S)
    assert m is not None  # both groups match the empty string
    authority, tail = m.groups()
    rest = authority.rpartition("@")[2] + tail
    digest = hashlib.sha256(rest.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{scheme}://{shown}~{digest}"


_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s,'\"]*")


def redact_text(text: str) -> str:
    """`text` (a command line, an error message) with every URL in it as redact_llm shows it."""
    return _URL_IN_TEXT.sub(lambda m: redact_llm(m.group(0)), str(text))


def local_llm_for(llm: str, planner: str) -> str:
    """Plain `local` names the embedded model that `planner` ships with, where its registry entry
    names one (the rider planner: `local:reader`); every other spec, and `local` for the other
    planners (the suites adapter, `local:rider`), is kept as written."""
    if llm.strip().lower() != "local" or ":" in planner:
        return llm
    from nodes import registry

    try:
        model = registry.get("planner", planner).local_model
    except ValueError:
        return llm  # an unknown planner is reported by validate()
    return f"local:{model}" if model else llm


class SettingsError(ValueError):
    """A bad setting; the message is one line: what was wrong and what is accepted."""


# Bounds on every number a user gives: a count past these is a typo, and would otherwise mean
# unbounded work or memory (or a seed that no store can keep).
MAX_SEED = 2**53 - 1  # exact in JSON and every store (an eval's base seed: evaluation.runner)
MAX_ROUNDS = 1_000_000  # a sweep's "inf" (evaluation.sweep.INF_ROUNDS)
MAX_TOKENS = 100_000_000
MAX_LLM_RETRIES = 20
MAX_LLM_TIMEOUT_S = 3600.0
MAX_COUNT = 1_000_000  # items of one kind, in an inventory or a goal
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
    """The core of an episode's settings; each part's own options (the rider's revisions, the grid
    world's biome...) are in `options`, keyed by the part's name (see `option`)."""

    world: str = "textworld"
    mc_version: str = "1.11.2"
    planner: str = "deps"
    selector: str | None = None  # None: horizon where a trained one exists, else fixed
    controller: str | None = None  # None: learned where a trained one exists, else scripted
    explainer: str | None = None  # None: the LLM where the planner has one, else the game's message
    parser: str | None = None  # None: code form, then grammar, then embedding nearest neighbour
    describer: str | None = None  # None: the game's outcome in the DEPS descriptor's words
    llm: str = "local"
    inventory: dict[str, int] = field(default_factory=dict)
    skills: tuple[str, ...] | None = None  # allowed skill types; None = all
    seed: int = 0
    max_rounds: int = 12
    max_tokens: int = 200_000  # token budget (in + out) for one episode
    recipe_hints: bool = True  # descriptions add the recipe book's line for a missing item
    knowledge: str = "target"  # recipe facts in planner prompts: none, target (and what is missing), tree
    short_goals: str = SHORT_GOALS[0]  # a failed goal with enough left for the rest of its plan: go-on, replan
    trace_dir: str | None = None
    random_drop: bool = False  # MP5's Random Drop: a new goal first loses one done goal's items
    llm_timeout: float | None = None  # seconds per LLM request (None: 300 for the embedded model, 60 remote)
    llm_retries: int = 2  # extra attempts after a transient LLM fault
    llm_faults: str | None = None  # inject faults at the wire, e.g. "timeout=0.1,http500=0.1" (agent/llm/faults.py)
    options: dict[str, Any] = field(default_factory=dict)  # part name -> its options dataclass (nodes/registry.py)

    def __post_init__(self) -> None:
        self.llm = local_llm_for(self.llm, self.planner)

    def option(self, part: str) -> Any:
        """The options of the part named `part` (its dataclass; the defaults when none were given)."""
        if part in self.options:
            return self.options[part]
        from nodes.registry import KINDS, get

        for kind in KINDS:
            try:
                cls = get(kind, part).options_type()
            except ValueError:
                continue
            if cls is not None:
                return cls()  # the defaults, not stored: the settings stay as they were given
        raise SettingsError(f"no part named {part!r} has options")

    @classmethod
    def from_dict(cls, stored: dict[str, Any]) -> RunSettings:
        """Settings back from `to_dict()` (a trace's start record, a run.json); unknown keys are
        dropped, lists become the tuples they were."""
        values = {k: v for k, v in stored.items() if k in cls.__dataclass_fields__ and k != "options"}
        values["skills"] = tuple(values["skills"]) if values.get("skills") else None
        values.setdefault("short_goals", "replan")  # stored before the field: every failure re-planned then
        settings = cls(**values)
        if "llm" in values:  # as stored: a run from before a planner had its own adapter resumes as it ran
            settings.llm = values["llm"]
        for part, given in (stored.get("options") or {}).items():
            settings.configure(part, **{k: tuple(v) if isinstance(v, list) else v for k, v in given.items()})
        return settings

    def configure(self, part: str, **values: Any) -> RunSettings:
        """Set some of a part's options (the rest keep their defaults); returns the settings:
        `RunSettings(planner="rider").configure("rider", revisions=2)`."""
        from dataclasses import replace

        self.options[part] = replace(self.option(part), **values)
        return self

    def validate(self) -> RunSettings:
        def check(name: str, value: Any, accepted: tuple[str, ...]) -> None:
            if value not in accepted:
                raise SettingsError(f"unknown {name} {value!r}; accepted: {', '.join(accepted)}")

        from nodes.registry import flag_of, names, option_fields, parts

        check("mc-version", self.mc_version, MC_VERSIONS)
        check("knowledge", self.knowledge, KNOWLEDGE)
        check("short-goals", self.short_goals, SHORT_GOALS)
        check("world", self.world, names("world"))
        for name in ("planner", "selector", "controller", "explainer", "parser", "describer"):
            spec = getattr(self, name)
            if spec is None:
                continue
            if ":" in spec:  # package.module:factory loads a user's own
                plugin_spec(name, spec, names(name))
            elif spec not in names(name):
                raise SettingsError(
                    f"unknown --{name} {spec!r}; accepted: {', '.join(names(name))}, or package.module:factory"
                )
        known = {p.name: p for p in parts() if p.options is not None}
        for part_name, opts in self.options.items():
            if part_name not in known:
                raise SettingsError(
                    f"options given for {part_name!r}, which has none; accepted: {', '.join(sorted(known))}"
                )
            part = known[part_name]
            chosen = getattr(self, part.kind, None)
            given = [flag_of(f) for f in option_fields(part) if getattr(opts, f.name) != f.default]
            if chosen and ":" not in chosen and chosen != part_name and given:
                one = len(given) == 1
                raise SettingsError(
                    f"{', '.join(given)} {'belongs' if one else 'belong'} to the {part_name} "
                    f"{part.kind}, and this run's {part.kind} is {chosen}; accepted: drop "
                    f"{'it' if one else 'them'}, or --{part.kind} {part_name}"
                )
            for f in option_fields(part):
                _check_option(f, getattr(opts, f.name))
        for s in self.skills or ():
            check("skill type", s, SKILL_TYPES)
        bounded("--seed", self.seed, 0, MAX_SEED)
        bounded("--max-rounds", self.max_rounds, 0, MAX_ROUNDS)
        bounded("--max-tokens", self.max_tokens, 1, MAX_TOKENS)
        bounded("--llm-retries", self.llm_retries, 0, MAX_LLM_RETRIES)
        if self.llm_timeout is not None and (
            isinstance(self.llm_timeout, bool) or not 0 < self.llm_timeout <= MAX_LLM_TIMEOUT_S
        ):
            raise SettingsError(
                f"--llm-timeout must be above 0 and at most {MAX_LLM_TIMEOUT_S:g} seconds, got {self.llm_timeout!r}"
            )
        if len(self.inventory) > MAX_INVENTORY_KINDS:
            raise SettingsError(
                f"the inventory names {len(self.inventory)} kinds of item; accepted: at most {MAX_INVENTORY_KINDS}"
            )
        for k, v in self.inventory.items():
            if (
                not isinstance(k, str)
                or not k.strip()
                or not isinstance(v, int)
                or isinstance(v, bool)
                or not 0 <= v <= MAX_COUNT
            ):
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
        d["options"] = {k: asdict(v) for k, v in sorted(self.options.items())}
        return d


def _check_option(f: Any, value: Any) -> None:
    """One option's value against what its field's metadata accepts (bounds, choices, plugin form)."""
    from nodes.registry import flag_of

    flag, meta = flag_of(f), f.metadata
    if "bounds" in meta:
        bounded(flag, value, *meta["bounds"])
    for v in (value if isinstance(value, (tuple, list)) else ()) if "choices" in meta else ():
        if v not in meta["choices"]:
            raise SettingsError(f"unknown {flag} value {v!r}; accepted: {', '.join(meta['choices'])}")
    if "names" in meta:  # one of `names`, or a name after one of `prefixes`
        prefixes = tuple(meta.get("prefixes", ()))
        text = value if isinstance(value, str) else ""
        if text not in meta["names"] and not any(text.startswith(p) and len(text) > len(p) for p in prefixes):
            forms = [*meta["names"], *(f"{p}NAME" for p in prefixes)]
            raise SettingsError(f"unknown {flag} value {str(value)[:80]!r}; accepted: {', '.join(forms)}")
    if meta.get("plugin") and value is not None:
        plugin_spec(flag.lstrip("-"), value, ())

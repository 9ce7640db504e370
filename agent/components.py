"""Build an episode's parts by name from the one registry (nodes/registry.py): world, planner,
parser, selector, controller, explainer, describer.

A name is looked up in the registry; `package.module:factory` loads a user's own. Either way
the factory is called with whichever of `llm=`, `settings=`, `kb=` and `task=` it names, so a
part that wants the episode's LLM gets the open one.
"""

from __future__ import annotations

import importlib
from typing import Any

from nodes import registry
from nodes.planners.base import FunctionPlanner
from nodes.selectors import default_selector
from nodes.settings import RunSettings, SettingsError
from skills.controller import default_controller
from worlds.base import WorldError

PART_FLAGS = ("planner", "parser", "selector", "controller", "explainer", "describer")


def load_object(spec: str) -> Any:
    """'package.module:name' -> the object; one-line SettingsError when it is not there."""
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
        return getattr(module, attr)
    except (ImportError, AttributeError) as e:
        raise SettingsError(
            f"cannot load {spec!r} ({e}); accepted: package.module:factory on the Python path"
        ) from None
    except SyntaxError as e:
        raise SettingsError(f"cannot load {spec!r}: syntax error in {e.filename}, line {e.lineno}: {e.msg}") from None
    except Exception as e:  # noqa: BLE001 - the plugin's own code failed while importing: say which and why
        raise SettingsError(
            f"cannot load {spec!r}: importing {module_name} raised {type(e).__name__}: {' '.join(str(e).split())[:200]}"
        ) from None


def _factory(kind: str, name: str) -> Any:
    """The factory of a registered part or of a `package.module:factory` spec."""
    if ":" in name:
        return load_object(name)
    try:
        return registry.get(kind, name).load()
    except registry.RegistryError as e:
        raise SettingsError(str(e)) from None


def build(kind: str, name: str, **offered: Any) -> Any:
    """The part `name` of `kind`, its factory given what it asks for among `offered`."""
    return registry.call(_factory(kind, name), **offered)


def build_custom(spec: str, **offered: Any) -> Any:
    """A user's part from `package.module:factory`, given what it asks for."""
    return registry.call(load_object(spec), **offered)


def needs_llm(settings: RunSettings) -> bool:
    """Does the episode need an LLM opened: a registered part that plans or explains with one,
    or a user's part whose factory asks for `llm`."""
    for kind in PART_FLAGS:
        name = getattr(settings, kind)
        if not name:
            continue
        if ":" in name:
            if "llm" in registry.wanted(load_object(name)):
                return True
        elif registry.get(kind, name).needs_llm:
            return True
    return False


def make_world(settings: RunSettings, kb: Any, task: Any) -> Any:
    try:
        return build("world", settings.world, settings=settings, kb=kb, task=task)
    except WorldError as e:  # an unknown biome, a server that refuses: one line
        raise SettingsError(str(e)) from None


def make_planner(settings: RunSettings, llm: Any, kb: Any = None) -> Any:
    obj = build("planner", settings.planner, llm=llm, settings=settings, kb=kb)
    return obj if hasattr(obj, "plan") else FunctionPlanner(obj)


def make_selector(settings: RunSettings) -> Any:
    # dep and mp5 run their plans in order (mp5's actions are sequences per sub-objective)
    name = settings.selector or ("fixed" if settings.planner in ("dep", "mp5") else default_selector(settings.world))
    return build("selector", name, settings=settings)


def make_controller(settings: RunSettings, kb: Any, task: Any = None) -> Any:
    """The chosen controller. With none chosen: the learned policy where one is trained for the
    world and it drives every goal the task's route needs, else the scripted one (the run's
    tags and each outcome's `driver` say which ran)."""
    from skills.learned.paths import LearnedError

    name = settings.controller or default_controller(settings.world)
    try:
        return build("controller", name, settings=settings, kb=kb, task=task)
    except LearnedError as e:  # wrong world, missing or mismatched checkpoint, an untrained goal: one line
        if settings.controller is None and name != "scripted":
            return build("controller", "scripted", settings=settings, kb=kb, task=task)
        raise SettingsError(str(e)) from None


def make_explainer(settings: RunSettings, llm: Any, planner: Any) -> Any:
    name = settings.explainer or getattr(planner, "explainer", None) or ("llm" if llm is not None else "game")
    if name == "llm" and llm is None:
        name = "game"
    return build("explainer", name, llm=llm, settings=settings)


def make_parser(settings: RunSettings, kb: Any, llm: Any = None) -> Any:
    return build("parser", settings.parser or "goals", llm=llm, settings=settings, kb=kb)


def make_describer(settings: RunSettings, kb: Any, llm: Any = None) -> Any:
    return build("describer", settings.describer or "game", llm=llm, settings=settings, kb=kb)

"""Build the swappable parts of an episode by name: planner, selector, controller,
explainer. `package.module:factory` loads a user's own planner or selector."""
from __future__ import annotations

import importlib
from typing import Any, Callable

from nodes.explain import GameMessageExplainer, LLMExplainer
from nodes.planners.base import FunctionPlanner
from nodes.planners.baselines import BASELINES
from nodes.planners.llm import DialoguePlanner
from nodes.planners.oracle import OraclePlanner
from nodes.selectors import SELECTORS, default_selector
from nodes.settings import RunSettings, SettingsError
from skills.controller import CONTROLLERS, default_controller

LLM_FREE_PLANNERS = {"oracle"}


def load_object(spec: str) -> Any:
    """'package.module:name' -> the object; one-line SettingsError when it is not there."""
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
        return getattr(module, attr)
    except (ImportError, AttributeError) as e:
        raise SettingsError(f"cannot load {spec!r} ({e}); accepted: package.module:factory on the Python path") from None


def _planner_registry() -> dict[str, Callable[[Any, RunSettings], Any]]:
    return {
        "oracle": lambda llm, s: OraclePlanner(),
        "deps": lambda llm, s: DialoguePlanner(llm, name="deps"),
        "dep": lambda llm, s: DialoguePlanner(llm, name="dep"),
        **BASELINES,   # zero-shot, progprompt, cot, code-as-policies, inner-monologue
    }


def needs_llm(settings: RunSettings) -> bool:
    return settings.planner not in LLM_FREE_PLANNERS and ":" not in settings.planner


def make_planner(settings: RunSettings, llm: Any) -> Any:
    if ":" in settings.planner:
        factory = load_object(settings.planner)
        obj = factory(llm=llm, settings=settings) if _takes_kwargs(factory) else factory()
        return obj if hasattr(obj, "plan") else FunctionPlanner(obj)
    registry = _planner_registry()
    if settings.planner not in registry:
        raise SettingsError(f"planner {settings.planner!r} is not available; available: {', '.join(sorted(registry))}")
    return registry[settings.planner](llm, settings)


def _takes_kwargs(fn: Callable) -> bool:
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "llm" in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def make_selector(settings: RunSettings) -> Any:
    name = settings.selector or ("fixed" if settings.planner == "dep" else default_selector(settings.world))
    if ":" in name:
        return load_object(name)()
    if name not in SELECTORS:
        raise SettingsError(f"selector {name!r} is not available yet; available: {', '.join(sorted(SELECTORS))}")
    return SELECTORS[name](settings)


def make_controller(settings: RunSettings, kb: Any) -> Any:
    name = settings.controller or default_controller(settings.world)
    if name not in CONTROLLERS:
        raise SettingsError(f"controller {name!r} is not available yet; available: {', '.join(sorted(CONTROLLERS))}")
    from skills.learned.paths import LearnedError

    try:
        return CONTROLLERS[name](kb, settings)
    except LearnedError as e:   # wrong world, missing or mismatched checkpoint: one line
        raise SettingsError(str(e)) from None


def make_explainer(settings: RunSettings, llm: Any, planner: Any) -> Any:
    kind = getattr(planner, "explainer", None) or ("llm" if llm is not None else "game")
    return LLMExplainer(llm) if kind == "llm" and llm is not None else GameMessageExplainer()

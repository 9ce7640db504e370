"""Build the swappable parts of an episode by name: planner, parser, selector, controller,
explainer, describer. For each, `package.module:factory` loads a user's own: the factory is
called with whichever of `llm=`, `settings=` and `kb=` it names (all three if it takes
**kwargs), so a part that wants the episode's LLM gets the open one."""
from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

from nodes.describe import GameDescriber
from nodes.explain import GameMessageExplainer, LLMExplainer
from nodes.parse import GoalParser
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
    except SyntaxError as e:
        raise SettingsError(f"cannot load {spec!r}: syntax error in {e.filename}, line {e.lineno}: {e.msg}") from None
    except Exception as e:  # noqa: BLE001 - the plugin's own code failed while importing: say which and why
        raise SettingsError(f"cannot load {spec!r}: importing {module_name} raised {type(e).__name__}: "
                            f"{' '.join(str(e).split())[:200]}") from None


def _mp5(llm: Any, settings: RunSettings) -> Any:
    from nodes.planners.mp5.planner import MP5Planner  # loads FAISS and the embeddings only when asked for

    return MP5Planner(llm, settings)


def _rider(llm: Any, settings: RunSettings) -> Any:
    from nodes.planners.rider import make_rider

    return make_rider(llm, settings)


def _planner_registry() -> dict[str, Callable[[Any, RunSettings], Any]]:
    return {
        "oracle": lambda llm, s: OraclePlanner(),
        "deps": lambda llm, s: DialoguePlanner(llm, name="deps"),
        "dep": lambda llm, s: DialoguePlanner(llm, name="dep"),
        "mp5": _mp5,   # nodes/planners/mp5: parser, patroller, percipient, knowledge and performer memories
        "rider": _rider,   # nodes/planners/rider: next skill, feedback-revision, retrieval, relabelling
        **BASELINES,   # zero-shot, progprompt, cot, code-as-policies, inner-monologue
    }


PART_FLAGS = ("planner", "parser", "selector", "controller", "explainer", "describer")


def _custom_specs(settings: RunSettings) -> list[str]:
    return [spec for spec in (getattr(settings, f) for f in PART_FLAGS) if spec and ":" in spec]


def _wanted(factory: Callable) -> set[str]:
    """The keyword arguments among llm, settings, kb that `factory` accepts."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return set()
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return {"llm", "settings", "kb"}
    return {"llm", "settings", "kb"} & set(params)


def build_custom(spec: str, **offered: Any) -> Any:
    """A user's part from `package.module:factory`, given what it asks for."""
    factory = load_object(spec)
    return factory(**{k: v for k, v in offered.items() if k in _wanted(factory)})


def needs_llm(settings: RunSettings) -> bool:
    """Does the episode need an LLM opened: a planner that plans with one, or a user's part
    whose factory asks for `llm`."""
    if any("llm" in _wanted(load_object(spec)) for spec in _custom_specs(settings)):
        return True
    return settings.planner not in LLM_FREE_PLANNERS and ":" not in settings.planner


def make_planner(settings: RunSettings, llm: Any, kb: Any = None) -> Any:
    if ":" in settings.planner:
        obj = build_custom(settings.planner, llm=llm, settings=settings, kb=kb)
        return obj if hasattr(obj, "plan") else FunctionPlanner(obj)
    registry = _planner_registry()
    if settings.planner not in registry:
        raise SettingsError(f"planner {settings.planner!r} is not available; available: {', '.join(sorted(registry))}")
    return registry[settings.planner](llm, settings)


def make_selector(settings: RunSettings) -> Any:
    # dep and mp5 run their plans in order (mp5's actions are sequences per sub-objective)
    name = settings.selector or ("fixed" if settings.planner in ("dep", "mp5") else default_selector(settings.world))
    if ":" in name:
        return build_custom(name, settings=settings)
    if name not in SELECTORS:
        raise SettingsError(f"selector {name!r} is not available yet; available: {', '.join(sorted(SELECTORS))}")
    return SELECTORS[name](settings)


def make_controller(settings: RunSettings, kb: Any) -> Any:
    name = settings.controller or default_controller(settings.world)
    if ":" in name:
        return build_custom(name, settings=settings, kb=kb)
    if name not in CONTROLLERS:
        raise SettingsError(f"controller {name!r} is not available yet; available: {', '.join(sorted(CONTROLLERS))}")
    from skills.learned.paths import LearnedError

    try:
        return CONTROLLERS[name](kb, settings)
    except LearnedError as e:   # wrong world, missing or mismatched checkpoint: one line
        raise SettingsError(str(e)) from None


def make_explainer(settings: RunSettings, llm: Any, planner: Any) -> Any:
    if settings.explainer:
        return build_custom(settings.explainer, llm=llm, settings=settings)
    kind = getattr(planner, "explainer", None) or ("llm" if llm is not None else "game")
    return LLMExplainer(llm) if kind == "llm" and llm is not None else GameMessageExplainer()


def make_parser(settings: RunSettings, kb: Any, llm: Any = None) -> Any:
    if settings.parser:
        return build_custom(settings.parser, llm=llm, settings=settings, kb=kb)
    return GoalParser(kb)


def make_describer(settings: RunSettings, kb: Any, llm: Any = None) -> Any:
    if settings.describer:
        return build_custom(settings.describer, llm=llm, settings=settings, kb=kb)
    return GameDescriber(kb, recipe_hints=settings.recipe_hints)

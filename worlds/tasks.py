"""Task suites as data, and their loader.

The built-in suites live next to this module, in ``worlds/suites/<name>.yaml``:

* ``deps71``      DEPS appendix B, Tables 9-16 (all 76 rows; MT1..MT8)
* ``plan4mc``     the 40 Plan4MC tasks used by LLaMA-Rider (groups log, stone, mob, iron)
* ``mp5``         MP5's 25 Process-Dependent Tasks (groups Basic, Wooden, Stone, Iron, Diamond)
* ``mp5-context`` MP5's 16 Context-Dependent ("find ...") tasks (Easy, Mid, Hard, Complex)

A suite file is a JSON or YAML list of tasks with the ``deps tasks`` keys (id, group,
instruction, target {item: count}, max_steps) plus optional inventory / biome. Other keys
(paper_object, required_skills, conditions, ...) are kept by :func:`load_records`.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from worlds.types import Task

SUITES = ("deps71", "plan4mc", "mp5", "mp5-context")
SUITE_DIR = Path(__file__).resolve().parent / "suites"
REQUIRED_KEYS = ("id", "group", "instruction", "target", "max_steps")
OPTIONAL_KEYS = ("inventory", "biome")
FILE_SUFFIXES = (".json", ".yaml", ".yml")
CUSTOM_MAX_STEPS = 12000  # DEPS's largest task budget (Table 2's diamond group), for a one-off task
CUSTOM_BUDGET_SLACK = 2  # ... or this many times the recipe book's estimate of its shortest plan, if more
MAX_GOAL_COUNT = 100_000  # items of one kind a task may ask for (beyond it no budget is meaningful)
MAX_INVENTORY_COUNT = 1_000_000  # items of one kind a task may start with
MAX_STEPS = 10_000_000  # a task's step budget
MAX_TASKS = 100_000  # tasks in one suite file
MAX_SUITE_BYTES = 16 * 2**20
MAX_DEPTH = 32  # nesting of a suite file's lists and mappings

_ACCEPTED = f"accepted: {', '.join(SUITES)}, or a path to a {'/'.join(FILE_SUFFIXES)} file"
_KEYS_HELP = f"required keys: {', '.join(REQUIRED_KEYS)}; optional: {', '.join(OPTIONAL_KEYS)}"


class SuiteError(ValueError):
    """A suite or task that cannot be used; the message is one line saying what and why."""


class CountError(SuiteError):
    """An instruction that names its items but asks for a count no task can have ("obtain 0 torches")."""


# --------------------------------------------------------------------------- loading


def suite_path(name_or_path: str | Path) -> Path:
    """The file behind a suite name or path; SuiteError if there is none."""
    text = str(name_or_path).strip()
    if text in SUITES:
        return SUITE_DIR / f"{text}.yaml"
    if len(text) > 4096 or "\0" in text:
        raise SuiteError(f"suite name {text[:60]!r}... is too long or has a NUL byte ({_ACCEPTED})")
    path = Path(text).expanduser()
    try:
        path.is_file()
    except OSError as e:  # a name too long for the file system, and the like
        raise SuiteError(f"suite {text[:60]!r}: {e.strerror or e} ({_ACCEPTED})") from None
    if path.suffix.lower() not in FILE_SUFFIXES:
        if path.is_file():
            raise SuiteError(f"{text}: unsupported file type '{path.suffix}' ({_ACCEPTED})")
        raise SuiteError(f"unknown suite '{text}' ({_ACCEPTED})")
    if not path.is_file():
        raise SuiteError(f"{text}: no such file ({_ACCEPTED})")
    return path


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def _parse(path: Path, label: str) -> Any:
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_SUITE_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{label}: cannot read file: {_one_line(exc)}") from None
    if len(data) > MAX_SUITE_BYTES:
        raise SuiteError(
            f"{label}: the file is over {MAX_SUITE_BYTES // 2**20} MiB; accepted: a suite file of at most that size"
        )
    if path.suffix.lower() == ".json":
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SuiteError(f"{label}: not valid JSON: {_one_line(exc)}") from None
        except RecursionError:
            raise SuiteError(f"{label}: nested too deeply; accepted: a list of task mappings") from None
    else:
        import yaml  # a dependency of the project; imported here so JSON suites never need it

        if _flow_depth(text) > MAX_DEPTH:  # before parsing: PyYAML takes seconds to fail on thousands
            raise SuiteError(f"{label}: nested more than {MAX_DEPTH} levels deep; accepted: a list of task mappings")
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise SuiteError(f"{label}: not valid YAML: {_one_line(exc)}") from None
        except RecursionError:
            raise SuiteError(f"{label}: nested too deeply; accepted: a list of task mappings") from None
    if _depth(value) > MAX_DEPTH:
        raise SuiteError(f"{label}: nested more than {MAX_DEPTH} levels deep; accepted: a list of task mappings")
    return value


def _flow_depth(text: str) -> int:
    """How deep `[` and `{` open in a row in `text` (YAML's flow style; brackets in quoted text count too)."""
    depth = peak = 0
    for m in re.finditer(r"[\[\]{}]", text):
        depth = depth + 1 if m.group() in "[{" else max(0, depth - 1)
        peak = max(peak, depth)
    return peak


def _depth(value: Any) -> int:
    """How deep lists and mappings nest in `value` (iterative: no recursion limit to hit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            deepest = max(deepest, d)
            if d > MAX_DEPTH:
                return d
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


def _type_name(value: Any) -> str:
    return {dict: "mapping", list: "list", str: "string", type(None): "null"}.get(type(value), type(value).__name__)


def _counts(value: Any, key: str, where: str, allow_empty: bool) -> dict[str, int]:
    if value is None and key == "inventory":
        return {}
    if not isinstance(value, dict):
        raise SuiteError(f"{where}: key '{key}' must be a mapping {{item: count}}, got {_type_name(value)}")
    if not value and not allow_empty:
        raise SuiteError(f"{where}: key '{key}' is empty (expected at least one {{item: count}})")
    out: dict[str, int] = {}
    for item, count in value.items():
        if not isinstance(item, str) or not item.strip():
            raise SuiteError(f"{where}: key '{key}': item names must be non-empty strings, got {item!r}")
        top = MAX_INVENTORY_COUNT if key == "inventory" else MAX_GOAL_COUNT
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= top:
            raise SuiteError(
                f"{where}: key '{key}': count for '{item}' must be an integer >= 1 and at most {top}, got {count!r}"
            )
        out[item.strip()] = count
    return out


def _validate(raw: Any, label: str) -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        raise SuiteError(f"{label}: expected a list of tasks at the top level, got {_type_name(raw)} ({_KEYS_HELP})")
    if not raw:
        raise SuiteError(f"{label}: the suite has no tasks (expected a non-empty list)")
    if len(raw) > MAX_TASKS:
        raise SuiteError(f"{label}: {len(raw)} tasks; accepted: at most {MAX_TASKS} in one suite")
    records: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(raw, start=1):
        where = f"{label}: task #{i}"
        if not isinstance(entry, dict):
            raise SuiteError(f"{where} is a {_type_name(entry)}, expected a mapping ({_KEYS_HELP})")
        tid = entry.get("id")
        if isinstance(tid, str) and tid.strip():
            shown = tid.strip()[:80]
            where += f" ({shown if shown.isprintable() else repr(shown)})"  # one line, whatever the id holds
        missing = [k for k in REQUIRED_KEYS if k not in entry]
        if missing:
            raise SuiteError(f"{where}: missing key '{missing[0]}' ({_KEYS_HELP})")
        for key in ("id", "group", "instruction"):
            if not isinstance(entry[key], str) or not entry[key].strip():
                raise SuiteError(f"{where}: key '{key}' must be a non-empty string, got {entry[key]!r}")
        steps = entry["max_steps"]
        if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
            raise SuiteError(f"{where}: key 'max_steps' must be an integer >= 1 and at most {MAX_STEPS}, got {steps!r}")
        if entry.get("conditions") is not None and not isinstance(entry["conditions"], dict):
            raise SuiteError(f"{where}: key 'conditions' must be a mapping, got {_type_name(entry['conditions'])}")
        biome = entry.get("biome")
        if biome is not None and (not isinstance(biome, str) or not biome.strip()):
            raise SuiteError(f"{where}: key 'biome' must be a non-empty string or null, got {biome!r}")
        rec = dict(entry)
        rec["id"], rec["group"] = entry["id"].strip(), entry["group"].strip()
        rec["instruction"] = entry["instruction"].strip()
        # A task with no item target is allowed only as a "find" task (mp5-context).
        rec["target"] = _counts(entry["target"], "target", where, allow_empty="find" in entry)
        rec["inventory"] = _counts(entry.get("inventory"), "inventory", where, allow_empty=True)
        rec["biome"] = biome.strip() if biome else None
        key = rec["id"].casefold()
        if key in seen:
            raise SuiteError(
                f"{where}: duplicate id '{rec['id']}' (also task #{seen[key]}; ids must be unique, case-insensitive)"
            )
        seen[key] = i
        records.append(rec)
    return records


@functools.cache
def _builtin_records(name: str) -> tuple[dict[str, Any], ...]:
    return tuple(_validate(_parse(SUITE_DIR / f"{name}.yaml", name), name))


def _label(name_or_path: str | Path) -> str:
    text = str(name_or_path).strip()
    return text if text in SUITES else str(suite_path(text))


def load_records(name_or_path: str | Path) -> list[dict[str, Any]]:
    """The validated task entries of a suite, with every key the file has (extras included)."""
    text = str(name_or_path).strip()
    if text in SUITES:
        return copy.deepcopy(list(_builtin_records(text)))
    path = suite_path(text)
    return _validate(_parse(path, str(path)), str(path))


def _to_task(rec: dict[str, Any], suite: str) -> Task:
    return Task(
        id=rec["id"],
        group=rec["group"],
        instruction=rec["instruction"],
        target=dict(rec["target"]),
        max_steps=rec["max_steps"],
        inventory=dict(rec["inventory"]),
        biome=rec["biome"],
        suite=suite,
        context=({"find": rec["find"], "conditions": dict(rec.get("conditions") or {})} if rec.get("find") else None),
    )


def load_suite(name_or_path: str | Path) -> list[Task]:
    """The tasks of a built-in suite (a name in SUITES) or of a JSON/YAML suite file."""
    label = _label(name_or_path)
    return [_to_task(rec, label) for rec in load_records(name_or_path)]


# --------------------------------------------------------------------------- lookup

_ARTICLES = {"a", "an", "the"}
_VERBS = {
    "obtain",
    "craft",
    "make",
    "get",
    "mine",
    "cook",
    "smelt",
    "equip",
    "harvest",
    "build",
    "gather",
    "collect",
    "create",
    "fetch",
    "grab",
    "acquire",
}
# how people ask, before the verb or the item ("I'd like to make...", "can you get...", "please craft...")
_ASKING = {"please", "i", "we", "you", "can", "could", "would", "will", "want", "need", "like", "to", "d", "let", "s"}
_ASKING |= {"lets", "go", "help", "me", "us", "just", "now"}
_FOR_SELF = {"me", "us", "myself", "ourselves"}  # "get me a torch", "make us 2 beds"
_THANKS = {"please", "thanks", "thank", "you", "now"}  # "... please", "... thank you"
_SOME = {"some": 1}  # "get some cooked beef": one of it (instruction counts only, not plans')
NUMBER_WORDS = {  # a count in words, as instructions and plans write it (nodes/parse.py too)
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}


def _singular(word: str) -> str:
    if len(word) <= 3 or word.endswith(("ss", "us")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower().replace("_", " "))


def normalise(text: str) -> str:
    """Instruction text reduced for matching: lowercase, no articles, no leading verb,
    singular words, no spaces ("Cook the beef." -> "cookedbeef", "Make shears" -> "shear",
    "obtain a trap door" -> "trapdoor", "I want a torch, please" -> "torch")."""
    words = _asked_for(_words(text))
    cooked = False
    while words and (words[0] in _VERBS or words[0] in _ARTICLES or words[0] in _FOR_SELF or words[0] in _SOME):
        cooked = cooked or words[0] == "cook"
        words.pop(0)
    words = [_singular(w) for w in words if w not in _ARTICLES]
    if cooked and words[:1] != ["cooked"]:
        words.insert(0, "cooked")
    return "".join(words)


def _camel_words(ident: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", ident)


def _exact(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".!? ")


def find_task(spec: str, suite: str = "deps71") -> Task | None:
    """A task by id (case-insensitive, in any built-in suite) or by instruction text.

    Text is matched in `suite` by exact instruction (case-insensitive), then by normalised
    instruction (see `normalise`), then by the normalised object: the target item, the
    paper's object name or the id's words ("make a wooden door" -> CraftWoodenDoor). The
    other built-in suites are searched for an exact instruction only, so a loose phrase
    never picks up another suite's task with its given inventory ("obtain an iron ingot"
    is not plan4mc's craft_iron_ingot_with_stone_pickaxe). None if nothing matches; the
    caller may then use `task_from_instruction`."""
    spec = (spec or "").strip()
    if not spec:
        return None
    order = [suite] + [s for s in SUITES if s != str(suite).strip()]
    loaded = [(_label(s), load_records(s)) for s in order]
    key_id, key_exact, key_norm = spec.casefold(), _exact(spec), normalise(spec)

    def objects(rec: dict[str, Any]) -> set[str]:
        keys = {normalise(_camel_words(rec["id"]))}
        if len(rec["target"]) == 1:
            keys.add(normalise(next(iter(rec["target"]))))
        if isinstance(rec.get("paper_object"), str):
            keys.add(normalise(rec["paper_object"]))
        return keys

    for label, records in loaded:
        for rec in records:
            if rec["id"].casefold() == key_id:
                return _to_task(rec, label)
    stages: list[Callable[[dict[str, Any]], bool]] = [
        lambda r: _exact(r["instruction"]) == key_exact,
        lambda r: bool(key_norm) and normalise(r["instruction"]) == key_norm,
        lambda r: bool(key_norm) and key_norm in objects(r),
    ]
    for n, (label, records) in enumerate(loaded):
        for match in stages if n == 0 else stages[:1]:  # other suites: exact text only
            for rec in records:
                if match(rec):
                    return _to_task(rec, label)
    return None


def task_from_instruction(text: str, resolve_item: Callable[[str], str | None]) -> Task:
    """A one-off task for an instruction that is in no suite: "obtain 3 iron ingots" ->
    target {resolve_item('iron ingot'): 3}. Several items may be joined by "and" or commas
    ("make shears and a bucket"). `resolve_item` maps a name to a canonical item name or
    None. Group "custom", max_steps 12000. SuiteError if an item cannot be resolved."""
    raw = " ".join((text or "").split())
    example = "expected e.g. 'obtain 3 iron ingots' or 'craft a stone pickaxe and 2 torches'"
    if negative := re.search(r"(?<![\w-])-\s*\d+", raw):  # the words below drop the sign: refuse it here
        raise CountError(
            f"instruction {raw[:80]!r}: count must be from 1 to {MAX_GOAL_COUNT}, got {negative.group(0)} ({example})"
        )
    words = _asked_for(_words(re.split(r"\s+(?:with|using|from)\s+", raw.lower())[0]))
    verb = words.pop(0) if words and words[0] in _VERBS else None
    while words and words[0] in _FOR_SELF:
        words.pop(0)
    target: dict[str, int] = {}
    unresolved: list[str] = []
    whole = " ".join(words)  # one item whose name holds "and" (a flint and steel) is not two
    parts = [whole] if " and " in whole and "," not in whole and _one_item(whole, verb, resolve_item) else None
    for part in parts or re.split(r"\s*,\s*|\s+and\s+", whole):
        toks = [t for t in part.split() if t != "the"]
        count = 1
        if toks and toks[0].isdigit():
            count = int(toks.pop(0))
        elif toks and toks[0] in NUMBER_WORDS:
            count = NUMBER_WORDS[toks.pop(0)]
        elif toks and toks[0] in _SOME:
            count = _SOME[toks.pop(0)]
        if not toks:
            continue
        if not 1 <= count <= MAX_GOAL_COUNT:
            raise CountError(
                f"instruction {raw[:80]!r}: count must be from 1 to {MAX_GOAL_COUNT}, got {count} ({example})"
            )
        phrase = " ".join(toks)
        item = _resolve_phrase(phrase, verb, resolve_item)
        if item is None:
            unresolved.append(phrase)
        else:
            target[item] = target.get(item, 0) + count
    if unresolved or not target:
        what = ", ".join(repr(p) for p in unresolved) or "no item named"
        raise SuiteError(f"instruction {raw!r}: unknown item {what} ({example}, naming a Minecraft item)")
    tid = "custom-" + "-".join(item if n == 1 else f"{n}-{item}" for item, n in target.items())
    return Task(id=tid, group="custom", instruction=raw, target=target, max_steps=CUSTOM_MAX_STEPS, suite="custom")


def sized_budget(task: Task, kb: Any) -> Task:
    """A one-off task with the step budget its work needs: CUSTOM_MAX_STEPS, or twice the recipe
    book's estimate of its shortest plan where that is more, in whole thousands. An anvil's 31
    iron ingots take about 14,000 steps, past any budget DEPS gives. A task from a suite, or one
    the recipe book has no plan for (the planner says why), keeps its budget."""
    from worlds.solver import Unreachable, solve, steps_estimate

    if task.group != "custom" or task.max_steps != CUSTOM_MAX_STEPS or not task.target:
        return task
    try:
        needed = CUSTOM_BUDGET_SLACK * steps_estimate(kb, solve(kb, dict(task.target), dict(task.inventory)))
    except Unreachable:
        return task
    budget = min(MAX_STEPS, -(-needed // 1000) * 1000)
    return replace(task, max_steps=budget) if budget > task.max_steps else task


def _asked_for(words: list[str]) -> list[str]:
    """An instruction's words without how it was asked: the words before its verb or item ("i d like
    to", "can you", "please") and after it ("please", "for me", "thank you")."""
    words = list(words)
    while words and words[0] in _ASKING and words[0] not in _VERBS:
        words.pop(0)
    while words and (words[-1] in _THANKS or words[-2:] in (["for", w] for w in _FOR_SELF)):
        words[-2 if words[-1] in _FOR_SELF else -1 :] = []
    return words


def unasked(text: str) -> str:
    """`text` as written, without how it was asked before and after (as `_asked_for` reads the
    words): "can you find a pig at night, please" -> "find a pig at night"."""
    lead = rf"^\s*(?:(?:{'|'.join(sorted(_ASKING))})(?:'[a-z]+)?\b[\s,]*)*"
    trail = rf"(?:[\s,]+(?:{'|'.join(sorted(_THANKS))}|for (?:{'|'.join(sorted(_FOR_SELF))}))\b)*[\s.!?]*$"
    return re.sub(trail, "", re.sub(lead, "", text or "", flags=re.IGNORECASE), flags=re.IGNORECASE)


def _one_item(phrase: str, verb: str | None, resolve_item: Callable[[str], str | None]) -> bool:
    """Whether `phrase`, less a leading count, names one item."""
    toks = [t for t in phrase.split() if t != "the"]
    if toks and (toks[0].isdigit() or toks[0] in NUMBER_WORDS):
        toks.pop(0)
    return bool(toks) and _resolve_phrase(" ".join(toks), verb, resolve_item) is not None


def _resolve_phrase(phrase: str, verb: str | None, resolve_item: Callable[[str], str | None]) -> str | None:
    singular = " ".join(_singular(w) for w in phrase.split())
    candidates = [phrase, singular]
    for said in (phrase, singular):  # "a bucket of milk" is the game's Milk Bucket, "buckets of water" Water Buckets
        head, of, tail = said.partition(" of ")
        if of and head and tail and " of " not in tail:
            candidates.append(f"{tail} {head}")
    if verb == "cook" and not phrase.startswith("cooked "):
        candidates = [f"cooked {phrase}", f"cooked {singular}"] + candidates
    for cand in dict.fromkeys(candidates):
        item = resolve_item(cand)
        if item:
            return item
    return None


SUITE_NAMES_VERSION = "1.11.2"  # the item names suites are written in (MineDojo's)


def localize(task: Task, kb: Any) -> Task:
    """The task with its target and inventory in this knowledge base's names (suites use
    MineDojo's 1.11.2 names: wooden_door is oak_door in 1.19.2). Done once: a task already
    in this version's names is returned as it is."""
    if task.mc_version == kb.version:
        return task
    if not task.target and not task.context:
        raise SuiteError(
            f"task {task.id} has neither an item target nor find conditions; "
            "accepted: tasks whose target is {item: count}, or find tasks (mp5-context)"
        )

    def name(item: str) -> str | None:
        if not task.suite or task.suite == "custom":  # typed or built for this version: its own names
            return kb.canonical(item)
        try:  # suites are written in 1.11.2 names: across the 1.13 flattening, the game's own table
            return kb.translate(item, SUITE_NAMES_VERSION)
        except ValueError as e:  # a 1.11 id that became several items (skull): one line
            raise SuiteError(f"task {task.id}: {e}") from None

    target = {}
    for item, n in task.target.items():
        canon = name(item)
        if canon is None:
            raise SuiteError(f"task {task.id}: item {item!r} does not exist in Minecraft {kb.version}")
        target[canon] = n
    return replace(
        task, target=target, mc_version=kb.version, inventory={name(k) or k: v for k, v in task.inventory.items()}
    )

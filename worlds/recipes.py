"""Recipe types and the one transformation on them: generic ingredients.

minecraft-data lists a recipe that accepts an item tag (any planks) once per member
(stick from oak planks, stick from spruce planks, ...).  `generalize` folds such a family
back into one recipe whose ingredient is the generic name (stick <- 2 planks), keeping an
ingredient concrete when the family never varies it (white_bed <- 3 white_wool + 3 planks).
`merge_alternatives` then folds recipes that differ in ONE ingredient only (a stone hoe from
2 cobblestone or from 2 blackstone: the game's `stone_tool_materials` tag) into one recipe
that names the first and `accepts` the others, mixed in any proportion as the game allows
(1 cobblestone + 1 blackstone makes a hoe).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field


def a(name: str) -> str:
    """'a stone_pickaxe', 'an iron_pickaxe', 'shears'."""
    if name.endswith("shears"):
        return name
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


@dataclass(frozen=True)
class Recipe:
    output: str
    count: int
    ingredients: dict[str, int] = field(hash=False)
    needs_table: bool = False
    # ingredient -> every name that may fill its slots, mixed (the ingredient itself first)
    accepts: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False, compare=False)

    def key(self) -> tuple:
        return (self.output, self.count, tuple(sorted(self.ingredients.items())), self.needs_table)

    def fillers(self, ingredient: str) -> tuple[str, ...]:
        """The names that fill `ingredient`'s slots: ('cobblestone', 'blackstone')."""
        return self.accepts.get(ingredient) or (ingredient,)

    def choices(self) -> list[Recipe]:
        """One recipe per accepted alternative, each naming it and still accepting the others
        (what the planner prices: the hoe from cobblestone, the hoe from blackstone)."""
        out = [self]
        for ing, alts in self.accepts.items():
            for alt in alts:
                if alt == ing or alt in self.ingredients:
                    continue
                ingredients = {(alt if k == ing else k): n for k, n in self.ingredients.items()}
                out.append(
                    Recipe(
                        self.output,
                        self.count,
                        ingredients,
                        self.needs_table,
                        {(alt if k == ing else k): v for k, v in self.accepts.items()},
                    )
                )
        return out

    def describe(self, batches: int = 1) -> str:
        mats = " + ".join(f"{n * batches} {k}" for k, n in self.ingredients.items())
        where = " on a crafting_table" if self.needs_table else ""
        return f"craft {self.count * batches} {self.output} from {mats}{where}"


@dataclass(frozen=True)
class SmeltRecipe:
    input: str
    output: str
    count: int = 1
    kinds: tuple[str, ...] = field(default=("smelting",), compare=False)  # also blasting, smoking, campfire

    def describe(self, n: int = 1) -> str:
        return f"smelt {n} {self.input} into {n * self.count} {self.output} in a furnace"


def tool_kind(tool: str) -> str:
    """A tool's kind: stone_pickaxe -> pickaxe, shears -> shears."""
    return tool.rsplit("_", 1)[-1]


@dataclass(frozen=True)
class MineSource:
    block: str
    item: str
    count: int  # items one block yields (the guaranteed minimum)
    tools: tuple[str, ...] | None  # tools that harvest the block; None: any tool or the hand
    min_tool: str | None  # the lowest-tier tool of `tools` ("stone_pickaxe")
    tier: int  # its tier: -1 hand, 0 wooden/golden, 1 stone, 2 iron, 3 diamond, 4 netherite
    chance: float = 1.0  # per block broken (flint from gravel 0.1); 1: every time
    with_tool: bool = False  # dropped only when broken with `tools` (leaves to shears), not the usual drops

    def harvested_with(self, has: Callable[[str], bool]) -> bool:
        """Whether breaking the block gives its drop with what is held (`has(tool)`): by hand where
        it wants no tool, else with any of its `tools`."""
        return self.tools is None or any(has(t) for t in self.tools)

    @property
    def tries(self) -> int:
        """Blocks broken, on average, per item: 10 gravel per flint."""
        return max(1, round(1 / self.chance)) if self.chance < 1 else 1

    @property
    def needs_pickaxe(self) -> bool:
        """Mined with a pickaxe (the pickaxe rows of DEPS Table 18 cost more steps)."""
        return bool(self.min_tool and self.min_tool.endswith("pickaxe"))

    def tool_phrase(self, by_hand: str = "") -> str:
        """' with a stone_pickaxe or better', or `by_hand` when no tool is needed."""
        return f" with {self.tool_need()}" if self.min_tool else by_hand

    def tool_need(self) -> str:
        """What the block must be broken with: 'a stone_pickaxe or better', 'shears or a sword'
        (string from a cobweb: shears are not a better sword), 'shears' (leaves kept whole)."""
        least = self.min_tool or "tool"
        tools = () if self.with_tool else (self.tools or ())
        better = any(t != least and tool_kind(t) == tool_kind(least) for t in tools)
        others = dict.fromkeys(tool_kind(t) for t in tools if tool_kind(t) != tool_kind(least))
        return a(least) + (" or better" if better else "") + "".join(f" or {a(k)}" for k in others)

    def odds(self) -> str:
        """'' or ' (1 in 10 breaks drops flint)'."""
        return f" (1 in {self.tries} breaks drops {self.item})" if self.chance < 1 else ""


def _signature(ingredients: dict[str, int], group_of: dict[str, str]) -> tuple:
    sig: dict[str, int] = defaultdict(int)
    for name, n in ingredients.items():
        sig[group_of.get(name, name)] += n
    return tuple(sorted(sig.items()))


def generalize(recipes: list[Recipe], group_of: dict[str, str]) -> list[Recipe]:
    """Merge the recipes of ONE output that differ only in which member of a group they use."""
    buckets: dict[tuple, list[Recipe]] = defaultdict(list)
    for r in recipes:
        buckets[(r.count, r.needs_table, _signature(r.ingredients, group_of))].append(r)
    members: dict[str, set[str]] = defaultdict(set)
    for name, g in group_of.items():
        members[g].add(name)
    out: list[Recipe] = []
    for (count, table, sig), family in buckets.items():
        if len(family) == 1:
            out.append(family[0])
            continue
        used: dict[str, set[str]] = defaultdict(set)  # generic key -> concrete names used
        for r in family:
            for name in r.ingredients:
                used[group_of.get(name, name)].add(name)
        if any(1 < len(names) < len(members[g]) for g, names in used.items() if g in members):
            out.extend(family)  # some of a group only (light grey dye from 3 of the small flowers): alternatives
            continue
        ingredients: dict[str, int] = {}
        for g, n in sig:
            name = g if len(used[g]) > 1 else next(iter(used[g]))
            ingredients[name] = ingredients.get(name, 0) + n
        out.append(Recipe(family[0].output, count, ingredients, table))
    return out


def merge_alternatives(recipes: list[Recipe]) -> list[Recipe]:
    """Fold recipes of ONE output (same count, same table need) that differ in exactly one
    ingredient, at the same count, into the first of them, accepting the others mixed."""
    out: list[Recipe] = []
    for r in recipes:
        for i, m in enumerate(out):
            if (m.count, m.needs_table) != (r.count, r.needs_table) or len(m.ingredients) != len(r.ingredients):
                continue
            mine = set(m.ingredients.items()) - set(r.ingredients.items())
            theirs = set(r.ingredients.items()) - set(m.ingredients.items())
            if len(mine) != 1 or len(theirs) != 1:
                continue
            (k, n), (alt, n2) = next(iter(mine)), next(iter(theirs))
            if n != n2:
                continue
            accepts = {**m.accepts, k: tuple(dict.fromkeys(m.fillers(k) + (alt,)))}  # slots vary apart (tags)
            out[i] = Recipe(m.output, m.count, dict(m.ingredients), m.needs_table, accepts)
            break
        else:
            out.append(r)
    kept: list[Recipe] = []  # the widest first, so two that cover each other keep one
    for r in sorted(out, key=lambda r: -sum(len(a) for a in r.accepts.values())):
        if not any(_covers(m, r) for m in kept):
            kept.append(r)
    return [r for r in out if any(r is k for k in kept)]  # in the data's order, which the worlds follow


def _covers(m: Recipe, r: Recipe) -> bool:
    """Does `m`, with what it accepts, already take every ingredient of `r` (a campfire from
    dark oak wood and charcoal, once logs, woods and both coals are accepted)?"""
    if not m.accepts or (m.count, m.needs_table, len(m.ingredients)) != (r.count, r.needs_table, len(r.ingredients)):
        return False
    free = dict(m.ingredients)
    for k, n in r.ingredients.items():
        key = next((x for x, c in free.items() if c == n and k in m.fillers(x)), None)
        if key is None:
            return False
        del free[key]
    return True


def as_generic(recipes: list[Recipe], group: str, group_of: dict[str, str]) -> list[Recipe]:
    """The recipes of a group's members, stated for the group: bed <- 3 wool + 3 planks.
    Which member is made follows the members used (the world resolves that)."""
    seen: dict[tuple, Recipe] = {}
    for r in recipes:
        ingredients: dict[str, int] = {}
        for name, n in r.ingredients.items():
            g = group_of.get(name, name)
            ingredients[g] = ingredients.get(g, 0) + n
        if group in ingredients:  # re-colouring a bed with dye is not a way to get one
            continue
        generic = Recipe(
            group, r.count, ingredients, r.needs_table, {k: v for k, v in r.accepts.items() if k in ingredients}
        )
        seen.setdefault(generic.key(), generic)
    return list(seen.values())

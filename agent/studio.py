"""The graph as LangGraph's own server loads it (`langgraph dev`, LangGraph Studio, the
LangGraph API): `langgraph.json` points at `graph` below, the compiled graph of agent/api.py.

Its input is the task, its context a form of plain values whose choices come from the parts'
registry (planner, world, selector, LLM, seed, budgets). Each run builds its own parts; a run
on a thread keeps them across interrupts. Set DEPS_STUDIO_INTERRUPT=1 to pause before every
skill, so a person can edit the plan or the chosen goal in Studio and resume.

    curl -s localhost:2024/runs/wait -H 'content-type: application/json' -d \
      '{"assistant_id": "deps", "input": {"task": "CraftPlanks"}, "context": {"planner": "oracle"}}'
"""

from __future__ import annotations

import os

from agent.api import make_graph

graph = make_graph(interrupt_before_execute=os.environ.get("DEPS_STUDIO_INTERRUPT") == "1")

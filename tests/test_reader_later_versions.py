"""The shipped reader adapter reads 1.17's raw_iron (round 3, 2026-11-29). Taught at 1.11.2 only, it
answered the rider's question for iron ingots at 1.19.2, whose recipe line smelts raw_iron, with
`mine iron pickaxe`, a name it had never seen taught, and 27 of the held-out items looped on it. The
question here is built by the rider's own prompt code; the answer is the model's, greedy."""

from __future__ import annotations

from agent.llm import open_chat_model
from agent.llm.local_server import LocalServer
from nodes.ask import ask
from nodes.planners.rider.prompt import skill_grammar, step_messages
from nodes.planners.rider.retrieval import ActionRetriever, vocabulary
from worlds.knowledge import load_kb


def test_the_shipped_reader_mines_raw_iron_for_ingots_at_1_19_2():
    kb = load_kb("1.19.2")
    held = {"stone_pickaxe": 1, "furnace": 1, "coal": 3, "crafting_table": 1, "stick": 2}
    msgs = step_messages(
        kb, {"iron_ingot": 3}, held, ["mine stone", "craft furnace", "mine coal"], missing=["raw_iron"]
    )
    assert "raw_iron" in msgs[-1].content and "iron_ore" in msgs[-1].content  # the line the rule reads
    names = vocabulary(kb, {"iron_pickaxe": 1})
    with LocalServer("reader", n_threads=2) as srv:
        with open_chat_model("local", server=srv, max_tokens=24, timeout=600) as h:
            text, used = ask(h.grammar_mode(skill_grammar(names)), msgs)
    assert used.get("calls") == 1
    action, _ = ActionRetriever(kb, names).retrieve(text)
    assert action is not None and (action.action, action.item) == ("mine", "raw_iron"), text

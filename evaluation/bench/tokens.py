"""Tokens per success for `deps bench` (`tokens_vs_naive`): the DEPS planner and explainer as
built here against a naive DEPS, the paper's way (the planner re-sends its whole dialogue every
round, and the explainer is asked inside that dialogue), on the same tasks with the same
scripted LLM replayed to both. The plans, outcomes and successes are therefore identical, and
only what each way sends the model differs; the figure is deterministic.

The scripted LLM. For each task, its first `MISTAKES` plans are the solver's plan from the
agent's current inventory with the step that makes the first station or tool a later step
needs left out (the paper's Figure 1 mistake: a pickaxe crafted without its table, stone mined
without its pickaxe); after that it answers with the solver's whole plan. Its explanation
restates the game's message. It reads the current inventory from the world, so the same
script gives both ways the same replies.

Tokens are counted as SmolLM2 (the embedded model) would see them: each message in its ChatML
frame, tokenised with the model's own vocabulary (llama-cpp-python, vocab only) when the local
extra is installed, else as characters / 4 (`tokens_counted_with` says which).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from nodes.describe import inventory_text
from nodes.planners.base import goals_to_text
from nodes.planners.llm import DialoguePlanner

TASKS = ("CraftWoodenPickaxe", "CraftStonePickaxe", "CraftIronPickaxe", "ObtainDiamond")
MISTAKES = 3  # wrong plans before the right one, per task (a small model looping on one mistake)
NAIVE_ASK = "Explain why it failed."
_ROLES = {"system": "system", "human": "user", "ai": "assistant"}


@lru_cache(maxsize=1)
def tokenizer() -> tuple[Callable[[str], list[int]], int, str]:
    """(tokenize(text) -> ids, how many ids make one token, what tokenised): SmolLM2's own
    vocabulary where llama-cpp-python and the packaged model are installed, else characters
    (4 to a token)."""
    try:
        from llama_cpp import Llama

        from agent.llm.local_server import find_model

        vocab = Llama(model_path=str(find_model("smollm2")), vocab_only=True, verbose=False)
        return (lambda text: vocab.tokenize(text.encode(), add_bos=False, special=True)), 1, "smollm2 vocabulary"
    except Exception:  # noqa: BLE001 - no local extra, or no packaged model: the estimate
        return (lambda text: [ord(c) for c in text]), 4, "characters / 4"


def framed(messages: list) -> str:
    """Chat messages as SmolLM2's ChatML template lays them out, up to the reply's header."""

    def one(role: str, content: str) -> str:
        return f"<|im_start|>{_ROLES.get(role, role)}\n{content}<|im_end|>\n"

    parts = [
        one(m.type, m.content if isinstance(m.content, str) else str(m.content)) if hasattr(m, "type") else one(*m)
        for m in messages
    ]
    return "".join(parts) + "<|im_start|>assistant\n"


class PrefixCache:
    """The server's prompt cache as llama-cpp-python keeps it: the token sequences of recent
    calls; a new prompt is evaluated from the longest prefix it shares with one of them."""

    def __init__(self, entries: int = 4):
        self.entries, self.keys = entries, []

    def hit(self, ids: list[int]) -> int:
        best = 0
        for key in self.keys:
            n = 0
            for a, b in zip(key, ids):
                if a != b:
                    break
                n += 1
            best = max(best, n)
        return best

    def add(self, ids: list[int]) -> None:
        self.keys = [*self.keys[-(self.entries - 1) :], list(ids)]


class ScriptedChat(BaseChatModel):
    """A chat model whose replies come from `script(messages)`; `meter(prompt_ids, reply_ids)`
    sees each call's tokens, and each reply carries its usage (prompt tokens as sent)."""

    script: Any
    tokenize: Any
    per_token: int = 1
    meter: Any = None

    @property
    def _llm_type(self) -> str:
        return "scripted-replay"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        reply = self.script(messages)
        prompt_ids, reply_ids = self.tokenize(framed(messages)), self.tokenize(reply)
        if self.meter is not None:
            self.meter(prompt_ids, reply_ids)
        tin, tout = -(-len(prompt_ids) // self.per_token), -(-len(reply_ids) // self.per_token)
        msg = AIMessage(reply, usage_metadata={"input_tokens": tin, "output_tokens": tout, "total_tokens": tin + tout})
        return ChatResult(generations=[ChatGeneration(message=msg)])


class ScriptedLLM:
    """The handle the planner and explainer get (the shape of agent.llm's): no grammar, no JSON
    schema, so both ways ask for the plain code form. It counts the tokens sent and, with a
    `cache`, the tokens the server must evaluate (those past the longest cached prefix)."""

    supports_grammar = False
    supports_json_schema = False
    name = "scripted"

    def __init__(self, kb: Any, task: Any, cache: PrefixCache | None = None):
        tokenize, self.per_token, _ = tokenizer()
        self.kb, self.task, self.world, self.wrong_plans, self.cache = kb, task, None, 0, cache
        self.sent = self.evaluated = 0
        self.naive_planner: NaiveDialoguePlanner | None = None
        self.model = ScriptedChat(script=self.reply, tokenize=tokenize, per_token=self.per_token, meter=self.meter)

    def json_mode(self, schema=None, **_):
        return self.model

    def meter(self, prompt_ids: list[int], reply_ids: list[int]) -> None:
        cached = self.cache.hit(prompt_ids) if self.cache is not None else 0
        self.sent += len(prompt_ids) + len(reply_ids)
        self.evaluated += len(prompt_ids) - cached + len(reply_ids)
        if self.cache is not None:
            self.cache.add(prompt_ids + reply_ids)

    def reply(self, messages: list[BaseMessage]) -> str:
        last = messages[-1].content if messages else ""
        if isinstance(last, str) and (last.startswith("Failed goal:") or last.endswith(NAIVE_ASK)):
            cause = next(
                (ln.split(":", 1)[1].strip() for ln in last.splitlines() if ln.startswith("Game message:")),
                "it lacked something",
            )
            return f"The goal failed because it {cause.rstrip('.')}; I must obtain that first."
        from worlds.solver import solve

        goals = solve(self.kb, dict(self.task.target), dict(self.world.inventory))
        if self.wrong_plans < MISTAKES:
            self.wrong_plans += 1
            needed = {g.tool for g in goals if g.tool}
            drop = next((k for k, g in enumerate(goals) if next(iter(g.obj)) in needed), None)
            if drop is not None:
                goals = goals[:drop] + goals[drop + 1 :]
        return goals_to_text(goals)


class NaiveDialoguePlanner(DialoguePlanner):
    """DEPS the paper's way: the whole dialogue, every round, however long."""

    def __init__(self, llm: Any):
        super().__init__(llm, name="deps-naive", output="text", history_chars=10**12)
        self.last: list = []
        self.last_reply = ""
        llm.naive_planner = self

    def messages(self, req, history_chars=None):
        self.last = super().messages(req, history_chars)
        return self.last

    def plan(self, req):
        result = super().plan(req)
        self.last_reply = result.text
        return result


class NaiveExplainer:
    """The paper's explainer: asked inside the planner's dialogue (its prompt, its last plan,
    then what failed)."""

    name = "naive"

    def __init__(self, llm: Any):
        self.llm = llm

    def explain(self, failed: str, error: str, inventory: dict[str, int]) -> tuple[str, dict]:
        from nodes.ask import ask

        planner = self.llm.naive_planner
        msgs = [
            *planner.last,
            AIMessage(planner.last_reply),
            HumanMessage(
                f"I failed on {failed}.\nGame message: {error}\n"
                f"My inventory now has {inventory_text(inventory)}. {NAIVE_ASK}"
            ),
        ]
        text, used = ask(self.llm.model, msgs)
        return text.strip(), used


def naive_planner(llm: Any) -> NaiveDialoguePlanner:
    return NaiveDialoguePlanner(llm)


def naive_explainer(llm: Any) -> NaiveExplainer:
    return NaiveExplainer(llm)


def _episode(task: Any, settings: Any, kb: Any, cache: PrefixCache | None) -> dict:
    from agent.graph import episode_graph
    from agent.runner import RECURSION_LIMIT, build_context

    llm = ScriptedLLM(kb, task, cache)
    ctx = build_context(task, settings, llm, kb)
    llm.world, llm.task = ctx.world, ctx.task
    start = {"task": ctx.task.to_dict(), "inventory": ctx.world.inventory, "env_steps": 0}
    state = episode_graph().invoke(start, config={"recursion_limit": RECURSION_LIMIT}, context=ctx)
    return {
        "success": state.get("status") == "success",
        "sent": llm.sent,
        "evaluated": llm.evaluated,
        "plans": len(state.get("plans", [])),
    }


def token_benchmarks(progress: Callable[[str], None] = lambda s: None) -> dict[str, float]:
    """Tokens per success of DEPS as built here and of the naive DEPS, on TASKS:
    - `tokens_vs_naive`: tokens the model evaluates (prompt past the server's cached prefix,
      plus the reply). Ours runs as `deps` runs it: one server for the run, its prompt cache
      warmed with the planner's and explainer's fixed parts (agent/llm/warm.py); the naive
      way is the paper's, an API that evaluates every token it is sent.
    - `tokens_sent_vs_naive`: tokens sent (prompt plus reply), with no cache on either side.
    - `tokens_vs_naive_on_same_server`: evaluated tokens, the naive dialogue also on a warmed server."""
    from agent.llm.warm import fixed_prefixes
    from nodes.settings import RunSettings
    from worlds.knowledge import load_kb
    from worlds.tasks import find_task, localize

    kb = load_kb("1.11.2")
    tokenize, per_token, counted_with = tokenizer()
    progress(f"bench: tokens per success, DEPS vs. the naive growing dialogue ({len(TASKS)} tasks, scripted LLM)")
    ours_settings = RunSettings(planner="deps", world="textworld")
    naive_settings = RunSettings(
        planner="evaluation.bench.tokens:naive_planner",
        explainer="evaluation.bench.tokens:naive_explainer",
        world="textworld",
    )

    def warmed() -> PrefixCache:
        cache = PrefixCache()
        for part in fixed_prefixes("deps"):  # what the server's warm-up evaluates when it starts
            cache.add(tokenize(framed(part)))
        return cache

    ours_cache, naive_cache = warmed(), warmed()
    totals = {"ours": [0, 0, 0], "naive": [0, 0, 0], "naive_cached": [0, 0, 0]}  # evaluated, sent, successes
    for name in TASKS:
        task = localize(find_task(name), kb)
        for key, settings, c in (
            ("ours", ours_settings, ours_cache),
            ("naive", naive_settings, None),
            ("naive_cached", naive_settings, naive_cache),
        ):
            r = _episode(task, settings, kb, c)
            totals[key][0] += r["evaluated"]
            totals[key][1] += r["sent"]
            totals[key][2] += int(r["success"])

    def per(key: str, i: int) -> float:
        t, s = totals[key][i], totals[key][2]
        return t / per_token / s if s else float("inf")

    return {
        "tokens_per_success_deps": round(per("ours", 0), 1),
        "tokens_per_success_naive": round(per("naive", 0), 1),
        "tokens_vs_naive": round(per("ours", 0) / per("naive", 0), 3),
        "tokens_sent_per_success_deps": round(per("ours", 1), 1),
        "tokens_sent_vs_naive": round(per("ours", 1) / per("naive", 1), 3),
        # the naive dialogue on the same warmed server (append-only, so it caches well too)
        "tokens_vs_naive_on_same_server": round(per("ours", 0) / per("naive_cached", 0), 3),
        "tokens_successes": float(totals["ours"][2]),
        "tokens_counted_with_smollm2": 1.0 if counted_with == "smollm2 vocabulary" else 0.0,
    }

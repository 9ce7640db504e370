"""The LLaMA-Rider planner (nodes/planners/rider/) and its exploration data (training/collect.py),
run through the real graph, world and eval harness with scripted LLM replies."""

from __future__ import annotations

import json

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from agent.runner import run_episode
from evaluation.runner import run_eval
from nodes.parse import GoalParser
from nodes.planners.base import PlanRequest
from nodes.planners.rider import RiderPlanner
from nodes.planners.rider.prompt import read_record
from nodes.planners.rider.retrieval import ActionRetriever
from nodes.settings import RunSettings
from training.collect import Collector, episode_examples, merge, source_of, unique_examples
from training.data import DatasetError, load_dataset
from worlds.knowledge import load_kb
from worlds.types import Task

KB = load_kb("1.11.2")
PICKAXE = Task("craft_wooden_pickaxe", "log", "craft wooden pickaxe", {"wooden_pickaxe": 1}, 3000, suite="rider-test")
# a small model's exploration: a wrong first skill, a loose name, then the right ones
GOOD = [
    "Next skill: craft wooden pickaxe",
    "Next skill: harvest wood",
    "Next skill: mine log",
    "Next skill: mine log",
    "Next skill: craft wooden planks",
    "Next skill: craft planks",
    "Next skill: craft planks",
    "Next skill: get sticks",
    "Next skill: craft crafting table",
    "Next skill: craft wooden pickaxe",
]


class _Recording(FakeListChatModel):
    """LangChain's fake chat model, keeping every prompt it was sent."""

    seen: list = []

    def _call(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(list(messages))
        return super()._call(messages, stop=stop, run_manager=run_manager, **kwargs)


class RecordingLLM:
    supports_json_schema = False
    name = "fake"

    def __init__(self, replies: list[str]):
        self.model = _Recording(responses=replies, seen=[])

    @property
    def prompts(self) -> list[list]:
        return self.model.seen


def _user_texts(llm: RecordingLLM) -> list[str]:
    return [next(m.content for m in reversed(msgs) if m.type == "human") for msgs in llm.prompts]


def test_the_planner_proposes_one_skill_the_parser_reads_exactly():
    llm = RecordingLLM(["Next skill: harvest wood"])
    req = PlanRequest(task=PICKAXE, inventory={}, plans=[], descriptions=[], explanations=[], kb=KB)
    result = RiderPlanner(llm).plan(req)
    goals, notes = GoalParser(KB).parse(result.text)
    assert [g.code() for g in goals] == ["mine({'log':1}, null)"] and not notes
    record = read_record(result.text)
    assert record["reply"] == "Next skill: harvest wood" and record["skill"] == "mine log"
    assert result.usage["calls"] == 1
    question = llm.prompts[0][-1].content
    assert "Task: obtain 1 wooden_pickaxe" in question and "3 planks + 2 stick on a crafting_table" in question


def test_the_requirement_check_asks_first_and_feeds_the_skill_question():
    llm = RecordingLLM(
        ["planks: wants 3, holds 0, missing 3. Still missing: 3 planks, 2 stick.", "Next skill: mine log"]
    )
    req = PlanRequest(task=PICKAXE, inventory={}, plans=[], descriptions=[], explanations=[], kb=KB)
    result = RiderPlanner(llm, cot=True).plan(req)
    assert (
        result.usage["calls"] == 2 and "Recipe wants: 3 planks, 2 stick, 1 crafting_table" in llm.prompts[0][-1].content
    )
    assert "My check of the recipe: planks: wants 3" in llm.prompts[1][-1].content
    assert read_record(result.text)["skill"] == "mine log"


def test_feedback_revision_sends_the_worlds_cause_back_and_gives_up_after_T():
    # the revisions vary the skill: the same refused skill a third time is a loop (tests/test_loops.py)
    # revisions count per sub-task: the pickaxe's refusal makes planks the sub-task, which then
    # takes 2 refused revisions before the third ends the exploration
    llm = RecordingLLM(
        [
            "Next skill: craft wooden pickaxe",
            "Next skill: craft stick",
            "Next skill: craft wooden pickaxe",
            "Next skill: craft stick",
        ]
    )
    result = run_episode(PICKAXE, RunSettings(planner="rider").configure("rider", revisions=2), llm=llm, kb=KB)
    assert not result["success"] and result["llm_calls"] == 4  # the skill, the move to planks, 2 revisions there
    assert "gave up after 2 revision(s)" in result["failure_reason"]
    revision = llm.prompts[1][-1].content
    assert 'My last answer was "Next skill: craft wooden pickaxe"' in revision
    assert "needs 3 planks, has 0" in revision  # the world's own cause
    assert "craft 4 planks from 1 log" in revision  # and the recipe for what is missing
    none = run_episode(
        PICKAXE,
        RunSettings(planner="rider").configure("rider", revisions=0),
        llm=RecordingLLM(["Next skill: craft wooden pickaxe"]),
        kb=KB,
    )
    assert none["llm_calls"] == 1 and "gave up after 0" in none["failure_reason"]


def test_a_revised_exploration_succeeds_and_relabelling_changes_the_prompts_task():
    on = RecordingLLM(GOOD)
    result = run_episode(PICKAXE, RunSettings(planner="rider"), llm=on, kb=KB)
    assert result["success"] and result["llm_calls"] == 10
    tasks = [t.splitlines()[0] for t in _user_texts(on) if t.startswith("Task:")]
    assert "Task: obtain 3 log" in tasks and "Task: obtain 12 planks" in tasks
    off = RecordingLLM(GOOD)
    assert run_episode(PICKAXE, RunSettings(planner="rider").configure("rider", relabel=False), llm=off, kb=KB)[
        "success"
    ]
    assert {t.splitlines()[0] for t in _user_texts(off) if t.startswith("Task:")} == {"Task: obtain 1 wooden_pickaxe"}


def test_action_retrieval_maps_free_text_to_a_skill(monkeypatch):
    r = ActionRetriever(KB)
    cases = {
        "Next skill: craft wooden planks": "craft planks",
        "harvest wool": "kill sheep",
        "get iron ingot": "smelt iron_ingot",
        "place crafting table nearby": "craft crafting_table",
        "harvest beef": "kill cow",
        "chop wood": "mine log",
        "get sticks": "craft stick",
    }
    for text, want in cases.items():
        action, _ = r.retrieve(text)
        assert f"{action.action} {action.item}" == want, text

    import torch

    import skills.embeddings as emb  # the embedding step, with a deterministic bag-of-words stand-in

    def bag(texts):
        vocab = ["mine", "craft", "ladder", "stone", "slab", "stick", "brick", "fence", "door"]
        v = torch.tensor([[float(w in t.split()) for w in vocab] for t in texts]) + 1e-3
        return v / v.norm(dim=1, keepdim=True)

    monkeypatch.setattr(emb, "embed", bag)
    action, how = r.retrieve("craft a stone ladder thing")  # no item is named so: nouns, then the embedding
    assert how.endswith("embedding") and action.action == "craft"


def test_a_group_noun_is_the_groups_own_skill_from_1_13_on():
    """At 1.16.5 planks and log are groups, not items: "mine log" once went to jungle logs by
    embedding, and "craft planks" to oak planks with no oak log held, so the rider looped."""
    from worlds.textworld import TextWorld

    kb = load_kb("1.16.5")
    r = ActionRetriever(kb)
    for text, want in {
        "Next skill: craft planks": "craft planks",
        "Next skill: mine log": "mine log",
        "Next skill: mine oak log": "mine oak_log",  # a member named stays that member
        "Next skill: craft wool": "kill sheep",  # a group got by killing keeps the mob's skill
    }.items():
        action, _ = r.retrieve(text)
        assert f"{action.action} {action.item}" == want, text
    assert ActionRetriever(kb, frozenset({"oak_log"})).retrieve("mine log")[1] == "group"
    assert ActionRetriever(kb, frozenset({"stone"})).retrieve("mine log")[1] != "group"  # not on the allowed list
    assert ActionRetriever(KB).retrieve("mine log")[1] != "group"  # 1.11.2's log is an item
    world = TextWorld(kb)
    world.reset(seed=0, options={"target": {"barrel": 1}, "max_steps": 3000})
    (_, _, _, _, refused), (_, _, _, _, mined) = (
        world.step({"action": a, "item": i}) for a, i in (("craft", "planks"), ("mine", "log"))
    )
    assert refused["missing"] == {"log": 1} and mined["ok"]  # the refusal names the group the model knows


def _eval(tmp_path, collect, llm, episodes=2, resume=False):
    return run_eval(
        [PICKAXE],
        RunSettings(planner="rider"),
        episodes=episodes,
        out_dir=tmp_path / "run",
        llm=llm,
        progress=False,
        report=False,
        resume=resume,
        collect=collect,
    )


def test_collect_writes_valid_examples_and_a_card_and_resumes(tmp_path):
    out = tmp_path / "data"
    collector = Collector(str(out), RunSettings(planner="rider", llm="openai:x"), command="deps eval test")
    summary = _eval(tmp_path, collector, RecordingLLM(GOOD))
    assert summary["success_rate"] == 1.0
    data = load_dataset(out)  # the training side's own loader and validator
    ex = data.examples
    assert data.card["episodes"] == 2 and data.card["examples"] == len(ex) and data.card["base_model"] == "any"
    assert {e["source"] for e in ex} == {"teacher:openai:x"} and {e["format"] for e in ex} == {"rider-step"}
    assert source_of(RunSettings(planner="rider")) == "exploration"  # the embedded model explores
    plain = [e for e in ex if not e["relabelled"]]
    assert len(plain) == 2 * 9  # the 9 skills that ran, per episode (not the failed one)
    assert plain[0]["messages"][-1] == {"role": "assistant", "content": "Next skill: mine log"}
    assert "Task: obtain 1 wooden_pickaxe" in plain[0]["messages"][-2]["content"]
    sub = [e for e in ex if e["relabelled"]]
    assert sub and all("Task: obtain 1 wooden_pickaxe" not in e["messages"][-2]["content"] for e in sub)
    assert data.card["counts"]["relabelled"] == len(sub)
    again = Collector(str(out), RunSettings(planner="rider", llm="openai:x"), resume=True)
    _eval(tmp_path, again, RecordingLLM(GOOD), episodes=3, resume=True)  # one more episode
    assert load_dataset(out).card["episodes"] == 3 and len(load_dataset(out).examples) == len(ex) * 3 // 2


def test_a_failed_episode_keeps_only_completed_subtasks():
    llm = RecordingLLM(
        ["Next skill: mine log", "Next skill: mine log", "Next skill: mine log", "Next skill: craft wooden pickaxe"]
    )
    row = run_episode(PICKAXE, RunSettings(planner="rider").configure("rider", revisions=0), llm=llm, kb=KB)
    assert not row["success"]
    ex = episode_examples(KB, {**row, "task_id": PICKAXE.id})
    assert len(ex) == 3 and all(e["relabelled"] and e["subtask"] == "log" for e in ex)


def test_the_oracle_teacher_answers_the_same_questions_without_an_llm(tmp_path):
    from training.rider_teacher import NAME

    settings = RunSettings(planner=NAME)
    collector = Collector(str(tmp_path / "t"), settings)
    summary = run_eval(
        [PICKAXE], settings, episodes=1, out_dir=tmp_path / "run", progress=False, report=False, collect=collector
    )
    assert summary["success_rate"] == 1.0 and summary["tokens_in"] == 0
    data = load_dataset(tmp_path / "t")
    assert {e["source"] for e in data.examples} == {"teacher:oracle"} and data.card["base_model"] == "any"
    assert data.examples[0]["messages"][-1]["content"] == "Next skill: mine log"
    merged = merge(str(tmp_path / "both"), [str(tmp_path / "t"), str(tmp_path / "t")])  # a second round's data
    assert merged["examples"] == 2 * len(data.examples) and load_dataset(tmp_path / "both").card["episodes"] == 2


def test_merge_unique_keeps_each_pair_once_and_drops_prompts_answered_two_ways(tmp_path):
    from training.collect import main as collect_main
    from training.rider_teacher import NAME

    settings = RunSettings(planner=NAME)
    run_eval(
        [PICKAXE],
        settings,
        episodes=1,
        out_dir=tmp_path / "run",
        progress=False,
        report=False,
        collect=Collector(str(tmp_path / "t"), settings),
    )
    data = load_dataset(tmp_path / "t")
    pairs = {json.dumps(e["messages"]) for e in data.examples}
    assert collect_main(["merge", "--unique", str(tmp_path / "u"), str(tmp_path / "t"), str(tmp_path / "t")]) == 0
    once = load_dataset(tmp_path / "u")
    assert len(once.examples) == len(pairs) < 2 * len(data.examples)
    assert once.card["counts"]["duplicates_dropped"] == 2 * len(data.examples) - len(pairs)
    # a prompt the data answers two ways teaches neither reply: both go
    other = [
        dict(e, messages=[*e["messages"][:-1], {"role": "assistant", "content": "Next skill: craft planks"}])
        for e in data.examples[:1]
    ]
    kept, counts = unique_examples(data.examples + other)
    prompt = json.dumps(data.examples[0]["messages"][:-1])
    assert counts["ambiguous_prompts_dropped"] == 1
    assert all(json.dumps(e["messages"][:-1]) != prompt for e in kept)
    assert collect_main(["merge", "--uniq", str(tmp_path / "x"), str(tmp_path / "t")]) == 2  # a typo: usage, exit 2


def test_collect_refuses_a_folder_it_does_not_own(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(DatasetError, match="holds other files"):
        Collector(str(tmp_path), RunSettings(planner="rider", llm="openai:x"))
    data = tmp_path / "d"
    data.mkdir()
    (data / "card.json").write_text(json.dumps({"format": "deps-sft/1"}))
    with pytest.raises(DatasetError, match="already holds a dataset"):
        Collector(str(data), RunSettings(planner="rider", llm="openai:x"))


def test_the_cli_takes_the_rider_flags():
    from agent.cli import _settings, build_parser

    a = build_parser().parse_args(
        [
            "eval",
            "--suite",
            "plan4mc",
            "--out",
            "x",
            "--planner",
            "rider",
            "--revisions",
            "3",
            "--no-relabel",
            "--rider-cot",
            "--collect",
            "d",
        ]
    )
    s = _settings(a)
    rider = s.option("rider")
    assert (s.planner, rider.revisions, rider.relabel, rider.rider_cot, a.collect) == ("rider", 3, False, True, "d")

"""Fine-tuning the embedded model (issue 7): the deps-sft/1 dataset, the oracle teacher,
`deps train llm` (LoRA on the shipped GGUF's weights, a GGUF LoRA adapter out), serving an
adapter with the local llama.cpp server, and the bad inputs, each refused with one line and
nothing half-written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agent.cli import main
from training.data import CARD_FILE, TRAIN_FILE, DatasetError, default_base_model, load_dataset, write_dataset


def _example(task: str = "CraftStick", reply: str = "mine({'log':1}, null)  # step 1: mine 1 log\n") -> dict:
    return {
        "messages": [
            {"role": "system", "content": "plan"},
            {"role": "user", "content": "How to obtain 1 stick?"},
            {"role": "assistant", "content": reply},
        ],
        "task": task,
        "source": "teacher:oracle",
        "format": "deps-plan",
        "relabelled": False,
    }


def _one_line_error(capsys, argv: list[str]) -> str:
    rc = main(argv)
    err = capsys.readouterr().err.strip()
    assert rc == 2, err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if ": error: " in line]  # `deps run` also prints its task first
    assert len(errors) == 1, err
    return errors[0]


@pytest.fixture(scope="module")
def base_id() -> dict:
    return default_base_model()


@pytest.fixture()
def good_data(tmp_path, base_id) -> Path:
    write_dataset(tmp_path / "data", [_example(), _example("CraftPlanks")], base_model=base_id, command="test")
    return tmp_path / "data"


# --------------------------------------------------------------------------- the dataset
def test_dataset_round_trip_and_card(good_data, base_id):
    ds = load_dataset(good_data, base_model=base_id)
    assert [e["task"] for e in ds.examples] == ["CraftStick", "CraftPlanks"]
    assert ds.card["examples"] == 2 and ds.card["tasks"] == ["CraftPlanks", "CraftStick"]
    assert ds.card["counts"]["source:teacher:oracle"] == 2
    assert not [p for p in good_data.parent.iterdir() if p.name.startswith(".")]  # no temp folder left


@pytest.mark.parametrize(
    "breakage, words",
    [
        ("empty", "no examples"),
        ("malformed", "not valid JSON"),
        ("missing_key", "missing key 'source'"),
        ("bad_role", "messages[1]"),
        ("last_not_assistant", "last message must be"),
        ("no_card", "needs card.json"),
        ("foreign_base", "was written for base model"),
    ],
)
def test_bad_dataset_one_line_and_nothing_written(tmp_path, good_data, capsys, breakage, words):
    train, card = good_data / TRAIN_FILE, good_data / CARD_FILE
    if breakage == "empty":
        train.write_text("")
        c = json.loads(card.read_text())
        c["examples"] = 0
        card.write_text(json.dumps(c))
    elif breakage == "malformed":
        train.write_text(train.read_text() + "{not json\n")
    elif breakage == "missing_key":
        ex = _example()
        del ex["source"]
        train.write_text(json.dumps(ex) + "\n")
    elif breakage == "bad_role":
        ex = _example()
        ex["messages"][1]["role"] = "robot"
        train.write_text(json.dumps(ex) + "\n")
    elif breakage == "last_not_assistant":
        ex = _example()
        ex["messages"] = ex["messages"][:2]
        train.write_text(json.dumps(ex) + "\n")
    elif breakage == "no_card":
        card.unlink()
    elif breakage == "foreign_base":
        c = json.loads(card.read_text())
        c["base_model"] = {"file": "other.gguf", "sha256": "0" * 64}
        card.write_text(json.dumps(c))
    out = tmp_path / "out"
    err = _one_line_error(capsys, ["train", "llm", "--data", str(good_data), "--out", str(out), "--quiet"])
    assert words in err
    assert not out.exists()


def test_write_dataset_validates_first_and_writes_nothing(tmp_path, base_id):
    bad = _example()
    bad["format"] = "essay"
    with pytest.raises(DatasetError, match="'format'"):
        write_dataset(tmp_path / "d", [_example(), bad], base_model=base_id)
    assert not (tmp_path / "d").exists() and not list(tmp_path.iterdir())


def test_unwritable_out_one_line(tmp_path, good_data, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    err = _one_line_error(capsys, ["train", "llm", "--data", str(good_data), "--out", str(blocker / "out"), "--quiet"])
    assert "cannot write there" in err or "not a folder" in err


def test_init_from_an_adapter_made_for_another_base_is_one_line(tmp_path, good_data, capsys):
    from tests.shipped_adapter import SMOLLM2_135M as shape
    from training.gguf_export import write_lora_gguf
    from training.gguf_import import read_lora_gguf

    shipped = Path(__file__).resolve().parents[1] / "agent" / "adapters" / "reader" / "adapter.gguf"
    other = tmp_path / "other"
    other.mkdir()
    write_lora_gguf(other / "adapter.gguf", read_lora_gguf(shipped, config=shape), config=shape, alpha=32.0,
                    base_model={"file": "another-model.gguf", "sha256": "0" * 64})  # fmt: skip
    args = ["train", "llm", "--data", str(good_data), "--out", str(tmp_path / "out"), "--init", str(other), "--quiet"]
    assert "made for another-model.gguf" in _one_line_error(capsys, args)
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- the teacher
def test_teacher_uses_the_planners_own_messages_and_the_grammar_form(tmp_path):
    from nodes.parse import parse_call
    from nodes.planners.base import PlanRequest
    from nodes.planners.llm import DialoguePlanner
    from training.teacher import first_plan_example, make_teacher_dataset
    from worlds.knowledge import load_kb
    from worlds.tasks import find_task, localize

    kb = load_kb("1.11.2")
    task = localize(find_task("CraftWoodenPickaxe"), kb)
    ex = first_plan_example(task, kb)
    req = PlanRequest(task=task, inventory={}, plans=[], descriptions=[], explanations=[], kb=kb, recipe_hints=True)
    sent = [m.content for m in DialoguePlanner(None, output="grammar").messages(req)]
    assert [m["content"] for m in ex["messages"][:-1]] == sent
    reply = ex["messages"][-1]["content"]
    lines = reply.splitlines()
    assert reply.endswith("\n") and len(lines) <= 16
    goals = [parse_call(line.split("  # ")[0]) for line in lines]
    assert goals[-1].obj == {"wooden_pickaxe": 1}
    assert all("  # step " in line for line in lines)

    card = make_teacher_dataset(tmp_path / "t", ["plan4mc"], holdout="plan4mc:iron")
    held = set(card["counts"]["held_out_tasks"])
    assert held and not held & set(card["tasks"])
    assert all(e["source"] == "teacher:oracle" for e in load_dataset(tmp_path / "t").examples)


# --------------------------------------------------------------------------- adapters
def _fake_adapter(path: Path, base: dict) -> Path:
    from training.gguf_export import write_lora_gguf

    class Cfg:
        num_hidden_layers, num_attention_heads, num_key_value_heads = 30, 9, 3

    rng = np.random.default_rng(0)
    state = {
        "base_model.model.model.layers.0.self_attn.v_proj.lora_A.weight": rng.normal(size=(2, 576)),
        "base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight": np.zeros((192, 2)),
    }
    return write_lora_gguf(path, state, config=Cfg(), alpha=4.0, base_model=base)


def test_replan_examples_answer_a_real_failure_with_a_plan_that_works_from_there():
    """A re-planning turn: the oracle's plan with one goal left out fails in the text world;
    the description is the graph's own, and the teacher's new plan, run from the inventory at
    the failure, reaches the target."""
    from dataclasses import replace

    from agent.runner import run_episode
    from nodes.settings import RunSettings
    from training.teacher import _ScriptedLLM, replan_examples
    from worlds.knowledge import load_kb
    from worlds.tasks import find_task, localize

    kb = load_kb("1.11.2")
    task = localize(find_task("CraftStoneSword"), kb)
    ex = replan_examples(task, kb, 3)
    plans = [e for e in ex if e["format"] == "deps-plan"]
    explains = [e for e in ex if e["format"] == "deps-explain"]
    assert len(plans) == len(explains) >= 2
    for e, x in zip(plans, explains):
        user = e["messages"][-2]["content"]
        assert ("failed on step" in user or "do not have 1 stone_sword" in user) and "Fix the plan" in user
        flawed = e["messages"][-3]["content"]
        assert e["messages"][-3]["role"] == "assistant" and flawed.count("\n") >= 2
        assert x["messages"][-1]["content"] in user  # its explanation is the one the re-plan reads
        assert x["messages"][0]["content"].startswith("You explain why")
        fix = e["messages"][-1]["content"]
        assert fix not in flawed
        again = run_episode(
            replace(task, inventory=e["inventory"]),
            RunSettings(planner="deps", max_rounds=0),
            llm=_ScriptedLLM([fix]),
            kb=kb,
        )
        assert again["success"], (fix, again["failure_reason"])


def test_adapter_files_checked(tmp_path, base_id, capsys):
    from agent.llm.adapter_file import AdapterError, adapter_info
    from agent.llm.local_server import LocalServerError, find_adapter, find_model

    ok = _fake_adapter(tmp_path / "ok.gguf", base_id)
    assert adapter_info(ok)["base_model"] == base_id and find_adapter(str(ok)) == ok
    with pytest.raises(AdapterError, match="not a LoRA adapter"):
        adapter_info(find_model("smollm2"))
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"this is not a model at all")
    with pytest.raises(AdapterError, match="not a GGUF file"):
        adapter_info(junk)
    with pytest.raises(LocalServerError, match="not a GGUF model or LoRA adapter"):
        find_adapter(str(junk))
    foreign = _fake_adapter(tmp_path / "foreign.gguf", {"file": "other.gguf", "sha256": "f" * 64})
    with pytest.raises(LocalServerError, match="was trained on other.gguf"):
        find_adapter(str(foreign))
    err = _one_line_error(capsys, ["run", "CraftWoodenPickaxe", "--llm", f"local:{foreign}", "--quiet"])
    assert "was trained on other.gguf" in err


# --------------------------------------------------------------------------- the whole pipeline
def test_pipeline_tiny(tmp_path, capsys):
    """Teacher data for two tasks, two optimizer steps, the adapter converted, served by the
    local llama.cpp server on the base model, and one plan asked of it."""
    from agent.llm import open_chat_model
    from agent.llm.local_server import LocalServer
    from nodes.ask import ask
    from nodes.parse import parse_call
    from nodes.planners.grammar import code_form_grammar
    from training.teacher import make_teacher_dataset
    from worlds.knowledge import load_kb

    data, out = tmp_path / "data", tmp_path / "adapter"
    make_teacher_dataset(data, [str(_two_task_suite(tmp_path))], holdout="none")
    assert (
        main(
            [
                "train",
                "llm",
                "--data",
                str(data),
                "--out",
                str(out),
                "--steps",
                "2",
                "--batch-size",
                "2",
                "--layers",
                "2",
                "--max-len",
                "256",
                "--quiet",
                "--json",
            ]
        )
        == 0
    )
    card = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert card["train"]["steps"] == 2 and card["adapter"]["bytes"] > 0
    assert sorted(p.name for p in out.iterdir()) == ["adapter.gguf", "card.json", "peft"]

    # --init goes on from that adapter (its rank, not the one given): one step at a tiny rate leaves its
    # weights where they were, where fresh weights would start with every LoRA B matrix at zero
    again = tmp_path / "again"
    common = ["--data", str(data), "--steps", "1", "--batch-size", "2", "--max-len", "256", "--quiet", "--json"]
    assert main(["train", "llm", *common, "--out", str(again), "--init", str(out), "--rank", "4", "--lr", "1e-9"]) == 0
    card2 = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert card2["adapter"]["rank"] == card["adapter"]["rank"] == 8 and card2["train"]["init"] == str(out)
    from safetensors.torch import load_file

    before, after = (load_file(str(d / "peft" / "adapter_model.safetensors")) for d in (out, again))
    b_keys = [k for k in before if "lora_B" in k]
    assert b_keys and any(before[k].abs().max() > 0 for k in b_keys)
    assert all((before[k] - after[k]).abs().max() < 1e-4 for k in b_keys)

    assert "run_settings" not in card2  # a card without them passes none on

    # and from a shipped adapter, which has no peft/ folder: its GGUF weights are read back, and the
    # settings it was taught and measured with come with them, so the new adapter runs as it did
    shipped = Path(__file__).resolve().parents[1] / "agent" / "adapters" / "deps-reader"
    third = tmp_path / "third"
    assert main(["train", "llm", *common, "--out", str(third), "--init", str(shipped), "--lr", "1e-9"]) == 0
    card3 = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert card3["adapter"]["rank"] == 16 and card3["adapter"]["alpha"] == 32.0
    was_taught = json.loads((shipped / "card.json").read_text())["run_settings"]
    assert {k: v for k, v in card3["run_settings"].items() if k != "why"} == {
        k: v for k, v in was_taught.items() if k != "why"
    }
    from agent.llm.taught import taught

    assert taught(f"local:{third / 'adapter.gguf'}", "deps")["max_rounds"] == 30
    assert taught(f"local:{out / 'adapter.gguf'}", "deps") == {}
    from tests.shipped_adapter import SMOLLM2_135M
    from training.gguf_import import read_lora_gguf

    was = read_lora_gguf(shipped / "adapter.gguf", config=SMOLLM2_135M)
    now = load_file(str(third / "peft" / "adapter_model.safetensors"))
    assert len(now) == len(was) == 420
    assert all((now[k] - was[k]).abs().max() < 1e-3 for k in was)

    with LocalServer(str(out / "adapter.gguf")) as srv:
        assert srv.lora_path == out / "adapter.gguf"
        assert "loading lora adapter" in srv.log_path.read_text()
        with open_chat_model("local", server=srv, max_tokens=60, timeout=600) as h:
            # the question alone (the planner's full prompt is ~1000 tokens: slow on a busy CPU),
            # under the planner's own grammar, the one that ends a plan at the task's item
            text, used = ask(
                h.grammar_mode(code_form_grammar(load_kb("1.11.2"), target={"stick": 1})),
                [("user", "How to obtain 1 stick? My inventory is empty.")],
            )
    assert used.get("calls") == 1
    first = text.splitlines()[0]
    assert parse_call(first.split("  # ")[0]).action in ("mine", "craft", "smelt", "kill", "equip")


def _two_task_suite(tmp_path: Path) -> Path:
    suite = tmp_path / "two.yaml"
    suite.write_text(
        "- {id: CraftStick, group: MT1, instruction: Obtain a stick., target: {stick: 1}, max_steps: 3000}\n"
        "- {id: CraftPlanks, group: MT1, instruction: Obtain a plank., target: {planks: 1}, max_steps: 3000}\n"
    )
    return suite


def test_the_shipped_adapter_is_the_one_its_card_describes():
    """`--llm local` serves agent/adapters/rider: its card names the file's checksum and the
    installed base model, and the file reads back as an adapter for that model."""
    from agent.llm.adapter_file import adapter_info
    from agent.llm.local_server import RIDER_ADAPTER, find_adapter, find_model
    from training.data import base_model_id, file_sha256

    card = json.loads((RIDER_ADAPTER.parent / "card.json").read_text())
    assert card["adapter"]["sha256"] == file_sha256(RIDER_ADAPTER)
    assert card["base_model"] == base_model_id(find_model("smollm2")) == adapter_info(RIDER_ADAPTER)["base_model"]
    assert find_adapter("rider") == RIDER_ADAPTER and find_adapter("smollm2") is None
    assert card["adapter"]["tensors"] == adapter_info(RIDER_ADAPTER)["tensors"]

"""Whole-game teacher data (issue 23, part 2): the held-out rule, the start inventories, the
stumbling rider teacher's revision turns, and that no held-out item is ever a training target."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from training.data import DatasetError
from training.whole_game import (
    HOLDOUT_RULE,
    check_no_heldout,
    parse_rule,
    split_items,
    start_inventories,
    suite_tree_items,
    training_tasks,
)
from worlds.knowledge import load_kb

ROOT = Path(__file__).resolve().parents[1]
_TASK_LINE = re.compile(r"^Task: obtain (\d+) (\S+)$", re.M)


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


@pytest.fixture(scope="module")
def split(kb):
    return split_items(kb)


def test_rule_holds_out_at_least_100_items_outside_the_suites_trees(kb, split):
    tree = suite_tree_items(kb)
    assert split.rule == HOLDOUT_RULE
    assert len(split.held_out) >= 100
    assert not set(split.held_out) & tree
    assert not set(split.held_out) & set(split.train)
    assert sorted(split.held_out + split.train) == sorted(split.items)
    again = split_items(kb, HOLDOUT_RULE, split.items)  # the rule is a function of the names only
    assert again.held_out == split.held_out
    other = split_items(kb, "sha256:another-salt:55", split.items)
    assert other.held_out != split.held_out


def test_a_later_version_holds_out_the_items_first_drawn_under_their_new_names(split):
    """The held-out suite's items keep their place at 1.19.2 although renamed there: the rule's hash of
    green_dye alone would have let cactus_green's data in. 1.11.2's dye became 16 items: all held out."""
    kb19 = load_kb("1.19.2")
    later = split_items(kb19)
    assert not set(later.held_out) & set(later.train) and not set(later.held_out) & suite_tree_items(kb19)
    for old, new in [("cactus_green", "green_dye"), ("yellow_flower", "dandelion"), ("melon", "melon_slice"),
                     ("netherbrick", "nether_brick"), ("snow", "snow_block")]:  # fmt: skip
        assert old in split.held_out and new in later.held_out
    assert {"ink_sac", "lapis_lazuli", "bone_meal", "cocoa_beans"} <= set(later.held_out)
    for item in split.held_out:  # every held-out item that keeps its name is held out there too
        assert not (item in later.items and item in later.train)


@pytest.mark.parametrize("text", ["", "md5:x:10", "sha256:x:0", "sha256:x:101", "sha256::5", "sha256:x:5:6"])
def test_bad_rule_is_one_line(text):
    with pytest.raises(DatasetError) as e:
        parse_rule(text)
    assert "\n" not in str(e.value) and "accepted: sha256:SALT:PCT" in str(e.value)


def test_rule_that_leaves_no_training_item_is_refused(kb, split):
    pool = split.held_out[:5]
    with pytest.raises(DatasetError, match="leaves no training data"):
        split_items(kb, "sha256:deps-23:100", pool)
    assert parse_rule("none") is None and split_items(kb, "none", pool).held_out == []


def test_start_inventories_vary(kb):
    got = dict(start_inventories(kb, "iron_sword"))
    assert got["empty"] == {}
    assert got["partway"] and all(kb.canonical(k) for k in got["partway"])
    assert got["tool"] and set(got["tool"]) <= {"wooden_pickaxe", "stone_pickaxe", "crafting_table", "furnace"}
    assert got["better-tool"] == {"iron_pickaxe": 1}  # the plan needs a stone pickaxe at most
    assert "better-tool" not in dict(start_inventories(kb, "stick"))


def test_no_heldout_item_is_a_target_or_a_task_line(kb, split):
    from training.rider_whole import rider_examples
    from training.teacher import teacher_examples

    held = set(split.held_out)
    tasks = training_tasks(kb, split)
    assert not {t for task in tasks for t in task.target} & held
    # training items whose recipe goes through a held-out one (glass_pane through glass, ...)
    through = [t for t in tasks if t.group == "empty" and t.id.split("@")[0] in ("glass_pane", "bucket")][:2]
    assert through
    raw, info = rider_examples(through, kb)
    assert info["successes"] == len(through)

    def lines(exs):
        return {
            m.group(2)
            for e in exs
            for msg in e["messages"]
            if msg["role"] == "user"
            for m in _TASK_LINE.finditer(msg["content"])
        }

    kept = check_no_heldout(raw, held)
    assert lines(raw) & held  # unfiltered, relabelled sub-tasks name held-out items
    assert not lines(kept) & held  # after the filter no task line does
    assert len(kept) < len(raw)
    deps, _ = teacher_examples(through, kb, augment=1, replans=1, holdout=held)
    assert deps and not {e["task"].split("@")[0] for e in deps} & held


def test_stumbling_teacher_gives_revision_turns_from_real_refusals(kb, split):
    from training.rider_whole import rider_examples

    tasks = [t for t in training_tasks(kb, split) if t.group == "empty"][:12]
    examples, _ = rider_examples(tasks, kb)
    revisions = [e for e in examples if e.get("revision")]
    assert revisions
    for e in revisions:
        question = e["messages"][-2]["content"]
        assert "could not run" in question and "cannot" in question  # the world's own refusal
        assert e["messages"][-1]["content"].startswith("Next skill: ")
        assert e["messages"][-1]["content"] not in question.split("\n")[0]  # not the refused reply again


def test_out_folder_of_another_version_is_refused(tmp_path):
    from training.whole_game_data import check_out_folder

    d = tmp_path / "data"
    d.mkdir()
    (d / "card.json").write_text(json.dumps({"format": "deps-sft/1", "counts": {"mc_version": "1.16.5"}}))
    with pytest.raises(DatasetError, match="holds a dataset for Minecraft 1.16.5, not 1.11.2"):
        check_out_folder(d, "1.11.2")
    check_out_folder(d, "1.16.5")


def test_cli_bad_rule_one_line_and_nothing_written(tmp_path):
    out = tmp_path / "data"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent.cli",
            "train",
            "llm-data",
            "--targets",
            "all",
            "--holdout-rule",
            "sha256:x:0",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "accepted: sha256:SALT:PCT" in r.stderr
    assert not out.exists()


def test_episode_cache_reuses_stored_rows_and_runs_the_rest(kb, split, tmp_path):
    from training.whole_game_data import _rows, one_variant_each

    tasks = [t for t in one_variant_each(training_tasks(kb, split)) if t.id.split("@")[0] in ("stick", "bowl")]
    assert len(tasks) == 2
    cache = tmp_path / "episodes.jsonl"
    first = _rows(str(cache), tasks[:1], kb, "1.11.2", False)
    assert len(cache.read_text().splitlines()) == 1 and first[0]["success"]
    both = _rows(str(cache), tasks, kb, "1.11.2", False)
    assert [r["task"] for r in both] == [t.id for t in tasks]
    assert len(cache.read_text().splitlines()) == 2  # the stored row was not run again
    assert both[0] == first[0]
    cache.write_text("not json\n")
    with pytest.raises(DatasetError, match="is not a rider teacher episode row"):
        _rows(str(cache), tasks, kb, "1.11.2", False)

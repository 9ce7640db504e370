"""experiments/skill_pool.py: skill tables of several seeds pooled per goal, with an interval and a
verdict against the bar; tables that cannot be pooled are refused in one line."""

import json

import pytest

from experiments.skill_pool import PoolError, check_poolable, main, pool, summary


def _row(skill, n, scripted, learned, steps=(100.0, 200.0), fails=None):
    row = {"skill": skill, "episodes": n, "scripted_success": scripted, "scripted_mean_steps": steps[0]}
    row["learned_success"], row["learned_mean_steps"] = learned, (steps[1] if learned is not None else None)
    if learned is not None:
        row["learned_failures"] = fails or {}
    return row


def _table(seed, rows, **over):
    return {
        "rows": rows,
        "seed": seed,
        "budget": 600,
        "find_budget": 2400,
        "mine_budget": 2400,
        "kill_budget": 2400,
        "greedy": False,
        "checkpoints": {"learned": "a.pt"},
        **over,
    }


def test_pooled_counts_steps_and_verdicts():
    s1 = _table(
        1,
        [
            _row("mine:log", 50, 1.0, 1.0, (90.0, 120.0)),
            _row("find:chicken", 50, 0.96, 0.98, fails={"gave_up": 1}),
            _row("mine:apple", 50, 0.5, 0.2),
            _row("kill:zombie", 50, 0.98, None),
        ],
    )
    s2 = _table(
        2,
        [
            _row("mine:log", 50, 1.0, 1.0, (110.0, 80.0)),
            _row("find:chicken", 50, 0.98, 0.88, fails={"gave_up": 2, "died": 4}),
            _row("mine:apple", 50, 0.52, 0.24),
            _row("kill:zombie", 50, 0.96, None),
        ],
    )
    out = pool([s1, s2], bar=0.9)
    rows = {r["skill"]: r for r in out["rows"]}
    assert out["seeds"] == [1, 2] and out["columns"] == ["scripted", "learned"]
    log = rows["mine:log"]["learned"]
    assert (log["successes"], log["tries"], log["verdict"]) == (100, 100, "over")
    assert log["mean_steps"] == 100.0  # 50 successes at 120, 50 at 80
    chick = rows["find:chicken"]["learned"]
    assert (chick["successes"], chick["success"]) == (93, 0.93)
    assert chick["low"] < 0.9 < chick["high"] and chick["verdict"] == "unclear"
    assert chick["failures"] == {"died": 4, "gave_up": 3} and chick["by_seed"] == [0.98, 0.88]
    apple = rows["mine:apple"]["learned"]
    assert apple["successes"] == 22 and apple["high"] < 0.9 and apple["verdict"] == "under"
    assert rows["kill:zombie"]["learned"] is None and rows["kill:zombie"]["scripted"]["successes"] == 97
    assert summary(out, "learned").startswith("learned: 3 goals, 2 at 0.9 or more pooled, under it: mine:apple 0.22;")
    assert rows["all"]["tries"] == 400  # the learned "all" counts only the goals it was trained for
    assert (rows["all"]["learned"]["successes"], rows["all"]["learned"]["tries"]) == (215, 300)


def test_the_steps_of_a_seed_with_no_success_do_not_count():
    a = _table(1, [_row("mine:apple", 50, 0.5, 0.0, (300.0, None))])
    b = _table(2, [_row("mine:apple", 50, 0.5, 0.1, (300.0, 400.0))])
    cell = {r["skill"]: r for r in pool([a, b])["rows"]}["mine:apple"]["learned"]
    assert (cell["successes"], cell["mean_steps"]) == (5, 400.0)


@pytest.mark.parametrize(
    "second, said",
    [
        (_table(1, []), "seed 1 is given twice"),
        (_table(2, [], budget=300), "in budget"),
        (_table(2, [], checkpoints={"learned": "b.pt"}), "in checkpoints"),
        (_table(2, [], count=5), "in count"),  # five items a try against a table of one
    ],
)
def test_tables_that_cannot_be_pooled_are_refused(second, said):
    with pytest.raises(PoolError, match=said):
        check_poolable([_table(1, []), second], ["s1.json", "s2.json"])


def test_a_table_written_before_count_pools_with_one_of_count_1():
    check_poolable([_table(1, []), _table(2, [], count=1)], ["s1.json", "s2.json"])


def test_command_line(tmp_path, capsys):
    paths = []
    for seed, learned in ((1, 0.96), (2, 0.9)):
        p = tmp_path / f"s{seed}.json"
        p.write_text(json.dumps(_table(seed, [_row("mine:sand", 50, 1.0, learned)])))
        paths.append(str(p))
    assert main([*paths, "--column", "learned", "--out", str(tmp_path / "pooled.json")]) == 0
    out = capsys.readouterr()
    assert "| mine:sand | 100 | 0.930 (" in out.out and "scripted" not in out.out
    assert (
        "learned: 1 goals, 1 at 0.9 or more pooled; the 95% interval wholly over 0.9: 0, holding it: 1, wholly under: 0"
        in out.err
    )
    assert json.loads((tmp_path / "pooled.json").read_text())["rows"][0]["learned"]["successes"] == 93
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert main([paths[0], str(bad)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"skill_pool: error: {bad}: not a skill table (no rows or seed); accepted: experiments.skill_table --out"
    )
    assert main([*paths, "--column", "expert"]) == 2
    assert "accepted: scripted, learned" in capsys.readouterr().err
    assert main([*paths, "--bar", "90"]) == 2

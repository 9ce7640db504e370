"""experiments.eval_table: one row per run, `+` joins the lanes of one run, bad folders one line."""

from __future__ import annotations

import json

from experiments import eval_table


def _lane(d, tasks, episodes):
    d.mkdir()
    (d / "run.json").write_text(json.dumps({"tasks": tasks, "episodes": 1}))
    (d / "episodes.jsonl").write_text("".join(json.dumps(e) + "\n" for e in episodes))
    return str(d)


def test_lanes_joined_make_one_row_over_both(tmp_path, capsys):
    a = _lane(
        tmp_path / "a",
        ["t1", "t2"],
        [{"success": True, "llm_calls": 2, "tokens_in": 90, "tokens_out": 10, "wall_s": 4}],
    )
    b = _lane(
        tmp_path / "b", ["t3"], [{"success": False, "llm_calls": 3, "tokens_in": 50, "tokens_out": 5, "wall_s": 6}]
    )
    assert eval_table.main([f"{a}+{b}", a]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    assert rows[0].startswith("| a+b | 2 of 3 | 1/2 (50.0%) | 5 | 155 | 10.0 s | 5 | 140 / 15 |")
    assert rows[1].startswith("| a | 1 of 2 | 1/1 (100.0%) | 2 | 100 | 4.0 s |")


def test_a_folder_without_episodes_is_one_line_and_no_table(tmp_path, capsys):
    a = _lane(tmp_path / "a", ["t1"], [])
    assert eval_table.main([f"{a}+{tmp_path / 'missing'}"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "no episodes.jsonl" in err

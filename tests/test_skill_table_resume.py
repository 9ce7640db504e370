"""The skill table writes each chunk of worlds as it finishes and resumes a stopped run
(experiments/chunk_log.py): a run stopped after its first chunk keeps it, the resumed run runs
only the rest and gives the rows a whole run gives; a chunk logged under other settings, or cut
short by a crash, runs again."""

from __future__ import annotations

import json

import pytest

from experiments import chunk_log, skill_table

# 2 worlds each of two quick goals, in chunks of 2 (32 in a real run): two chunks
ARGS = ["--episodes", "2", "--skills", "mine:dirt,mine:sand", "--no-learned", "--workers", "1"]


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch):
    monkeypatch.setattr(skill_table, "CHUNK", 2)


def _table(tmp_path, *extra):
    out = tmp_path / "t.json"
    assert skill_table.main([*ARGS, "--out", str(out), *extra]) == 0
    return json.loads(out.read_text())["rows"]


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The rows of one uninterrupted run, and its log's lines."""
    tmp = tmp_path_factory.mktemp("whole")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(skill_table, "CHUNK", 2)
        rows = _table(tmp)
    return rows, (tmp / "t.json.parts.jsonl").read_text().splitlines()


def test_every_chunk_is_logged_with_its_key_after_a_header(whole):
    rows, lines = whole
    assert "commit" in json.loads(lines[0])
    chunks = [json.loads(x) for x in lines[1:]]
    assert len(chunks) == 2 and sum(len(c["results"]) for c in chunks) == 4
    assert [r["skill"] for r in rows] == ["mine:dirt", "mine:sand", "all"]


def test_a_stopped_run_resumes_with_the_rows_of_a_whole_run(tmp_path, whole, monkeypatch):
    real, calls = skill_table._chunk_job, []

    def stop_after_one(job):
        calls.append(job["lo"])
        if len(calls) > 1:
            raise KeyboardInterrupt  # the user's ^C after the first chunk
        return real(job)

    monkeypatch.setattr(skill_table, "_chunk_job", stop_after_one)
    with pytest.raises(KeyboardInterrupt):
        _table(tmp_path)
    assert len((tmp_path / "t.json.parts.jsonl").read_text().splitlines()) == 2  # the header and chunk one
    calls.clear()
    monkeypatch.setattr(skill_table, "_chunk_job", lambda job: calls.append(job["lo"]) or real(job))
    assert _table(tmp_path, "--resume") == whole[0]
    assert calls == [2]  # only the chunk the stopped run had not finished


def test_a_chunk_cut_short_or_logged_under_other_settings_runs_again(tmp_path, whole, monkeypatch):
    log = tmp_path / "t.json.parts.jsonl"
    log.write_text("\n".join(whole[1][:2]) + "\n" + whole[1][2][:40] + "\n")  # the last line cut by a crash
    real, calls = skill_table._chunk_job, []
    monkeypatch.setattr(skill_table, "_chunk_job", lambda job: calls.append(job["lo"]) or real(job))
    assert _table(tmp_path, "--resume") == whole[0]
    assert calls == [2]
    calls.clear()
    _table(tmp_path, "--resume", "--mine-budget", "1200")  # other budgets: nothing logged matches
    assert sorted(calls) == [0, 2]
    calls.clear()
    _table(tmp_path)  # no --resume: the log starts afresh
    assert sorted(calls) == [0, 2]


def test_resume_without_out_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        skill_table.main([*ARGS, "--resume"])
    assert e.value.code == 2
    assert "--resume needs --out" in capsys.readouterr().err


def test_a_checkpoint_retrained_at_the_same_path_gets_another_key(tmp_path):
    p = tmp_path / "c.pt"
    p.write_bytes(b"one network")
    job = {k: 0 for k in chunk_log.KEY_FIELDS} | {"path": str(p)}
    before = chunk_log.chunk_key(job)
    p.write_bytes(b"another network")
    assert chunk_log.chunk_key(job) != before
    assert chunk_log.checkpoint_digest(f"{p}+{p}") == ",".join([chunk_log._digest(str(p))] * 2)


@pytest.mark.parametrize(
    "skills", ["kill:zombie,kill:spider", "mine:reeds,find", "find:pig,mine:egg", "mine:milk_bucket"]
)
def test_the_worlds_of_some_skills_are_those_of_the_whole_table(skills):
    from training.controller.data import TRAIN_GOALS
    from training.controller.train import eval_episodes

    whole = eval_episodes(2 * len(TRAIN_GOALS), 3)
    wanted = skills.split(",")
    some = [e for e in whole if skill_table._key(e[0]) in wanted or e[0].action in wanted]
    keys = [f"{a}:{i}" for a, i, _, _ in TRAIN_GOALS]
    some.sort(key=lambda e: keys.index(skill_table._key(e[0])))
    assert len(some) >= 2 and skill_table.episodes_for(2, 3, skills) == some

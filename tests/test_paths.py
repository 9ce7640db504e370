"""The experts' path search (worlds/gridworld/paths.py) remembers each world's recent answers: the
same question of unchanged cells is answered again without searching, and any change to the
cells, the tools or the question searches afresh, with the answer a search from scratch gives."""

from __future__ import annotations

import numpy as np
import pytest

from worlds.gridworld import paths
from worlds.gridworld.batch import BatchGridWorld
from worlds.knowledge import load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


@pytest.fixture
def env(kb):
    env = BatchGridWorld(2, kb)
    env.reset([5, 6])
    return env


def counted(monkeypatch) -> list:
    calls: list = []
    real = paths._search

    def spy(*args):
        calls.append(args[1])
        return real(*args)

    monkeypatch.setattr(paths, "_search", spy)
    return calls


def gravel_targets(env, i: int, k: int = 4) -> list:
    return paths.candidates(env, i, {env.vocab.cell_id["gravel"]}, set(), k=k)


def test_the_same_question_of_unchanged_cells_is_answered_without_searching(env, monkeypatch):
    here, targets = tuple(int(v) for v in env.pos[0]), gravel_targets(env, 0)
    fresh = paths._search(paths.Terrain(env, 0), here, targets, paths.MIN_NODES, None, 1)
    calls = counted(monkeypatch)
    first = paths.search(paths.Terrain(env, 0), here, targets)
    assert first is not None and len(calls) == 1
    first[0].clear()  # a caller's plan is its own: emptying it leaves the remembered one whole
    again = paths.search(paths.Terrain(env, 0), here, targets)
    assert len(calls) == 1 and again == fresh and len(fresh[0]) > 0
    # the other world of the batch has answers of its own
    paths.search(paths.Terrain(env, 1), tuple(int(v) for v in env.pos[1]), gravel_targets(env, 1))
    assert len(calls) == 2


def test_a_changed_cell_a_new_tool_or_another_start_searches_afresh(env, kb, monkeypatch):
    calls = counted(monkeypatch)
    here, targets = tuple(int(v) for v in env.pos[0]), gravel_targets(env, 0)
    paths.search(paths.Terrain(env, 0), here, targets)
    x, y, z = here
    env.cells[0, x, z, y - 1] = env.vocab.cell_id["stone"]  # the block underfoot changes
    paths.search(paths.Terrain(env, 0), here, targets)
    env.inv[0, env.vocab.item_id["wooden_pickaxe"]] = 1  # digging gets cheaper
    paths.search(paths.Terrain(env, 0), here, targets)
    paths.search(paths.Terrain(env, 0), (x, y, z + 1), targets)  # asked from elsewhere
    paths.search(paths.Terrain(env, 0), here, targets[:1])  # toward fewer targets
    assert len(calls) == 5


def test_questions_asked_in_turn_are_each_remembered(env, monkeypatch):
    """An expert whose nearest sources are out of reach asks for the nearest few, then for more of
    them, at every step it is asked afresh (skills/experts.py: _go_to): both answers are kept, and
    past REMEMBERED questions the oldest goes first."""
    calls = counted(monkeypatch)
    here = tuple(int(v) for v in env.pos[0])
    near, wider = gravel_targets(env, 0, k=4), gravel_targets(env, 0, k=32)
    for _ in range(3):
        assert paths.search(paths.Terrain(env, 0), here, near) is not None
        paths.search(paths.Terrain(env, 0), here, wider)
    assert len(calls) == 2
    others = [tuple(int(v) for v in env.pos[0] + (dx, 0, 0)) for dx in range(1, paths.REMEMBERED)]
    for start in others:  # REMEMBERED - 1 more questions: the first (`near`) is pushed out
        paths.search(paths.Terrain(env, 0), start, near)
    paths.search(paths.Terrain(env, 0), here, wider)
    assert len(calls) == 2 + len(others)
    paths.search(paths.Terrain(env, 0), here, near)
    assert len(calls) == 3 + len(others)


def test_remembered_answers_match_a_search_from_scratch_as_the_world_changes(env, monkeypatch):
    """A hundred questions on a world whose cells, tools and start change at random between them:
    every answer the memory gives is the answer of a search from scratch."""
    scratch = paths._search
    calls = counted(monkeypatch)
    rng = np.random.default_rng(0)
    stone, air = env.vocab.cell_id["stone"], env.vocab.cell_id["air"]
    here, found = tuple(int(v) for v in env.pos[0]), 0
    for _ in range(100):
        r = rng.random()
        if r < 0.3:  # a cell near the agent changes
            x, y, z = (int(here[j] + rng.integers(-3, 4)) for j in range(3))
            env.cells[0, x % env.X, z % env.Z, min(max(y, 1), env.H - 2)] = stone if rng.random() < 0.5 else air
        elif r < 0.4:
            env.inv[0, env.vocab.item_id["stone_pickaxe"]] ^= 1
        elif r < 0.5:
            here = (here[0] + int(rng.integers(-1, 2)), here[1], here[2] + int(rng.integers(-1, 2)))
        targets = gravel_targets(env, 0, k=int(rng.integers(1, 5)))
        got = paths.search(paths.Terrain(env, 0), here, targets)
        assert got == scratch(paths.Terrain(env, 0), here, targets, paths.MIN_NODES, None, 1)
        found += got is not None
    assert found > 50 and 0 < 100 - len(calls) < 50  # paths found; some answers remembered, most not


def test_the_ab_script_finds_the_same_answers_in_the_same_tree(capsys):
    """experiments/search_ab.py, the check behind docs/performance.md's path-search figures, run
    against this tree's own last commit: every answer the same, exit status 0."""
    from experiments import search_ab

    assert search_ab.main(["--rev", "HEAD", "--worlds", "4", "--questions", "12", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "answers the same" in out and not out.startswith("0 of")

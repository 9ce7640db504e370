"""The speed work of issue 21 keeps behaviour: each faster part gives what the slower one gave.
No timings here (those are `deps bench` figures, docs/performance.md)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from worlds.knowledge import load_kb

KB = load_kb("1.11.2")


def _gbnf_to_regex(expr: str) -> str:
    """The small GBNF subset _alts writes ("lit", groups, |, ?) as a Python regex."""
    out, i = [], 0
    while i < len(expr):
        c = expr[i]
        if c == '"':
            j, lit = i + 1, ""
            while expr[j] != '"':
                if expr[j] == "\\":
                    j += 1
                lit += expr[j]
                j += 1
            out.append(re.escape(lit))
            i = j + 1
        elif c in "()|?":
            out.append(c)
            i += 1
        else:
            assert c == " ", expr
            i += 1
    return "".join(out)


@pytest.mark.parametrize("names", [["a", "ab", "abc", "b"], ["a", "a_b", "a_c"], ["x"], ["ab", "ac", "b"], "items"])
def test_trie_alternation_matches_exactly_the_names(names):
    from nodes.planners.grammar import _alts, plan_vocabulary

    if names == "items":
        names = list(plan_vocabulary(KB)[0])
    pattern = re.compile(_gbnf_to_regex(_alts(names)))
    assert all(pattern.fullmatch(n) for n in names)
    near = {n[:k] for n in names for k in range(len(n))} | {n + x for n in names for x in ("a", "_", "s", "1")}
    assert not [c for c in near - set(names) if pattern.fullmatch(c)]


def test_fixed_prompt_part_stops_before_the_first_placeholder():
    from agent.llm.warm import fixed_messages, fixed_prefixes

    planner = fixed_messages("deps_planner")
    explainer = fixed_messages("deps_explainer")
    assert planner and all("$" not in c for _, c in planner) and planner[0][0] == "system"
    assert explainer and len(explainer) < len(__import__("prompts").messages("deps_explainer"))
    assert fixed_prefixes("deps") == [planner, explainer] and fixed_prefixes("oracle") == []


def test_prefix_cache_counts_only_what_follows_the_longest_cached_prefix():
    from evaluation.bench.tokens import PrefixCache

    cache = PrefixCache(entries=2)
    cache.add([1, 2, 3, 4])
    assert cache.hit([1, 2, 3, 9]) == 3 and cache.hit([7]) == 0
    cache.add([5, 6])
    cache.add([8])  # two entries kept: [1, 2, 3, 4] is gone
    assert cache.hit([1, 2]) == 0 and cache.hit([5, 6, 7]) == 2


def test_naive_dialogue_sends_more_tokens_for_the_same_plans_and_successes():
    from evaluation.bench.tokens import token_benchmarks

    m = token_benchmarks()
    assert m["tokens_successes"] == 4.0
    assert 0 < m["tokens_sent_vs_naive"] < 1 and 0 < m["tokens_vs_naive"] < m["tokens_sent_vs_naive"]
    assert token_benchmarks() == m  # a replayed script: the same figures every run


def test_the_loop_is_compiled_once_and_a_checkpointer_gets_its_own_copy():
    from langgraph.checkpoint.memory import InMemorySaver

    from agent.graph import episode_graph

    assert episode_graph() is episode_graph()
    saver = InMemorySaver()
    with_saver = episode_graph(saver)
    assert with_saver is not episode_graph() and with_saver.checkpointer is saver
    assert episode_graph().checkpointer is None


def test_untraced_skill_runs_directly_with_the_same_outcome():
    from agent.runner import make_world
    from nodes.execute import drive
    from nodes.settings import RunSettings
    from skills.controller import ScriptedController
    from worlds.tasks import find_task
    from worlds.types import Goal

    class Ctx:
        controller = ScriptedController(KB)

    settings, task = RunSettings(planner="oracle"), find_task("CraftWoodenPickaxe")
    goal = Goal("mine", {"log": 2})
    Ctx.world = make_world(settings, KB, task)
    direct = drive(Ctx, goal)  # outside a graph run: no tool run built
    reference = ScriptedController(KB).run(goal, make_world(settings, KB, task))
    assert direct == reference and direct["ok"]


def test_vectorised_sampling_draws_what_rng_choice_draws():
    import torch

    from skills.learned.features import net_shape
    from skills.learned.model import GoalNet
    from skills.learned.policy import GoalPolicy
    from worlds.gridworld.spec import make_vocab

    policy = GoalPolicy(GoalNet(net_shape(make_vocab(KB))).eval(), KB, {"goals": []}, "cpu")
    logits = torch.randn(64, 18)
    policy.logits = lambda obs, codes: (logits, None)
    obs = {"facing": np.zeros(64, np.int64)}
    got = policy.act(obs, np.zeros((64, 2), np.int64), greedy=False, rng=np.random.default_rng(3))
    allowed = logits.masked_fill(torch.as_tensor(~_allowed(obs, 18)), float("-inf"))
    p = torch.softmax(allowed, -1).numpy().astype(np.float64)
    rng = np.random.default_rng(3)
    assert got.tolist() == [rng.choice(len(r), p=r / r.sum()) for r in p]


def _allowed(obs, n):
    from skills.learned.policy import idle_turns

    return ~idle_turns(obs["facing"], n)


def _around_reference(env, rows):
    """The surroundings map cell by cell (what skills/learned/surround.py computes in bulk)."""
    from skills.learned.surround import POOL, RADIUS, SIDE
    from worlds.gridworld import spec

    v = env.vocab  # the kinds as the network reads them: a jungle log counts as an oak log (spec.py)
    n_cells = v.n_policy_cells
    out = np.zeros((len(rows), n_cells + v.n_policy_mobs, SIDE, SIDE), np.int64)
    for k, e in enumerate(rows):
        px, py, pz = env.pos[e]
        for dz in range(-RADIUS, RADIUS + 1):
            for dx in range(-RADIUS, RADIUS + 1):
                for dy in spec.VIEW_LEVELS:
                    x, y, z = px + dx, py + dy, pz + dz
                    inside = 0 <= x < env.X and 0 <= z < env.Z and 0 <= y < env.H
                    cell = v.cell_as[env.cells[e, x, z, y]] if inside else spec.VOID
                    out[k, cell, min((dz + RADIUS) // POOL, SIDE - 1), min((dx + RADIUS) // POOL, SIDE - 1)] += 1
        for m in range(env.mob_kind.shape[1]):
            kind = env.mob_kind[e, m]
            rx, ry, rz = env.mob_pos[e, m] - env.pos[e]
            if (
                kind > 0
                and abs(rx) <= RADIUS
                and abs(rz) <= RADIUS
                and spec.VIEW_LEVELS[0] <= ry <= spec.VIEW_LEVELS[-1]
            ):
                out[
                    k,
                    n_cells + v.mob_as[kind],
                    min((rz + RADIUS) // POOL, SIDE - 1),
                    min((rx + RADIUS) // POOL, SIDE - 1),
                ] += 1
    return np.minimum(out, 255).astype(np.uint8)


def test_surroundings_map_and_local_view_match_a_cell_by_cell_reading_at_the_map_edges():
    from skills.learned.surround import around
    from worlds.gridworld import spec
    from worlds.gridworld.batch import BatchGridWorld

    env = BatchGridWorld(4, KB)
    env.reset([0, 1, 2, 3])
    rng = np.random.default_rng(0)
    for _ in range(5):
        env.step(np.stack([rng.integers(0, 10, 4), np.full(4, -1)], axis=1))
    env.pos[0, 0], env.pos[1, 2], env.pos[2, 0] = 0, env.Z - 1, env.X - 2  # at and near the edges
    assert np.array_equal(around(env), _around_reference(env, [0, 1, 2, 3]))
    assert np.array_equal(around(env, np.array([2, 0])), _around_reference(env, [2, 0]))
    blocks = env.observe()["blocks"]
    R = spec.VIEW_RADIUS
    for e in range(4):
        px, py, pz = env.pos[e]
        for li, dy in enumerate(spec.VIEW_LEVELS):
            for zi in range(2 * R + 1):
                for xi in range(2 * R + 1):
                    x, y, z = px + xi - R, py + dy, pz + zi - R
                    inside = 0 <= x < env.X and 0 <= z < env.Z and 0 <= y < env.H
                    assert blocks[e, li, zi, xi] == (env.cells[e, x, z, y] if inside else spec.VOID)


def test_a_small_map_reads_void_beyond_every_edge_in_views_cells_and_the_surroundings_map():
    from skills.learned.surround import around
    from worlds.gridworld import spec
    from worlds.gridworld.batch import BatchGridWorld

    env = BatchGridWorld(3, KB, size=(8, 8))  # every local view and window crosses the map's edge
    env.reset([0, 1, 2])
    env.step(np.stack([np.array([1, 3, 0]), np.full(3, -1)], axis=1))
    env.pos[1, 1], env.pos[2, 1] = 1, env.H - 2  # views below the bottom and above the top
    blocks, R = env.observe()["blocks"], spec.VIEW_RADIUS
    for e in range(3):
        px, py, pz = env.pos[e]
        for li, dy in enumerate(spec.VIEW_LEVELS):
            for zi in range(2 * R + 1):
                for xi in range(2 * R + 1):
                    assert blocks[e, li, zi, xi] == _cell(env, e, px + xi - R, py + dy, pz + zi - R)
    assert np.array_equal(around(env), _around_reference(env, [0, 1, 2]))
    points = np.array([(x, y, z) for x in (-1, 0, 7, 8) for y in (-1, 0, env.H - 1, env.H) for z in (-9, 3, 8)])
    worlds = np.arange(len(points)) % 3
    assert env.cells_at(worlds, points).tolist() == [_cell(env, e, *p) for e, p in zip(worlds, points)]


def _cell(env, e, x, y, z):
    from worlds.gridworld import spec

    inside = 0 <= x < env.X and 0 <= z < env.Z and 0 <= y < env.H
    return env.cells[e, x, z, y] if inside else spec.VOID


def test_eval_workers_each_use_their_own_handle_from_a_pool():
    import asyncio

    from evaluation.backends import run_local
    from evaluation.llm_pool import HandlePool
    from nodes.settings import RunSettings
    from worlds.tasks import find_task

    class Handle:
        def __init__(self, name):
            self.name = name

        def stats(self):
            return {"calls": 2, "retries": 1, "model": self.name}

    pool = HandlePool([Handle("a"), Handle("b")])
    used: dict[str, int] = {}

    def episode(task, settings, llm=None):  # each worker takes an episode before either ends
        used[llm.name] = used.get(llm.name, 0) + 1
        return {"success": True}

    task = find_task("CraftWoodenPickaxe")
    results = []
    asyncio.run(
        run_local(
            [(task, ep, ep) for ep in range(4)],
            RunSettings(planner="oracle"),
            episode,
            pool,
            2,
            lambda t, ep, seed, res: results.append(ep),
            lambda t, ep, exc: results.append(exc),
            lambda: False,
        )
    )
    assert sorted(results) == [0, 1, 2, 3] and set(used) == {"a", "b"}
    assert pool.stats() == {"calls": 4, "retries": 2, "model": "a"}

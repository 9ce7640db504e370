"""The target map zooms out while it is empty (skills/learned/sense.py: ZOOMS, issue 20 round 30):
a source beyond the plain window shows in the columns on its side of a window three times as
wide, and then nine; a map that already holds a source is left as it was; $DEPS_TARGET_ZOOM=0
turns the zoom off in the observation."""

from __future__ import annotations

import numpy as np
import pytest

from skills.learned import sense
from skills.learned.paths import LearnedError
from skills.learned.surround import KEY, RADIUS, SIDE, observe
from worlds.gridworld.world import GridWorld
from worlds.types import Goal


def wide(kb, blocks=(), agent=(20, 65, 20), side=140):
    w = GridWorld(kb, size=(side, side))
    layout = {"ground": 64, "blocks": [list(b) for b in blocks], "mobs": [], "agent": list(agent)}
    w.reset(seed=0, options={"layout": layout, "time_of_day": 0.1})
    return w


def column(lay: sense.Layout, dx: int, dz: int) -> tuple[int, int]:
    return (dz + lay.radius) // lay.pool, (dx + lay.radius) // lay.pool


def test_iron_beyond_the_window_shows_on_its_side_of_the_first_zoom(kb):
    # iron ore 40 cells east and 10 down: outside the plain window (22 cells), inside the first zoom (67)
    w = wide(kb, blocks=[(60, 55, 20, "iron_ore")])
    iron = [sense.lut(w.env, Goal("mine", {"iron_ore": 1}))]
    assert sense.target_map(w.env, [w.i], iron).sum() == 0
    m = sense.target_map(w.env, [w.i], iron, zoom=True)[0]
    first = sense.ZOOMS[0]
    assert m.sum() == 1
    b = next(b for b, (lo, hi) in enumerate(sense.BANDS) if lo <= -10 <= hi)
    assert m[b][column(first, 40, 0)] == 1
    assert column(first, 40, 0)[1] > SIDE // 2  # east of the agent's own column


def test_the_zoom_opens_the_deepest_band_to_the_bottom_of_the_world(kb):
    # iron ore 64 levels down and 30 cells west: below the plain map's deepest band (60 down)
    w = wide(kb, blocks=[(50, 1, 20, "iron_ore")], agent=(80, 65, 20))
    iron = [sense.lut(w.env, Goal("mine", {"iron_ore": 1}))]
    assert sense.BANDS[-1][0] > -64 and sense.target_map(w.env, [w.i], iron).sum() == 0
    m = sense.target_map(w.env, [w.i], iron, zoom=True)[0]
    assert m.sum() == 1 and m[-1][column(sense.ZOOMS[0], -30, 0)] == 1


def test_the_second_zoom_reaches_across_a_grown_map_and_a_near_source_keeps_the_plain_map(kb):
    far = wide(kb, blocks=[(20, 60, 110, "coal_ore")])  # 90 cells south: beyond the first zoom
    coal = [sense.lut(far.env, Goal("mine", {"coal": 1}))]
    m = sense.target_map(far.env, [far.i], coal, zoom=True)[0]
    assert m.sum() == 1 and m.sum(axis=0)[column(sense.ZOOMS[1], 0, 90)] == 1
    # a coal ore inside the plain window as well: the map is the plain one, the far ore unseen
    near = wide(kb, blocks=[(20, 60, 110, "coal_ore"), (25, 62, 20, "coal_ore")])
    plain = sense.target_map(near.env, [near.i], coal)
    assert plain.sum() == 1
    np.testing.assert_array_equal(sense.target_map(near.env, [near.i], coal, zoom=True), plain)


def test_nothing_anywhere_stays_empty_and_the_setting_turns_the_zoom_off(kb, monkeypatch):
    w = wide(kb, blocks=[(60, 55, 20, "iron_ore")])
    assert sense.target_map(w.env, [w.i], [sense.lut(w.env, Goal("mine", {"diamond": 1}))], zoom=True).sum() == 0
    iron = [sense.lut(w.env, Goal("mine", {"iron_ore": 1}))]
    bands = slice(-len(sense.BANDS), None)

    def seen() -> int:
        obs = observe(w)
        return int(sense.add_to(obs, w.env, [w.i], iron)[KEY][bands].sum())

    assert seen() == 1
    monkeypatch.setenv(sense.ZOOM_ENV, "0")
    assert seen() == 0
    monkeypatch.setenv(sense.ZOOM_ENV, "yes")
    with pytest.raises(LearnedError, match="accepted: 1 .* or 0"):
        seen()
    assert RADIUS < 40 < sense.ZOOMS[0].radius < 90 < sense.ZOOMS[1].radius

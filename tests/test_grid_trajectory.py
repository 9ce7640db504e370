"""The batched grid world's trajectory, bit for bit (issue 21): changes made for speed alone must
leave every world's state, observation, reward and event as they were for a fixed action stream."""

from experiments.grid_hash import trajectory_digest


def test_the_batched_worlds_step_for_step_as_recorded():
    # recorded on commit 651f327, before the step was made faster: 64 worlds from dawn, from dusk
    # and near the night's end, and 16 small low maps at night (mobs at the map's rim and floor),
    # 300 steps each, the full state hashed every 10 steps
    assert trajectory_digest(64, 300, 10) == "89a719af0d217d0f060c21a36ca643af6a4b14e1"

"""Training the grid world's learned parts (skills/learned/): expert trajectories from the batched
grid world (data.py, scenes.py), behaviour cloning (fit.py, train.py), DAgger (dagger.py) and the
policy's rollouts for evaluation (rollout.py). `deps train controller|selector` runs them."""

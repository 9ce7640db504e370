"""The grid world: a seeded voxel Minecraft with biomes, depth, ores, mobs and day/night.

spec.py is the frozen interface (vocabulary, observation, actions, batched API);
generation.py builds maps, rules.py holds the engine's rules, world.py the single world
(the `World` protocol), batch.py the numpy-batched form, render.py the text picture.
"""

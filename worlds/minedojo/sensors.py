"""What the adapter asks MineDojo to observe: the image size, a 3x3x3 voxel box around the
agent, and a fan of lidar rays (pitch, yaw, distance; radians relative to the look vector,
as MineDojo's RichLidarObservation takes them).  The real simulator is made with these
(`make_kwargs`), and the stand-in (standin.py) fills the same keys and shapes."""

from __future__ import annotations

import math

IMAGE_SIZE = (160, 256)  # (height, width): the probe and the DEPS setting
VOXEL_SIZE = {"xmin": -1, "ymin": -1, "zmin": -1, "xmax": 1, "ymax": 1, "zmax": 1}
RAY_DISTANCE = 16.0
RAY_YAWS = tuple(math.radians(d) for d in range(-180, 180, 30))  # 12 directions around
RAY_PITCHES = (0.0, math.radians(30), math.radians(60))  # level, and down (+ is down)
RAYS = tuple((p, y, RAY_DISTANCE) for p in RAY_PITCHES for y in RAY_YAWS)


def make_kwargs() -> dict:
    """The observation options `minedojo.make` gets from the adapter."""
    return {
        "use_voxel": True,
        "voxel_size": dict(VOXEL_SIZE),
        "use_lidar": True,
        "lidar_rays": [tuple(r) for r in RAYS],
    }

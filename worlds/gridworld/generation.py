"""Seeded map generation: biomes, terrain, ores at their depths, lava, trees, plants, animals.

`generate(seed, vocab, size, biome, include)` -> a `Map`: cells uint8 [X, Z, HEIGHT] (x, z, y), the
biome of each column, the passive animals, and the spawn point.  Every number comes from
worlds/data/gridworld.yaml; the same seed always gives the same map.  The chosen biome
holds the spawn and most of the map; three neighbouring biomes share the rest, so a
desert world still has trees within reach (as a real Minecraft world does); `include`
names a biome that must be one of them (a map made larger for a task's blocks).
Guarantees, so that every deps71 item can be had on every seed: at least one diamond, iron,
coal, gold, redstone, lapis and quartz block, and one herd of each passive animal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from worlds.gridworld import tall
from worlds.gridworld.spec import HEIGHT, GridWorldError, Vocab, game_data

# A tree's leaves, by level from the trunk's top: (dy, radius of the square), the trunk
# itself left out ("Tree": an oak's two wide layers under two narrow ones)
CANOPY = ((-2, 2), (-1, 2), (0, 1), (1, 1))


def canopy_leaves() -> int:
    """Leaves on one generated tree (65): the squares, less the trunk's cells among them."""
    return sum((2 * r + 1) ** 2 - (dy <= 0) for dy, r in CANOPY)


@dataclass
class Map:
    cells: np.ndarray  # uint8 [X, Z, Y]
    biome: np.ndarray  # uint8 [X, Z] index into vocab.biomes
    mobs: list[tuple[int, int, int, int]] = field(default_factory=list)  # (mob id, x, y, z)
    spawn: tuple[int, int, int] = (0, 0, 0)


def check_biome(biome: str | None) -> None:
    d = game_data()
    names = list(d["biomes"]) + list(d.get("biome_variants") or {})
    if biome is None or biome in names:
        return
    why = (d.get("biomes_not_built") or {}).get(biome)
    if why:
        raise GridWorldError(
            f"biome {biome!r} is not built in the grid world: {why}; accepted: {', '.join(names)}, or --world textworld"
        )
    raise GridWorldError(f"unknown biome {biome!r} for the grid world; accepted: {', '.join(names)}")


def _shade_plants(rng: np.random.Generator, cells: np.ndarray, h: np.ndarray, bmap, names, cid) -> None:
    """A biome's `shade_plants` (a swamp's mushrooms), per chunk, on grass under two or more
    leaves (light below 13), from their own stream `rng` (gridworld.yaml: maps made before are unchanged)."""
    d = game_data()
    leaves = [cid[t["leaves"]] for t in d["trees"].values()]
    for bi, b in enumerate(names):
        plants = d["biomes"][b].get("shade_plants") or {}
        cols = np.argwhere(bmap == bi)
        if not plants or len(cols) == 0:
            continue
        x, z = cols[:, 0], cols[:, 1]
        shade = np.isin(cells[x, z], leaves).sum(1) >= 2
        grass = cells[x, z, h[x, z]] == cid["grass_block"]
        free = cells[x, z, h[x, z] + 1] == 0
        spots = cols[shade & grass & free]
        for plant, per_chunk in plants.items():
            for _ in range(int(rng.poisson(per_chunk * len(cols) / 256.0))):
                if len(spots):
                    px, pz = spots[rng.integers(len(spots))]
                    if cells[px, pz, h[px, pz] + 1] == 0:
                        cells[px, pz, h[px, pz] + 1] = cid[plant]


def _snow_cover(cells: np.ndarray, h: np.ndarray, bmap, names, cid) -> None:
    """A `snow_cover` biome (the ice plains): a snow layer on the ground of every open column."""
    for bi, b in enumerate(names):
        if game_data()["biomes"][b].get("snow_cover"):
            xs, zs = np.nonzero(bmap == bi)
            top = h[xs, zs] + 1
            open_ = (cells[xs, zs, top] == 0) & np.isin(cells[xs, zs, h[xs, zs]], [cid["grass_block"], cid["dirt"]])
            cells[xs[open_], zs[open_], top[open_]] = cid["snow_layer"]


def base_biome(biome: str | None) -> tuple[str | None, list | None]:
    """(the built biome a name stands for, its variant's surface heights or None)."""
    v = (game_data().get("biome_variants") or {}).get(biome or "")
    return (v["of"], v.get("height")) if v else (biome, None)


def _noise(rng: np.random.Generator, X: int, Z: int, waves: int = 6, scale: float = 24.0) -> np.ndarray:
    """Smooth noise in [0, 1]: a sum of a few random low-frequency waves."""
    x, z = np.meshgrid(np.arange(X), np.arange(Z), indexing="ij")
    out = np.zeros((X, Z))
    for _ in range(waves):
        fx, fz = rng.normal(0, 1, 2) / scale
        out += np.cos(2 * np.pi * (fx * x + fz * z) + rng.uniform(0, 2 * np.pi))
    out -= out.min()
    return out / max(out.max(), 1e-9)


def _blur(a: np.ndarray, times: int = 2) -> np.ndarray:
    for _ in range(times):
        p = np.pad(a, 1, mode="edge")
        a = np.asarray(
            sum(p[1 + dx : p.shape[0] - 1 + dx, 1 + dz : p.shape[1] - 1 + dz] for dx in (-1, 0, 1) for dz in (-1, 0, 1))
            / 9.0
        )
    return a


def _count(rng: np.random.Generator, per_chunk: float, X: int, Z: int) -> int:
    return int(rng.poisson(per_chunk * X * Z / 256.0))


def generate(
    seed: int, vocab: Vocab, size: tuple[int, int], biome: str | None = None, include: tuple[str, ...] = ()
) -> Map:
    d = game_data()
    check_biome(biome)
    X, Z = size
    if X < 8 or Z < 8 or X > 256 or Z > 256:
        raise GridWorldError(f"grid world size {X}x{Z} is out of range; accepted: 8 to 256 per side")
    rng = np.random.default_rng(seed)
    cid, names = vocab.cell_id, list(d["biomes"])
    cycle = d["biome_cycle"]
    biome, variant_height = base_biome(biome)
    main = biome or cycle[seed % len(cycle)]
    others = [b for b in cycle if b != main]
    others = [others[i] for i in rng.permutation(len(others))[:3]]
    for b in include:  # a biome the task's blocks grow in (a larger map made for a task: world.py)
        if b != main and b not in others:
            others[-1] = b

    # biomes: Voronoi cells, the main one around the spawn and weighted to cover most of the map
    centres = [(X / 2, Z / 2)] + [tuple(rng.uniform(0, 1, 2) * (X, Z)) for _ in others]
    x, z = np.meshgrid(np.arange(X), np.arange(Z), indexing="ij")
    dist = np.stack([np.hypot(x - cx, z - cz) * (0.55 if i == 0 else 1.0) for i, (cx, cz) in enumerate(centres)])
    region = dist.argmin(0)
    bmap = np.array([names.index(b) for b in [main] + others], np.uint8)[region]

    # terrain height: noise mapped into each biome's height range, blurred across borders
    n = _noise(rng, X, Z)
    heights = {b: (variant_height if b == main and variant_height else d["biomes"][b]["height"]) for b in names}
    lo = np.array([heights[b][0] for b in names])[bmap]
    hi = np.array([heights[b][1] for b in names])[bmap]
    h = np.rint(_blur(lo + n * (hi - lo))).astype(int)
    h = np.clip(h, 8, HEIGHT - 12)

    cells = np.zeros((X, Z, HEIGHT), np.uint8)
    y = np.arange(HEIGHT)[None, None, :]
    hh = h[:, :, None]
    cells[y < hh - 3] = cid["stone"]
    filler = np.array([cid[d["biomes"][b]["filler"]] for b in names], np.uint8)[bmap]
    surface = np.array([cid[d["biomes"][b]["surface"]] for b in names], np.uint8)[bmap]
    band = (y >= hh - 3) & (y < hh)
    cells[band] = np.broadcast_to(filler[:, :, None], cells.shape)[band]
    top = y == hh
    cells[top] = np.broadcast_to(surface[:, :, None], cells.shape)[top]
    desert = bmap == names.index("desert") if "desert" in names else np.zeros_like(bmap, bool)
    cells[(y >= hh - 3) & (y < hh) & desert[:, :, None] & (y >= hh - 1)] = cid["sand"]
    for b in names:  # a swamp's hollows below sea level hold still water, on dirt
        flood = d["biomes"][b].get("flood_below")
        if flood:
            xs, zs = np.nonzero((bmap == names.index(b)) & (h < flood))
            for x_, z_ in zip(xs.tolist(), zs.tolist()):
                cells[x_, z_, h[x_, z_]] = cid["dirt"]
                cells[x_, z_, h[x_, z_] + 1 : flood + 1] = cid["water"]
            h[xs, zs] = flood
    cells[:, :, 0] = cid["bedrock"]
    for yy in range(1, 5):  # the ragged bedrock floor
        cells[:, :, yy][rng.random((X, Z)) < (5 - yy) / 5.0] = cid["bedrock"]

    # ponds: shallow water basins at the surface
    for _ in range(_count(rng, float(np.mean([d["biomes"][b].get("ponds", 0) for b in [main]])) + 0.2, X, Z)):
        px, pz = int(rng.integers(3, X - 3)), int(rng.integers(3, Z - 3))
        r = int(rng.integers(1, 3))
        if abs(px - X // 2) < 4 and abs(pz - Z // 2) < 4:
            continue
        level = h[px, pz]
        for ix in range(px - r, px + r + 1):
            for iz in range(pz - r, pz + r + 1):
                if (ix - px) ** 2 + (iz - pz) ** 2 <= r * r + 1:
                    top_y = h[ix, iz]
                    cells[ix, iz, level - 1 : top_y + 1] = 0
                    cells[ix, iz, level - 1 : level + 1] = cid["water"]
                    cells[ix, iz, level - 2] = cid["clay"] if rng.random() < 0.3 else cid["sand"]
                    h[ix, iz] = level

    stone = cid["stone"]

    def vein(cell: int, size: int, y_lo: int, y_hi: int) -> int:
        start = np.array([rng.integers(0, X), rng.integers(0, Z), rng.integers(y_lo, y_hi + 1)])
        steps = rng.integers(-1, 2, size=(max(size, 1), 3))
        steps[0] = 0
        pos = start + np.cumsum(steps, axis=0)
        pos = pos[
            (pos[:, 0] >= 0)
            & (pos[:, 0] < X)
            & (pos[:, 1] >= 0)
            & (pos[:, 1] < Z)
            & (pos[:, 2] >= 1)
            & (pos[:, 2] < HEIGHT)
        ]
        ok = cells[pos[:, 0], pos[:, 1], pos[:, 2]] == stone
        cells[pos[ok, 0], pos[ok, 1], pos[ok, 2]] = cell
        return int(ok.sum())

    ores = d["ores"]
    for o in ores:
        if o.get("biomes") and main not in o["biomes"]:
            continue
        y_lo, y_hi = o["y"][0], min(o["y"][1], HEIGHT - 1)
        for _ in range(_count(rng, o["veins"], X, Z)):
            vein(cid[o["cell"]], int(rng.integers(max(1, o["size"] // 2), o["size"] + 1)), y_lo, y_hi)
    q = d["quartz_pockets"]
    for _ in range(max(1, _count(rng, q["per_chunk"], X, Z))):
        c = (int(rng.integers(2, X - 2)), int(rng.integers(2, Z - 2)), int(rng.integers(q["y"][0], q["y"][1] + 1)))
        box = cells[c[0] - 1 : c[0] + 2, c[1] - 1 : c[1] + 2, c[2] - 1 : c[2] + 2]
        inside = box == stone
        box[inside] = np.where(rng.random(box.shape) < q["ore_fraction"], cid["nether_quartz_ore"], cid["netherrack"])[
            inside
        ]
    lv = d["lava_lakes"]
    for _ in range(_count(rng, lv["per_chunk"], X, Z)):
        c = (int(rng.integers(2, X - 2)), int(rng.integers(2, Z - 2)), int(rng.integers(lv["y"][0], lv["y"][1] + 1)))
        r = lv["radius"]
        sl = (slice(max(0, c[0] - r), c[0] + r + 1), slice(max(0, c[1] - r), c[1] + r + 1), slice(c[2] - 1, c[2] + 1))
        box = cells[sl]
        box[box != cid["bedrock"]] = cid["lava"]
    # guarantees: one of each ore the tasks need, in its range
    for o in ores:
        if o["cell"] in ("gravel", "emerald_ore"):
            continue
        for _ in range(50):
            if (cells == cid[o["cell"]]).any() or vein(cid[o["cell"]], o["size"], o["y"][0], min(o["y"][1], 60)) > 0:
                break
    if not (cells == cid["nether_quartz_ore"]).any():
        for _ in range(50):
            if vein(cid["nether_quartz_ore"], 3, q["y"][0], q["y"][1]):
                break

    # snow on high ground
    for b in names:
        snow = d["biomes"][b].get("snow_above")
        if snow:
            m = (bmap == names.index(b)) & (h >= snow)
            xs, zs = np.nonzero(m)
            cells[xs, zs, h[xs, zs] + 1] = cid["snow_layer"]

    # trees and plants, per biome density
    spawn_xz = (X // 2, Z // 2)
    trees = d["trees"]
    grassy = cid["grass_block"]
    for bi, b in enumerate(names):
        spec = d["biomes"][b]
        cols = np.argwhere(bmap == bi)
        if len(cols) == 0:
            continue
        area = len(cols)
        kinds = spec.get("tree") or "oak"
        kinds = kinds if isinstance(kinds, list) else [kinds]
        for _ in range(int(rng.poisson(spec.get("trees", 0) * area / 256.0))):
            tx, tz = cols[rng.integers(len(cols))]
            if tx < 2 or tz < 2 or tx >= X - 2 or tz >= Z - 2 or (tx, tz) == spawn_xz:
                continue
            ground = h[tx, tz]
            if cells[tx, tz, ground] != grassy or cells[tx, tz, ground + 1] != 0:
                continue
            t = trees[kinds[int(rng.integers(len(kinds)))]]
            th = int(rng.integers(t["height"][0], t["height"][1] + 1))
            top_y = min(ground + th, HEIGHT - 3)
            leaf = cid[t["leaves"]]
            for dy, r in CANOPY:
                box = cells[tx - r : tx + r + 1, tz - r : tz + r + 1, top_y + dy]
                box[box == 0] = leaf
            cells[tx, tz, ground] = cid["dirt"]
            cells[tx, tz, ground + 1 : top_y + 1] = cid[t["log"]]
            _dress(rng, cells, t, cid, (tx, tz), ground, top_y)
        grounds = d.get("plant_ground") or {}
        for plant, per_chunk in (spec.get("plants") or {}).items():
            on = tuple(cid[g] for g in grounds[plant]) if plant in grounds else (grassy, cid["sand"])
            for _ in range(int(rng.poisson(per_chunk * area / 256.0))):
                px, pz = cols[rng.integers(len(cols))]
                gy = h[px, pz]
                below = cells[px, pz, gy]
                if cells[px, pz, gy + 1] != 0 or below not in on:
                    continue
                if plant == "sugar_cane":  # grows beside water
                    near = cells[max(0, px - 1) : px + 2, max(0, pz - 1) : pz + 2, gy]
                    if not (near == cid["water"]).any() and rng.random() < 0.7:
                        continue
                cells[px, pz, gy + 1] = cid[plant]

    # passive animals in herds on grass
    mobs: list[tuple[int, int, int, int]] = []
    mob_rows = {m["name"]: m for m in d["mobs"]}
    for bi, b in enumerate(names):
        cols = np.argwhere((bmap == bi) & (cells[np.arange(X)[:, None], np.arange(Z)[None, :], h] == grassy))
        if len(cols) == 0:
            continue
        for animal in d["biomes"][b].get("animals") or []:
            m = mob_rows[animal]
            for _ in range(int(rng.poisson(m["per_chunk"] * len(cols) / 256.0))):
                mobs += _herd(rng, cells, h, cols, vocab.mob_id[animal], m["herd"])
    for animal, m in mob_rows.items():  # guarantee one herd of each passive animal (not of an appended one)
        if not m.get("hostile") and not m.get("policy_as") and not any(k == vocab.mob_id[animal] for k, *_ in mobs):
            cols = np.argwhere(cells[np.arange(X)[:, None], np.arange(Z)[None, :], h] == grassy)
            if len(cols):
                mobs += _herd(rng, cells, h, cols, vocab.mob_id[animal], m["herd"])

    _shade_plants(np.random.default_rng((seed, 1)), cells, h, bmap, names, cid)
    _snow_cover(cells, h, bmap, names, cid)

    sx, sz = spawn_xz
    best = None
    for r in range(0, max(X, Z)):
        ring = [
            (sx + dx, sz + dz)
            for dx in range(-r, r + 1)
            for dz in range(-r, r + 1)
            if max(abs(dx), abs(dz)) == r and 0 <= sx + dx < X and 0 <= sz + dz < Z
        ]
        ring = [
            (cx, cz)
            for cx, cz in ring
            if cells[cx, cz, h[cx, cz]] not in (cid["water"], cid["lava"])
            and cells[cx, cz, h[cx, cz] + 1] in (0, cid["snow_layer"])  # the ice plains' snow is stood in
            and cells[cx, cz, h[cx, cz] + 2] == 0
        ]
        if ring:
            best = ring[0]
            break
    bx, bz = best or (sx, sz)
    tall.grow(np.random.default_rng((seed, 2)), cells, h, bmap, names, cid, (int(bx), int(bz)))
    return Map(cells, bmap, mobs, (int(bx), int(h[bx, bz]) + 1, int(bz)))


def _dress(rng, cells, tree: dict, cid: dict, at: tuple[int, int], ground: int, top_y: int) -> None:
    """What grows on a tree besides its log and leaves (gridworld.yaml `trees:`): cells hanging
    from its lowest leaves outward, 1 to 3 long down through air (vines), and cells on its
    trunk's sides in the three levels above the ground (cocoa pods).  No draw for a tree with
    neither, so the other species' maps are unchanged."""
    X, Z, _ = cells.shape
    tx, tz = at
    dy, r = CANOPY[0]
    for cell, p in (tree.get("hanging") or {}).items():
        y = top_y + dy
        for ox in range(-r, r + 1):
            for oz in range(-r, r + 1):
                if max(abs(ox), abs(oz)) != r or rng.random() >= p:
                    continue
                x, z = tx + ox + np.sign(ox) * (abs(ox) >= abs(oz)), tz + oz + np.sign(oz) * (abs(oz) > abs(ox))
                if not (0 <= x < X and 0 <= z < Z) or cells[tx + ox, tz + oz, y] != cid[tree["leaves"]]:
                    continue
                for k in range(int(rng.integers(1, 4))):
                    if y - k <= ground or cells[x, z, y - k] != 0:
                        break
                    cells[x, z, y - k] = cid[cell]
    for cell, p in (tree.get("on_trunk") or {}).items():
        for y in range(ground + 1, min(ground + 4, top_y + 1)):
            for ox, oz in ((0, -1), (0, 1), (1, 0), (-1, 0)):
                if rng.random() < p and cells[tx + ox, tz + oz, y] == 0:
                    cells[tx + ox, tz + oz, y] = cid[cell]


def _herd(rng, cells, h, cols, mob: int, herd) -> list[tuple[int, int, int, int]]:
    cx, cz = cols[rng.integers(len(cols))]
    out = []
    X, Z = h.shape
    for _ in range(int(rng.integers(herd[0], herd[1] + 1))):
        x = int(np.clip(cx + rng.integers(-2, 3), 0, X - 1))
        z = int(np.clip(cz + rng.integers(-2, 3), 0, Z - 1))
        y = int(h[x, z]) + 1
        if cells[x, z, y] == 0 and cells[x, z, y - 1] not in (0,):
            out.append((mob, x, y, z))
    return out

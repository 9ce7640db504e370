"""Write worlds/data/minedojo.json from the installed `minedojo` package's own tables.

Run in MineDojo's virtualenv (`make minedojo-env`), never in the main one:

    .venv-minedojo/bin/python -m worlds.minedojo.extract

What it copies, and from where (minedojo 0.1 on PyPI):
- the item list (`minedojo/sim/mc_meta/mc.py: ALL_ITEMS`, built from `mc_constants.json`);
- the craft/smelt argument ids (`ALL_CRAFT_SMELT_ITEMS`: the hand-craft, table-only and smelt lists
  in that order), and the first recipe of each, which MineDojo's own masks test against the inventory
  (`minedojo/sim/wrappers/utils.py: get_recipes_matrix`);
- the placeable and non-mainhand item names (`PLACEABLE_ITEM_NAMES`, `NON_MAINHAND_ITEM_NAMES`),
  stack sizes, block properties (`mc_constants.json: blocks`) and biome ids (`BIOMES_MAP`);
- the action space (`NNActionSpaceWrapper`: nvec, no-op vector, camera interval) and the observation
  space of `minedojo.make` for the adapter's configuration (keys, shapes, dtypes), read from the objects
  that `minedojo.make` builds.  Building them needs no Java: only `reset()` does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "data" / "minedojo.json"


def _space_layout(space, prefix: str = "") -> dict:
    out = {}
    for key, sub in space.spaces.items():
        name = f"{prefix}{key}"
        if hasattr(sub, "spaces") and isinstance(sub.spaces, dict):
            out.update(_space_layout(sub, name + "."))
        else:
            out[name] = {"type": type(sub).__name__, "shape": list(sub.shape or ()), "dtype": str(sub.dtype)}
    return out


def extract() -> dict:
    import minedojo
    from minedojo.sim.mc_meta import mc as MC

    from worlds.minedojo.sensors import IMAGE_SIZE, make_kwargs

    env = minedojo.make("harvest", target_names="log", target_quantities=1, image_size=IMAGE_SIZE, **make_kwargs())
    hand = MC.ALL_HAND_CRAFT_ITEMS_NN_ACTIONS
    table = MC.ALL_TABLE_CRAFT_ONLY_ITEMS_NN_ACTIONS
    smelt = MC.ALL_SMELT_ITEMS_NN_ACTIONS
    first = {}
    for item in MC.ALL_CRAFT_SMELT_ITEMS:  # the row get_recipes_matrix() takes for the mask
        table_of = MC.CRAFTING_RECIPES_BY_OUTPUT if item in hand + table else MC.SMELTING_RECIPES_BY_OUTPUT
        r = table_of[item][0]
        first[item] = {"ingredients": dict(r["ingredients"]), "out": int(r.get("outputCount", r.get("out", 1)))}
    items = {i["type"]: i for i in MC.all_data["items"]}
    blocks = {}
    for name, it in items.items():
        if it.get("block"):
            blocks[name] = {
                k: it.get(k)
                for k in ("blocksMovement", "isLiquid", "canBurn", "needsNoTool", "translucent", "hardness")
            }
    nn = env.action_space
    return {
        "source": "minedojo 0.1 (PyPI): minedojo/sim/mc_meta/mc.py and mc_constants.json (Malmo's "
        "CraftingHelper.dumpMinecraftObjectRules, Minecraft 1.11.2), "
        "minedojo/sim/wrappers/ar_nn/nn_action_space_wrapper.py and ar_masks_wrapper.py; "
        "written by `python -m worlds.minedojo.extract` in .venv-minedojo",
        "minedojo_version": getattr(minedojo, "__version__", "0.1"),
        "python": sys.version.split()[0],
        "action_nvec": [int(n) for n in nn.nvec],
        "action_noop": [int(n) for n in nn.no_op()],
        "camera_interval": 15,
        "fn_actions": ["no_op", "use", "drop", "attack", "craft", "equip", "place", "destroy"],
        "n_inv_slots": int(MC.N_INV_SLOTS),
        "equipment_slots": list(MC.EQUIPMENT_SLOTS),
        "all_items": list(MC.ALL_ITEMS),
        "craft_smelt_items": list(MC.ALL_CRAFT_SMELT_ITEMS),
        "n_hand_craft": len(hand),
        "n_table_craft": len(table),
        "n_smelt": len(smelt),
        "first_recipe": first,
        "placeable": list(MC.PLACEABLE_ITEM_NAMES),
        "non_mainhand": list(MC.NON_MAINHAND_ITEM_NAMES),
        "stack_size": {n: int(it["stackSize"]) for n, it in sorted(items.items())},
        "best_slot": {n: it["bestEquipmentSlot"] for n, it in sorted(items.items())},
        "blocks": blocks,
        "biomes": dict(MC.BIOMES_MAP),
        "observation_space": _space_layout(env.observation_space),
    }


def main() -> None:
    try:
        data = extract()
    except ImportError as e:
        sys.exit(f"minedojo is not installed here ({e}); run this with .venv-minedojo/bin/python (make minedojo-env)")
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(data['all_items'])} items, {len(data['craft_smelt_items'])} craft/smelt ids)")


if __name__ == "__main__":
    main()

"""The mineflayer world: the `World` protocol (worlds/base.py) played on a real Minecraft server
by a mineflayer bot, through the Node sidecar (worlds/mineflayer/sidecar/bot.js).

`step` takes the text world's unit skills ({"action": "mine", "item": "log"}) so the scripted
controller drives it unchanged.  What each unit does on the server:

    mine   pathfind to the nearest block that drops the item and dig it (mineflayer-collectblock,
           the best held tool), then walk over the drop until it is in the inventory
    craft  one batch with bot.craft: the inventory's 2x2 grid, or a crafting table within
           4 blocks, or a held one placed next to the bot for the craft and dug back after
    smelt  one item in a furnace window (within 4 blocks, or a held one placed and dug back)
    kill   mineflayer-pvp on the nearest such mob, then its drops picked up
    equip  bot.equip to the item's slot (armour, off hand, or the main hand)

Before acting, the world checks the game's rules on what the bot holds (worlds/inventory.py's
`Bag`, the text world's rules): a refusal has the text world's words and data ("cannot craft
stick: needs 2 planks, has 1"), costs nothing, and nothing is sent to the server; mining with
too weak a tool is refused by the harvest-tool table (a server may still break the block, and
flying-squid drops it anyway), at the unit's cost, as in the text world.  Step accounting is
the text world's (Table 18 costs per unit, worlds/data/skill_costs.yaml), so a plan's steps
compare across worlds; the server's own clock is in `obs["ticks"]`.

Names.  The agent's names are its knowledge base's version (`--mc-version`); the server's are
its own version's.  Items cross by `canonical` (1.11.2's `log` is 1.16.5's `oak_log` group), so a
1.11.2 run plays a 1.16.5 server.

A server that refuses, times out or closes the connection, a missing Node, a sidecar that dies
twice: `MineflayerError` (a WorldError), one line.  A sidecar that dies once is restarted and
the bot rejoins (the server keeps its inventory).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from worlds.costs import SkillCosts, default_costs
from worlds.inventory import Bag, Refusal, slot_of
from worlds.knowledge import VERSIONS, KnowledgeBase, load_kb
from worlds.options import how_to_obtain, mob_for
from worlds.recipes import a
from worlds.textworld import DispatchStep, Outcome, read_action
from worlds.types import ACTIONS

from .sidecar import MineflayerError, Sidecar

DEFAULT_MAX_STEPS = 12000
SETTLE_TICKS = 10  # a reset's inventory must still be right this many game ticks (0.5 s) after it looked right
DESTINATION = {
    "head": "head",
    "chest": "torso",
    "legs": "legs",
    "feet": "feet",
    "offhand": "off-hand",
    "mainhand": "hand",
}


@dataclass
class MineflayerOptions:
    """How to reach the server (the part's options: `--server`, `--bot-name`...)."""

    server: str = field(
        default="127.0.0.1:25565",
        metadata={
            "help": "mineflayer: the Minecraft server to join, HOST:PORT (default 127.0.0.1:25565)",
            "metavar": "HOST:PORT",
            "flag": "--server",
        },
    )
    bot_name: str = field(
        default="deps",
        metadata={
            "help": "mineflayer: the bot's offline-mode user name (the server must run with online-mode=false)",
            "metavar": "NAME",
        },
    )
    server_version: str | None = field(
        default=None,
        metadata={
            "help": "mineflayer: the server's Minecraft version, one the agent knows (1.11.2, 1.16.5, 1.19.2); "
            "default: asked from the server",
            "metavar": "VERSION",
        },
    )
    connect_timeout: int = field(
        default=30,
        metadata={
            "help": "mineflayer: seconds to wait for the server to let the bot in (default 30)",
            "metavar": "S",
            "bounds": (1, 600),
        },
    )
    action_timeout: int = field(
        default=120,
        metadata={
            "help": "mineflayer: seconds one skill unit may take on the server (default 120)",
            "metavar": "S",
            "bounds": (1, 3600),
        },
    )

    def address(self) -> tuple[str, int]:
        host, sep, port = self.server.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise MineflayerError(
                "bad_option", f"bad --server {self.server!r}; accepted: HOST:PORT, e.g. 127.0.0.1:25565"
            )
        return host, int(port)


_Outcome = Outcome  # the text world's outcome; `chance`: the server did not deliver (a drop out of reach)


def _fail(error: str, missing: dict | None = None, cost: int = 0, chance: bool = False) -> _Outcome:
    return _Outcome(False, error, cost, {}, missing or {}, chance)


class MineflayerWorld(DispatchStep):
    observation_space = {
        "inventory": "item -> count (the agent's names)",
        "equipment": "slot -> item",
        "position": "[x, y, z] on the server",
        "health": "0..20",
        "time_of_day": "day or night",
        "ticks": "the server's time of day in ticks",
        "steps": "environment steps used",
    }
    action_space = {"action": ACTIONS, "item": "an item (or mob for kill)", "fuel": "optional, for smelt"}

    def __init__(
        self,
        kb: KnowledgeBase,
        options: MineflayerOptions | None = None,
        *,
        allowed_skills: set[str] | None = None,
        costs: SkillCosts | None = None,
        sidecar: Sidecar | None = None,
    ):
        self.kb = kb
        self.options = options or MineflayerOptions()
        if allowed_skills:
            bad = sorted(set(allowed_skills) - set(ACTIONS))
            if bad:
                raise ValueError(f"unknown skill(s) {', '.join(bad)}; accepted: {', '.join(ACTIONS)}")
        self.allowed = set(allowed_skills) if allowed_skills else set(ACTIONS)
        self.costs = costs or default_costs()
        self.sidecar = sidecar or Sidecar(timeout_s=self.options.action_timeout + 10)
        self.game_kb: KnowledgeBase | None = None  # the server's version's names
        self.connected = False
        self.steps = 0
        self.max_steps = DEFAULT_MAX_STEPS
        self.target: dict[str, int] = {}
        self.fuel_credit = 0.0
        self.mainhand: str | None = None  # a tool equipped to the hand (the text world keeps it out of the inventory)
        self.seed: int | None = None
        self._state: dict = {}

    # ------------------------------------------------------------------ connection
    def connect(self) -> None:
        host, port = self.options.address()
        if not self.sidecar.alive:
            self.sidecar.start()
        args: dict[str, Any] = {
            "host": host,
            "port": port,
            "username": self.options.bot_name,
            "timeout_ms": int(self.options.connect_timeout * 1000),
        }
        if self.options.server_version:
            args["version"] = self.options.server_version
        try:
            self._state = self.sidecar.call("connect", timeout_s=self.options.connect_timeout + 10, **args)
        except MineflayerError as e:
            self.sidecar.close()
            kind = {"error": "refused", "kicked": "disconnected"}.get(e.kind, e.kind)
            raise MineflayerError(kind, f"cannot join the Minecraft server at {host}:{port}: {e}") from None
        version = self._state.get("version")
        if version not in VERSIONS:
            self.close()
            raise MineflayerError(
                "bad_version",
                f"the server at {host}:{port} runs Minecraft {version}; the agent "
                f"knows the game data of {', '.join(VERSIONS)} (accepted: a server "
                "of one of those)",
            )
        self.game_kb = self.kb if version == self.kb.version else load_kb(version)
        self.connected = True

    def close(self) -> None:
        if self.sidecar.alive:
            try:
                self.sidecar.call("quit", timeout_s=5)
            except MineflayerError:
                pass
        self.sidecar.close()
        self.connected = False

    def _call(self, cmd: str, **args: Any) -> Any:
        """A sidecar command; a sidecar that died is restarted once and the bot rejoins."""
        if not self.connected:
            self.connect()
        try:
            return self.sidecar.call(cmd, timeout_s=self.options.action_timeout + 10, **args)
        except MineflayerError as e:
            if e.kind != "crashed":
                raise
        self.sidecar.close()
        self.connected = False
        self.connect()
        return self.sidecar.call(cmd, timeout_s=self.options.action_timeout + 10, **args)

    # ------------------------------------------------------------------ names
    def _ours(self, server_items: dict[str, int]) -> dict[str, int]:
        """Server item names -> the agent's (its knowledge base's version)."""
        out: dict[str, int] = {}
        for name, n in server_items.items():
            mine = self.kb.canonical(name) or name
            if self.kb.is_generic(mine):
                vs = self.kb.variants(mine)
                mine = vs[0] if vs else mine
            out[mine] = out.get(mine, 0) + int(n)
        return out

    def _game_names(self, item: str) -> list[str]:
        """The agent's item -> the server's names for it (a generic name gives every member)."""
        assert self.game_kb is not None
        canon = self.game_kb.canonical(item)
        if canon is None:
            return []
        return list(self.game_kb.variants(canon)) or [canon]

    def _game_bag(self) -> Bag:
        assert self.game_kb is not None
        bag = Bag(self.game_kb)
        bag.items = dict(self._state.get("inventory") or {})
        return bag

    def command(self, text: str) -> dict:
        """A chat command as the bot ("/time set night", "/summon cow"; most need op rights)."""
        self._state = self._call("command", text=text)
        return self._state

    # ------------------------------------------------------------------ read-outs
    def refresh(self) -> dict:
        self._state = self._call("state")
        return self._state

    @property
    def inventory(self) -> dict[str, int]:
        inv = self._ours(self._state.get("inventory") or {})
        if self.mainhand and inv.get(self.mainhand):  # worn in the hand, as the text world counts it
            inv[self.mainhand] -= 1
            if not inv[self.mainhand]:
                del inv[self.mainhand]
        return inv

    @property
    def equipment(self) -> dict[str, str]:
        worn = {slot: self._ours({name: 1}).popitem()[0] for slot, name in (self._state.get("equipment") or {}).items()}
        held = self._ours(self._state.get("inventory") or {})
        if self.mainhand and held.get(self.mainhand):
            worn["mainhand"] = self.mainhand
        return worn

    def bag(self) -> Bag:
        """The agent's belongings as the rules see them (worlds/inventory.py)."""
        bag = Bag(self.kb)
        bag.items, bag.equipment, bag.fuel_credit = self.inventory, self.equipment, self.fuel_credit
        return bag

    def has(self, name: str, count: int = 1) -> bool:
        return self.bag().held(name) >= count

    def target_reached(self) -> bool:
        return bool(self.target) and all(self.has(k, n) for k, n in self.target.items())

    def time_of_day(self) -> str:
        return "day" if (self._state.get("time") or {}).get("is_day", True) else "night"

    def context_state(self) -> dict:
        return {"time_of_day": self.time_of_day(), "position": self._state.get("position")}

    def _obs(self) -> dict:
        return {
            "inventory": self.inventory,
            "equipment": self.equipment,
            "position": self._state.get("position"),
            "health": self._state.get("health"),
            "time_of_day": self.time_of_day(),
            "ticks": (self._state.get("time") or {}).get("time_of_day"),
            "steps": self.steps,
        }

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Join (once), then make the bot's inventory the episode's: /clear and /give (the bot
        needs op rights where the inventory is not already right).  A server's world cannot be
        re-seeded: `seed` is recorded, and what a seed fixes here is the inventory and the counters."""
        o = dict(options or {})
        self.seed = seed
        if not self.connected:
            self.connect()
        want: dict[str, int] = {}
        for name, n in (o.get("inventory") or {}).items():
            if int(n) > 0:
                item = self.kb.canonical(name)
                if item is None:
                    raise ValueError(f"unknown item {name!r} in the initial inventory")
                game = self._game_concrete(item)
                want[game] = want.get(game, 0) + int(n)
        self.target = {}
        for name, n in (o.get("target") or {}).items():
            canon = self.kb.canonical(name)
            if canon is None:
                raise ValueError(f"unknown item {name!r} in the target")
            self.target[canon] = int(n)
        for x, y, z in self.sidecar.left_standing:  # stations this world left standing: not the next episode's
            self._call("command", text=f"/setblock {x} {y} {z} air")  # op rights; else dug by hand
            if self._call("block_at", x=x, y=y, z=z)["name"] == "air":
                continue
            try:
                self._call("dig_at", x=x, y=y, z=z, timeout_ms=int(self.options.action_timeout * 1000))
            except MineflayerError as e:
                if e.connection:
                    raise
        self.sidecar.left_standing.clear()
        self._set_inventory(want)
        if o.get("time_of_day") in ("day", "night"):
            self._call("command", text=f"/time set {o['time_of_day']}")
        self.steps, self.fuel_credit, self.mainhand = 0, 0.0, None
        self.max_steps = int(o.get("max_steps") or DEFAULT_MAX_STEPS)
        self.refresh()
        return self._obs(), _Outcome(True).info()

    def _game_concrete(self, item: str) -> str:
        assert self.game_kb is not None
        names = self._game_names(item)
        if not names:
            raise ValueError(f"{item} does not exist on the server's Minecraft {self.game_kb.version}")
        return Bag(self.game_kb).concrete(names[0]) if len(names) == 1 else Bag(self.game_kb).preferred_variant(names)

    def _set_inventory(self, want: dict[str, int]) -> None:
        """/clear then /give until the bot holds exactly `want`, and still does SETTLE_TICKS
        later (a drop of the last episode lying at its feet is picked up a few ticks after a
        read that looked right: cleared again); three tries."""
        state = self.refresh()
        name = self.options.bot_name
        for _ in range(3):
            if self._holds(state, want):
                state = self._call("wait_ticks", ticks=SETTLE_TICKS)
                if self._holds(state, want):
                    self._state = state
                    return
            if state.get("inventory") or state.get("equipment"):
                self._call("command", text=f"/clear {name}")
            for item, n in want.items():
                self._call("command", text=f"/give {name} {item} {n}")
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                state = self._call("wait_ticks", ticks=4)
                if self._holds(state, want):
                    break
        self._state = state
        if self._holds(state, want):
            return
        raise MineflayerError(
            "reset",
            f"could not set the bot's inventory to {want or 'nothing'} (it has "
            f"{state.get('inventory') or 'nothing'}); accepted: a server where the bot has "
            "op rights for /clear and /give (/op NAME), or a new --bot-name",
        )

    @staticmethod
    def _holds(state: dict, want: dict[str, int]) -> bool:
        return state.get("inventory") == want and not state.get("equipment")

    def _dispatch(self, action: dict) -> _Outcome:
        read = read_action(self.kb, self.allowed, action)  # the text world's reading and refusals
        if isinstance(read, _Outcome):
            return read
        skill, item = read
        if skill == "kill_mob":
            return self._kill_mob(item)
        self.refresh()
        return getattr(self, "_" + skill)(item, action)

    def _gained(self, before: dict[str, int]) -> dict[str, int]:
        self.refresh()
        after = self.inventory
        return {k: n - before.get(k, 0) for k, n in after.items() if n > before.get(k, 0)}

    # ------------------------------------------------------------------ skills
    def _mine(self, item: str, action: dict) -> _Outcome:
        kb = self.kb
        sources = kb.sources_to_mine(item)
        if not sources and kb.interactions(item):
            return _fail(
                f"{item} comes from using an item on a mob or a block, which the mineflayer world does not do yet"
            )
        if not sources:
            return _fail(f"{item} cannot be mined (no natural block drops it); obtain it by {how_to_obtain(kb, item)}")
        usable = [s for s in sources if s.harvested_with(self.has)]
        if not usable:
            s = min(sources, key=lambda s: s.tier)
            rate = self.costs.mine(s.block, needs_pickaxe=s.needs_pickaxe)
            return _fail(f"needs {s.tool_need()} to mine {s.block}", {"tool": s.min_tool}, rate.cost)
        blocks = list(dict.fromkeys(b for s in usable for b in self._game_names(s.block)))
        rate = self.costs.mine(usable[0].block, needs_pickaxe=usable[0].needs_pickaxe)
        before = self.inventory
        try:
            res = self._call("collect", blocks=blocks, timeout_ms=int(self.options.action_timeout * 1000))
        except MineflayerError as e:
            if e.connection:
                raise
            if e.kind == "not_found":
                return _fail(f"no block that drops {item} is in reach of the bot ({e})", {}, rate.cost)
            return _fail(f"mining {item} failed on the server: {e}", {}, rate.cost, chance=True)
        gained = self._gained(before)
        if not gained:
            return _fail(f"dug {res.get('block')} but its drop did not reach the inventory", {}, rate.cost, chance=True)
        # steps are the text world's per block broken: where the walk dug through another such block, or a
        # drop left out of reach was picked up with this one, the unit brought two blocks' worth, and costs it
        broken = max(1, kb.count(gained, item) // max(1, usable[0].count))
        return _Outcome(True, None, rate.cost * broken, gained)

    def near(self, block: str) -> bool:
        """Is such a block placed within 4 blocks of the bot (a crafting table, a furnace)?"""
        return bool((self._state.get("near") or {}).get(block))

    def _craft(self, item: str, action: dict) -> _Outcome:
        table = self.has("crafting_table") or self.near("crafting_table")  # held (placed for the craft) or placed
        r = self.bag().plan_craft(item, table)  # the text world's rules and words
        if isinstance(r, Refusal):
            return _fail(r.error, r.missing)
        rate = self.costs.craft(r.needs_table)
        assert self.game_kb is not None
        game = self._game_bag().plan_craft(self.game_kb.canonical(r.output) or r.output, table)
        if isinstance(game, Refusal):
            return _fail(
                f"the server's Minecraft {self.game_kb.version if self.game_kb else ''} refuses: {game.error}", {}
            )
        before = self.inventory
        try:
            self._call(
                "craft",
                item=game.output,
                count=1,
                pick_up_table=True,
                timeout_ms=int(self.options.action_timeout * 1000),
            )
        except MineflayerError as e:
            if e.connection:
                raise
            return _fail(f"crafting {item} failed on the server: {e}", {}, rate.cost, chance=e.kind != "no_room")
        gained = self._gained(before)
        if not gained:
            return _fail(f"the server gave no {item}", {}, rate.cost, chance=True)
        return _Outcome(True, None, rate.cost, gained)

    def _smelt(self, item: str, action: dict) -> _Outcome:
        bag = self.bag()
        plan = bag.plan_smelt(item, self.has("furnace") or self.near("furnace"), action.get("fuel"))
        if isinstance(plan, Refusal):
            return _fail(plan.error, plan.missing)
        r, fuel = plan
        rate = self.costs.smelt()
        held = self._game_bag()
        game_input = next((v for v in self._game_names(r.input) if held.items.get(v)), None)
        game_fuel = next((v for v in self._game_names(fuel) if held.items.get(v)), None) if fuel else None
        if game_input is None or (fuel and game_fuel is None):
            return _fail(f"cannot smelt {item}: the server's inventory lacks {r.input if game_input is None else fuel}")
        before = self.inventory
        try:
            res = self._call(
                "smelt",
                input=game_input,
                fuel=game_fuel,
                pick_up_furnace=True,
                timeout_ms=int(self.options.action_timeout * 1000),
            )
            if res.get("furnace_left_at"):  # no pickaxe to take it back: removed at the next reset
                self.sidecar.left_standing.append(res["furnace_left_at"])
        except MineflayerError as e:
            if e.connection:
                raise
            return _fail(f"smelting {item} failed on the server: {e}", {}, rate.cost, chance=e.kind != "no_room")
        gained = self._gained(before)
        if not gained:
            return _fail(f"the furnace gave no {item}", {}, rate.cost, chance=True)
        if fuel is not None:
            self.fuel_credit += self.kb.fuel_value(fuel)
        self.fuel_credit -= 1
        return _Outcome(True, None, rate.cost, gained)

    def _kill(self, item: str, action: dict) -> _Outcome:
        mob = mob_for(self.kb, self.costs, item)
        if mob is None:
            return _fail(f"no mob here drops {item}; obtain it by {how_to_obtain(self.kb, item)}")
        return self._kill_mob(mob)

    def _kill_mob(self, mob: str) -> _Outcome:
        if mob not in self.kb.mobs():
            return _fail(f"there is no {mob} to hunt in this world (huntable: {', '.join(self.kb.mobs())})")
        rate = self.costs.kill(mob)
        self.refresh()
        before = self.inventory
        try:
            self._call("kill", mob=mob, timeout_ms=int(self.options.action_timeout * 1000))
        except MineflayerError as e:
            if e.connection:
                raise
            missing = "" if e.kind != "not_found" else " (none in sight)"
            return _fail(
                f"hunting {mob} failed on the server{missing}: {e}", {}, rate.cost, chance=e.kind != "not_found"
            )
        gained = self._gained(before)
        if not gained:
            return _fail(f"killed {a(mob)} but picked up none of its drops", {}, rate.cost, chance=True)
        return _Outcome(True, None, rate.cost, gained)

    def _equip(self, item: str, action: dict) -> _Outcome:
        held = self.bag().plan_equip(item)
        if isinstance(held, Refusal):
            return _fail(held.error, held.missing)
        rate = self.costs.equip()
        slot = slot_of(held)
        game = next((v for v in self._game_names(held) if self._game_bag().items.get(v)), None)
        if game is None:
            return _fail(f"cannot equip {item}: the server's inventory has none")
        try:
            self._call("equip", item=game, destination=DESTINATION[slot])
        except MineflayerError as e:
            if e.connection:
                raise
            return _fail(f"equipping {item} failed on the server: {e}", {}, rate.cost, chance=True)
        if slot == "mainhand":
            self.mainhand = held
        self.refresh()
        return _Outcome(True, None, rate.cost, {})

// TEST-ONLY STAND-IN, the deps-agent project's own code: NOT part of flying-squid, NOT Minecraft.
//
// flying-squid 1.12 has no crafting and no furnaces: its window clicks move items but never
// answer the client's transaction (so mineflayer's bot.craft times out) and nothing computes a
// crafting result.  This plugin supplies, for the tests only:
//   - crafting: the inventory's 2x2 grid and a crafting_table's 3x3 window; the result is
//     looked up in minecraft-data's recipes (shaped, mirrored, shapeless) for the server's version;
//   - furnaces: a furnace window that smelts one input 10 ticks after it has input and burn
//     credit; a fuel item gives its credit in items (coal 8, planks 1.5) and the credit carries
//     over between smelts and furnaces, as in the project's text world; the table comes from
//     the test in DEPS_STANDIN_TABLES, JSON {"recipes": {input: [output, count]}, "fuels":
//     {item: items smelted}} (the project's worlds/data smelting table; minecraft-data has none);
//   - mob loot: a mob killed by a player drops what the project's table says (DEPS_STANDIN_TABLES
//     "mob_drops": {mob: {item: count}}, from the knowledge base), and its death is told to the
//     clients (flying-squid forgets a dead mob without telling them); mobs still have no AI;
//   - every window click is answered with an accepted transaction (1.16 protocol);
//   - /clear [player]: empty the inventory (vanilla has it; flying-squid does not);
//   - item counts made numbers (flying-squid's /give stores the typed string).
// What a real server does beyond this (recipe book, fuel burn times, XP, hoppers) is not modelled.
'use strict'

const { Vec3 } = require('vec3')

module.exports.server = function (serv) {
  const { registry } = serv
  const tables = JSON.parse(process.env.DEPS_STANDIN_TABLES || '{}')

  serv.standinSmelting = {}
  for (const [input, [output, count]] of Object.entries(tables.recipes || {})) {
    const i = registry.itemsByName[input]
    const o = registry.itemsByName[output]
    if (i && o) serv.standinSmelting[i.id] = { id: o.id, count }
  }
  serv.standinMobDrops = tables.mob_drops || {}
  serv.on('newEntity', (entity) => {
    if (entity.type !== 'mob' || !entity.takeDamage) return
    const takeDamage = entity.takeDamage
    entity.takeDamage = (hit) => {
      const alive = entity.health > 0
      takeDamage(hit)
      if (alive && entity.health <= 0) dropLoot(entity)
    }
  })

  function dropLoot (entity) {
    serv.destroyEntity(entity)
    const itemEntity = registry.entitiesByName.item.id
    for (const [name, count] of Object.entries(serv.standinMobDrops[entity.name] || {})) {
      const item = registry.itemsByName[name]
      if (!item) continue
      for (let i = 0; i < count; i++) {
        serv.spawnObject(itemEntity, entity.world, entity.position.offset(0, 0.5, 0), {
          velocity: new Vec3(0, 0, 0), itemId: item.id, itemCount: 1, pickupTime: 500, deathTime: 60 * 5 * 1000
        })
      }
    }
  }

  serv.standinFuels = {}
  for (const [name, value] of Object.entries(tables.fuels || {})) {
    const it = registry.itemsByName[name]
    if (it) serv.standinFuels[it.id] = value
  }

  serv.commands.add({
    base: 'clear',
    info: 'empty a player\'s inventory (deps-agent test stand-in)',
    usage: '/clear [player]',
    op: true,
    parse (args, ctx) {
      const players = args ? serv.getPlayers(args, ctx.player) : [ctx.player]
      return { players }
    },
    action ({ players }) {
      for (const player of players) {
        for (let slot = 0; slot < player.inventory.slots.length; slot++) {
          if (player.inventory.slots[slot]) player.inventory.updateSlot(slot, null)
        }
      }
    }
  })

  serv.once('asap', () => {
    serv.onBlockInteraction('crafting_table', ({ player }) => {
      openWindow(player, 'minecraft:crafting', 'Crafting', 1, 9)
      return true
    })
    serv.onBlockInteraction('furnace', ({ player }) => {
      openWindow(player, 'minecraft:furnace', 'Furnace', 3, 0)
      return true
    })
  })

  function openWindow (player, type, title, firstInventorySlot, gridSize) {
    const windows = require('prismarine-windows')(registry)
    const Item = require('prismarine-item')(registry)
    player.standinWindowId = ((player.standinWindowId || 0) % 100) + 1
    const win = windows.createWindow(player.standinWindowId, type, title)
    win.standinGrid = gridSize
    // the inventory part of the window mirrors the player's slots 9..44
    for (let s = 9; s <= 44; s++) {
      const it = player.inventory.slots[s]
      if (it) win.updateSlot(s - 9 + win.inventoryStart, new Item(it.type, it.count, it.metadata))
    }
    player.standinWindow = win
    player._client.write('open_window', {
      windowId: win.id,
      inventoryType: windows.windows[type].type,
      windowTitle: JSON.stringify({ text: title })
    })
    player._client.write('window_items', {
      windowId: win.id,
      items: win.slots.map((it) => Item.toNotch(it))
    })
  }
}

module.exports.player = function (player, serv) {
  // flying-squid calls this before its own inventory plugin has set the player up
  setImmediate(() => setUp(player, serv))
}

function setUp (player, serv) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)

  // flying-squid's own handler applies every click to the player's inventory, whatever the
  // window: keep it for nothing; this plugin owns window clicks.
  player._client.removeAllListeners('window_click')
  player._client.removeAllListeners('close_window')

  // flying-squid's /give stores the count as the string it was typed as; make it a number
  player.inventory.on('updateSlot', (slot, oldItem, item) => {
    if (item && typeof item.count !== 'number') item.count = Number(item.count)
  })

  function toClient (windowId, slot, item) {
    player._client.write('set_slot', { windowId, slot, item: Item.toNotch(item) })
  }

  player._client.on('window_click', (packet) => {
    if (process.env.STANDIN_DEBUG) process.stderr.write(`click ${JSON.stringify(packet)}\n`)
    const win = packet.windowId === 0 ? player.inventory : player.standinWindow
    // answer first, so the client applies its own prediction before our slot updates arrive
    player._client.write('transaction', { windowId: packet.windowId, action: packet.action, accepted: !!win })
    if (!win) return
    const gridSize = packet.windowId === 0 ? 4 : win.standinGrid
    const resultSlot = win.craftingResultSlot
    const tookResult = gridSize > 0 && packet.slot === resultSlot && win.slots[resultSlot] && (packet.mode === 0 || packet.mode === 1)
    const changed = new Set()
    const onUpdate = (slot) => changed.add(slot)
    win.on('updateSlot', onUpdate)
    try {
      win.acceptClick({ mode: packet.mode, slot: packet.slot, mouseButton: packet.mouseButton, item: packet.slot >= 0 ? win.slots[packet.slot] : null })
      if (gridSize > 0) {
        if (tookResult && !win.slots[resultSlot]) consumeGrid(win, gridSize)
        setResult(win, gridSize)
      }
      if (packet.windowId !== 0 && win.type === 'minecraft:furnace') scheduleSmelt(win)
    } catch (err) {
      if (process.env.STANDIN_DEBUG) process.stderr.write(`click failed: ${err.stack}\n`)
      serv.emit('error', err)
    } finally {
      win.removeListener('updateSlot', onUpdate)
    }
    if (packet.windowId !== 0) for (const s of changed) toClient(win.id, s, win.slots[s])
    if (process.env.STANDIN_DEBUG) process.stderr.write(`  -> changed ${[...changed]} slots ${JSON.stringify(win.slots.map((it, i) => it && [i, it.name, it.count]).filter(Boolean))} cursor ${win.selectedItem && win.selectedItem.count}\n`)
    // (window 0: flying-squid's inventory plugin already sends set_slot for every update)
  })

  player._client.on('close_window', () => {
    const win = player.standinWindow
    player.standinWindow = null
    if (!win) return
    // grid and cursor go back to the inventory part, which becomes the player's inventory
    const giveBack = []
    if (win.standinGrid > 0) {
      for (let s = 1; s <= win.standinGrid; s++) if (win.slots[s]) giveBack.push(win.slots[s])
    }
    if (win.selectedItem) giveBack.push(win.selectedItem)
    for (let s = 9; s <= 44; s++) {
      const it = win.slots[s - 9 + win.inventoryStart]
      const old = player.inventory.slots[s]
      if (!Item.equal(it, old)) player.inventory.updateSlot(s, it ? new Item(it.type, it.count, it.metadata) : null)
    }
    for (const it of giveBack) addToInventory(it)
  })

  function addToInventory (item) {
    let left = item.count
    for (let s = 9; s <= 44 && left > 0; s++) {
      const it = player.inventory.slots[s]
      if (it && it.type === item.type && it.count < it.stackSize) {
        const n = Math.min(left, it.stackSize - it.count)
        it.count += n
        left -= n
        player.inventory.updateSlot(s, it)
      }
    }
    for (let s = 9; s <= 44 && left > 0; s++) {
      if (!player.inventory.slots[s]) {
        player.inventory.updateSlot(s, new Item(item.type, left, item.metadata))
        left = 0
      }
    }
  }

  function grid (win, gridSize) {
    const w = gridSize === 4 ? 2 : 3
    const rows = []
    for (let y = 0; y < w; y++) {
      const row = []
      for (let x = 0; x < w; x++) {
        const it = win.slots[1 + x + w * y]
        row.push(it ? it.type : null)
      }
      rows.push(row)
    }
    return rows
  }

  function setResult (win, gridSize) {
    const found = matchRecipe(grid(win, gridSize))
    const now = win.slots[win.craftingResultSlot]
    const want = found ? new Item(found.id, found.count) : null
    if (!Item.equal(now, want)) win.updateSlot(win.craftingResultSlot, want)
  }

  function consumeGrid (win, gridSize) {
    for (let s = 1; s <= gridSize; s++) {
      const it = win.slots[s]
      if (!it) continue
      it.count -= 1
      win.updateSlot(s, it.count > 0 ? it : null)
    }
  }

  // ---------------------------------------------------------------- recipes (minecraft-data)
  function crop (rows) {
    const norm = rows.map((r) => r.map((v) => (v === undefined || v === -1 ? null : v)))
    const filled = (r) => r.some((v) => v !== null)
    const ys = norm.map((r, i) => (filled(r) ? i : -1)).filter((i) => i >= 0)
    if (!ys.length) return []
    const width = Math.max(...norm.map((r) => r.length))
    const xs = []
    for (let x = 0; x < width; x++) if (norm.some((r) => r[x] !== null && r[x] !== undefined)) xs.push(x)
    const out = []
    for (let y = ys[0]; y <= ys[ys.length - 1]; y++) {
      const row = []
      for (let x = xs[0]; x <= xs[xs.length - 1]; x++) row.push(norm[y][x] ?? null)
      out.push(row)
    }
    return out
  }

  const same = (a, b) => a.length === b.length && a.every((r, y) => r.length === b[y].length && r.every((v, x) => v === b[y][x]))

  function matchRecipe (rows) {
    const shape = crop(rows)
    if (!shape.length) return null
    const mirrored = shape.map((r) => [...r].reverse())
    const held = shape.flat().filter((v) => v !== null).sort((a, b) => a - b)
    for (const [id, list] of Object.entries(registry.recipes)) {
      for (const r of list) {
        const ingredientId = (v) => (v && typeof v === 'object' ? v.id : v)
        if (r.inShape) {
          const want = crop(r.inShape.map((row) => row.map(ingredientId)))
          if (same(want, shape) || same(want, mirrored)) return { id: Number(id), count: r.result.count }
        } else if (r.ingredients) {
          const want = r.ingredients.map(ingredientId).sort((a, b) => a - b)
          if (want.length === held.length && want.every((v, i) => v === held[i])) return { id: Number(id), count: r.result.count }
        }
      }
    }
    return null
  }

  // ---------------------------------------------------------------- furnace
  function scheduleSmelt (win) {
    if (win.standinSmelting) return
    const input = win.slots[0]
    if (!input || !serv.standinSmelting[input.type]) return
    if ((player.standinCredit || 0) < 1 - 1e-9 && !(win.slots[1] && serv.standinFuels[win.slots[1].type])) return
    win.standinSmelting = true
    setTimeout(() => {
      win.standinSmelting = false
      if (player.standinWindow !== win) return
      const i = win.slots[0]
      const f = win.slots[1]
      const o = win.slots[2]
      const recipe = i && serv.standinSmelting[i.type]
      if (!recipe || (o && (o.type !== recipe.id || o.count + recipe.count > o.stackSize))) return
      if ((player.standinCredit || 0) < 1 - 1e-9) {
        if (!f || !serv.standinFuels[f.type]) return
        player.standinCredit = (player.standinCredit || 0) + serv.standinFuels[f.type]
        f.count -= 1
        win.updateSlot(1, f.count > 0 ? f : null)
      }
      player.standinCredit -= 1
      i.count -= 1
      win.updateSlot(0, i.count > 0 ? i : null)
      win.updateSlot(2, o ? new Item(o.type, o.count + recipe.count) : new Item(recipe.id, recipe.count))
      for (const s of [0, 1, 2]) toClient(win.id, s, win.slots[s])
      scheduleSmelt(win)
    }, 500)
  }
}

// TEST-ONLY terrain for the deps-agent mineflayer tests (the project's own, not flying-squid's).
// flying-squid's generators make no trees or ores; this one makes a flat plains world with
// what a wooden-pickaxe plan needs near the surface, at fixed places (so every run is the same):
//   y 0 bedrock, y 1-3 stone, y 4-5 dirt, y 6 grass_block;
//   every 9 blocks along x and z: an oak_log column 4 high (x%9 = 4, z%9 = 4),
//   a stone boulder (x%9 = 0, z%9 = 0), a coal_ore (x%9 = 0, z%9 = 4) and an iron_ore (x%9 = 4, z%9 = 0)
//   standing on the grass.
const { Vec3 } = require('vec3')

function generation (options) {
  const { registry } = options
  const Chunk = require('prismarine-chunk')(registry)
  const state = (name) => registry.blocksByName[name].defaultState
  const plains = registry.biomesByName.plains.id
  const mod9 = (v) => ((v % 9) + 9) % 9

  return function generateChunk (chunkX, chunkZ) {
    const chunk = new Chunk()
    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        const wx = chunkX * 16 + x
        const wz = chunkZ * 16 + z
        for (let y = 0; y < 12; y++) {
          const p = new Vec3(x, y, z)
          let block = null
          if (y === 0) block = 'bedrock'
          else if (y <= 3) block = 'stone'
          else if (y <= 5) block = 'dirt'
          else if (y === 6) block = 'grass_block'
          else if (mod9(wx) === 4 && mod9(wz) === 4 && y <= 10) block = 'oak_log'
          else if (y === 7 && mod9(wx) === 0 && mod9(wz) === 0) block = 'stone'
          else if (y === 7 && mod9(wx) === 0 && mod9(wz) === 4) block = 'coal_ore'
          else if (y === 7 && mod9(wx) === 4 && mod9(wz) === 0) block = 'iron_ore'
          if (block) chunk.setBlockStateId(p, state(block))
        }
        for (let y = 0; y < 256; y++) {
          const p = new Vec3(x, y, z)
          chunk.setSkyLight(p, 15)
          chunk.setBiome(p, plains)
        }
      }
    }
    return chunk
  }
}

module.exports = generation

// TEST-ONLY launcher: a flying-squid Minecraft server on 127.0.0.1 for the deps-agent tests.
// Usage: node squid.js --port 0 --version 1.16.5 --folder DIR [--standin]
// Prints one JSON line {"listening": PORT} once it accepts players; exits when stdin closes
// (so it never outlives the test that started it).  --standin loads standin.js, the project's
// own crafting and smelting windows (flying-squid has none).
const path = require('path')
const mcServer = require('flying-squid')

function arg (name, fallback) {
  const i = process.argv.indexOf('--' + name)
  return i >= 0 ? process.argv[i + 1] : fallback
}

const plugins = {}
if (process.argv.includes('--standin')) plugins[path.join(__dirname, 'standin.js')] = {}

const serv = mcServer.createMCServer({
  motd: 'deps-agent test server',
  host: '127.0.0.1',
  port: parseInt(arg('port', '0'), 10),
  'max-players': 10,
  'online-mode': false,
  logging: false,
  gameMode: 0,
  difficulty: 0,
  worldFolder: arg('folder', undefined),
  generation: { name: path.join(__dirname, 'grove.js'), options: {} },
  kickTimeout: 10000,
  plugins,
  modpe: false,
  'view-distance': 4,
  'player-list-text': { header: { text: '' }, footer: { text: '' } },
  'everybody-op': true,
  'max-entities': 100,
  version: arg('version', '1.16.5')
})

serv.on('listening', (port) => {
  serv.waitForReady(10000).then(() => process.stdout.write(JSON.stringify({ listening: port }) + '\n'))
})
serv.on('error', (err) => process.stderr.write(`server error: ${err && err.stack ? err.stack : err}\n`))
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()

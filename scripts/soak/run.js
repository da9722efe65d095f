// The chaos soak: the real server for MINUTES under lean protocol clients and mineflayer bots
// that walk, travel, die, leave and come back, dig and place, with hunts started and stopped,
// while faults are injected in turn: reloads good and bad, save-all, garbage to the Minecraft
// and RCON ports, an RCON flood, a client that never reads, a full disk during a save, a slow
// disk during an autosave, and SIGKILL in the middle of an autosave followed by a restart on
// the same folder. Every --sample-every seconds it samples what a leak would grow: the
// server's resident memory, open file descriptors (connections among them) and threads, its
// loaded chunks, entities by kind, and the size of the web map's snapshot. Prints a table of
// what must hold and writes it to OUT/soak.json, the samples to OUT/samples.csv; exits 1 if
// anything failed.
//
// node scripts/soak/run.js --out DIR [--minutes N] [--clients N] [--bots N] [--close-within S]
//                              [--tick-goal-ms MS] [--fault-every S] [--no-kill]
//                              [--sample-every S] [--growth-goal PCT]
// --tick-goal-ms 0 reports tick times without judging them (the test suite, on a busy machine).
// --no-kill leaves out the SIGKILL, so the whole run is one life whose memory can be followed.
// --growth-goal judges the leak checks of growth.js: growth after warm-up (the first third), in
// percent of the mean over that stretch, and the map's parts within their bounds; 0 (the
// default) reports the growth only.
// The full disk needs root (a size-limited tmpfs holds the world); the slow disk needs a C
// compiler (an LD_PRELOAD shim delays fsync). Without them those faults are reported skipped.
'use strict'

const fs = require('fs')
const os = require('os')
const net = require('net')
const path = require('path')
const zlib = require('zlib')
const { execFileSync } = require('child_process')
const nbt = require('prismarine-nbt')
const mineflayer = require('mineflayer')
const { Rcon } = require('rcon-client')
const { Server, logfmt, ROOT } = require('../load/server')
const { SAMPLED, mapParts, leakChecks } = require('./growth')
const { LeanClient, connectLean } = require('../load/lean-client')

const HORDE = process.env.HORDE_BIN || path.join(ROOT, 'target/release/horde')
const RCON_PASSWORD = 'soak'

function log (...args) {
  console.error(`[soak ${new Date().toISOString().slice(11, 19)}]`, ...args)
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// `promise`, or an error after `ms`: no step of a client may hold the soak up for good.
function bounded (promise, ms, what) {
  let timer
  const expired = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000} s`)), ms)
  })
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer))
}

function parseArgs () {
  const args = { out: null, minutes: 30, clients: 48, bots: 2, closeWithin: 10, tickGoalMs: 35, faultEvery: 15, kill: true, sampleEvery: 60, growthGoal: 0 }
  const argv = process.argv.slice(2)
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--out') args.out = argv[++i]
    else if (a === '--minutes') args.minutes = Number(argv[++i])
    else if (a === '--clients') args.clients = Number(argv[++i])
    else if (a === '--bots') args.bots = Number(argv[++i])
    else if (a === '--close-within') args.closeWithin = Number(argv[++i])
    else if (a === '--tick-goal-ms') args.tickGoalMs = Number(argv[++i])
    else if (a === '--fault-every') args.faultEvery = Number(argv[++i])
    else if (a === '--no-kill') args.kill = false
    else if (a === '--sample-every') args.sampleEvery = Number(argv[++i])
    else if (a === '--growth-goal') args.growthGoal = Number(argv[++i])
    else throw new Error(`unknown argument ${a}`)
  }
  if (!args.out) throw new Error('usage: run.js --out DIR [--minutes N] [--clients N] [--bots N] [--close-within S] [--tick-goal-ms MS] [--fault-every S] [--no-kill] [--sample-every S] [--growth-goal PCT]')
  return args
}

// What must hold: every check the soak makes, in order, with what it saw.
const checks = []
function record (what, ok, detail = '') {
  checks.push({ what, ok: Boolean(ok), detail: String(detail) })
  log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`)
}

// The folder the server lives in: a size-limited tmpfs when we may mount one, so a full disk
// can be made on demand.
function makeHome () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'horde-soak-'))
  const disk = path.join(dir, 'disk')
  fs.mkdirSync(disk)
  let mounted = false
  if (process.getuid && process.getuid() === 0) {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', disk], { stdio: 'ignore' })
      mounted = true
    } catch {}
  }
  let shim = null
  try {
    shim = path.join(dir, 'slow-fsync.so')
    execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', shim, path.join(__dirname, 'slow-fsync.c'), '-ldl'], { stdio: 'ignore' })
  } catch {
    shim = null
  }
  return { dir, disk, mounted, shim, flag: path.join(dir, 'slow-fsync') }
}

function freePort () {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = s.address().port
      s.close(() => resolve(port))
    })
  })
}

function configText (args, rconPort, mapPort, spawnInterval) {
  return `# Soak: the defaults but for these keys.
[server]
address = "127.0.0.1"
port = 0
online_mode = false
max_players = ${args.clients + args.bots + 20}
spawn_protection = 0

[time]
start_time = 13000

[save]
autosave_ticks = 200

[spawning]
interval_ticks = ${spawnInterval}

[rcon]
enabled = true
port = ${rconPort}
password = "${RCON_PASSWORD}"

[map]
enabled = true
port = ${mapPort}

[metrics]
enabled = false
`
}

// One life of the server, from start to stop or SIGKILL, with its tick recording.
async function startLife (home, configPath, world, lives, out) {
  const env = { ...process.env, SLOW_FSYNC_FLAG: home.flag, SLOW_FSYNC_THREAD: 'autosave' }
  if (home.shim) env.LD_PRELOAD = home.shim
  const server = new Server(HORDE, ['--config', configPath, '--world', world], `life ${lives.length + 1}`, { env })
  const life = { server, started: Date.now(), samples: [], faults: [], perfFile: null, number: lives.length + 1, out, first: lives.length ? lives[0].started : Date.now() }
  lives.push(life)
  life.port = await server.port()
  await server.until('the world loaded', () => /spawn point/.test(server.stderr))
  await server.command('perf start', 'recording=')
  life.perfStarted = Date.now()
  return life
}

// A fault's window on the life's clock, so ticks inside it are left out of the tick goal.
async function fault (life, name, body) {
  const window = { name, from: Date.now() }
  life.faults.push(window)
  try {
    await body()
  } catch (err) {
    record(name, false, err.message)
  } finally {
    window.to = Date.now()
  }
}

function autosaves (life) {
  return (life.server.stderr.match(/autosaved the world/g) || []).length
}

// The last "saved the world (...)" or "autosaved the world (...)" line: what the world save on
// disk holds.
function lastSave (stderr) {
  const all = [...stderr.matchAll(/saved the world \((\d+) packs \((\d+) members\), (\d+) loose zombies, (\d+) players/g)]
  const m = all[all.length - 1]
  return m && { packs: Number(m[1]), members: Number(m[2]), loose: Number(m[3]) }
}

function readSave (file) {
  const raw = fs.readFileSync(file)
  const data = raw[0] === 0x1f ? zlib.gunzipSync(raw) : raw
  return nbt.simplify(nbt.protos.big.parsePacketBuffer('nbt', data).data)
}

function packIds (world) {
  const file = path.join(world, 'data/horde_packs.dat')
  if (!fs.existsSync(file)) return []
  const save = readSave(file)
  // Longs come back as [high, low].
  const id = (v) => (Array.isArray(v) ? String((BigInt(v[0]) << 32n) | BigInt(v[1] >>> 0)) : String(v))
  return (save.Packs || []).map((p) => id(p.Id))
}

// Every chunk of every region file in the world, as a third-party reader loads it.
async function regionsRead (world) {
  const dir = path.join(world, 'region')
  const anvil = new (require('prismarine-provider-anvil').Anvil('1.20.1'))(dir)
  const read = { files: 0, chunks: 0, bad: [] }
  for (const file of fs.readdirSync(dir)) {
    const m = /^r\.(-?\d+)\.(-?\d+)\.mca$/.exec(file)
    if (!m) continue
    read.files++
    for (let i = 0; i < 1024; i++) {
      const [x, z] = [Number(m[1]) * 32 + (i % 32), Number(m[2]) * 32 + Math.floor(i / 32)]
      try {
        if (!(await anvil.loadRaw(x, z))) continue
        read.chunks++
        await anvil.load(x, z)
      } catch (err) {
        read.bad.push(`${x},${z}: ${err.message}`)
      }
    }
  }
  return read
}

// Every file of the world save horde writes (region/, entities/, data/, playerdata/), by path
// inside the world, with its bytes.
function filesOf (world) {
  const files = new Map()
  for (const dir of ['region', 'entities', 'data', 'playerdata']) {
    let names = []
    try { names = fs.readdirSync(path.join(world, dir)) } catch {}
    for (const name of names) files.set(`${dir}/${name}`, fs.readFileSync(path.join(world, dir, name)))
  }
  return files
}

function playerFiles (world) {
  const dir = path.join(world, 'playerdata')
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir).filter((f) => f.endsWith('.dat')).sort()
}

// Whether the server still holds open its side of the connection from local port `clientPort`
// (established, or closed by the client only), from the kernel's socket table.
function serverHolds (clientPort) {
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text
    try { text = fs.readFileSync(file, 'utf8') } catch { continue }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f.length < 4) continue
      const remote = parseInt(f[2].split(':').pop(), 16)
      if (remote === clientPort && (f[3] === '01' || f[3] === '08')) return true
    }
  }
  return false
}

// Garbage to a port: resolves with the seconds from connecting until the server closed the
// connection (Infinity if it never connected or was never closed).
function garbage (port, bytes, { silent = false } = {}) {
  return new Promise((resolve) => {
    let connected = null
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      connected = Date.now()
      if (!silent) socket.write(bytes)
    })
    socket.on('data', () => {})
    socket.on('error', () => {})
    socket.on('close', () => resolve(connected === null ? Infinity : (Date.now() - connected) / 1000))
    socket.setTimeout(120000, () => socket.destroy())
  })
}

function varint (n) {
  const out = []
  do {
    let b = n & 0x7f
    n >>>= 7
    if (n) b |= 0x80
    out.push(b)
  } while (n)
  return Buffer.from(out)
}

function handshake (port) {
  const host = Buffer.from('127.0.0.1')
  const body = Buffer.concat([varint(0), varint(763), varint(host.length), host, Buffer.from([port >> 8, port & 0xff]), varint(2)])
  return Buffer.concat([varint(body.length), body])
}

function rconPacket (id, type, text) {
  const body = Buffer.from(text + '\0\0', 'latin1')
  const head = Buffer.alloc(12)
  head.writeInt32LE(body.length + 8, 0)
  head.writeInt32LE(id, 4)
  head.writeInt32LE(type, 8)
  return Buffer.concat([head, body])
}

async function rcon (port) {
  const client = new Rcon({ host: '127.0.0.1', port, password: RCON_PASSWORD, timeout: 60000 })
  await client.connect()
  return client
}

// The players: lean clients that walk and travel, and mineflayer bots that dig and place.
class Crowd {
  constructor (args) {
    this.args = args
    this.lean = new Map()
    this.bots = new Map()
    this.port = null
    this.homes = new Map()
    this.errors = 0
    this.joins = 0
  }

  async join (name) {
    try {
      const client = await connectLean(this.port, name)
      client.on('error', () => {})
      client.on('end', () => { if (this.lean.get(name) === client) this.lean.delete(name) })
      this.lean.set(name, client)
      if (!this.homes.has(name)) this.homes.set(name, client.pos.slice())
      this.joins++
    } catch (err) {
      this.errors++
      log(`${name} could not join: ${err.message}`)
    }
  }

  async joinBot (name) {
    try {
      const bot = mineflayer.createBot({ host: '127.0.0.1', port: this.port, username: name, version: '1.20.1', auth: 'offline' })
      bot.on('error', () => {})
      bot.on('kicked', () => {})
      await bounded(new Promise((resolve, reject) => {
        bot.once('spawn', resolve)
        bot.once('end', () => reject(new Error('ended before spawning')))
      }), 60000, `${name}'s join`).catch((err) => { bot.end(); throw err })
      bot.on('end', () => { if (this.bots.get(name) === bot) this.bots.delete(name) })
      this.bots.set(name, bot)
      this.joins++
    } catch (err) {
      this.errors++
      log(`${name} could not join: ${err.message}`)
    }
  }

  async fill () {
    const wanted = []
    for (let i = 0; i < this.args.clients; i++) if (!this.lean.has(`soak${i}`)) wanted.push(this.join(`soak${i}`))
    for (let i = 0; i < this.args.bots; i++) if (!this.bots.has(`builder${i}`)) wanted.push(this.joinBot(`builder${i}`))
    await Promise.all(wanted)
  }

  // One step of walking for every lean client: a few blocks' wander around home.
  walk () {
    for (const [name, client] of this.lean) {
      if (!client.pos) continue
      const home = this.homes.get(name)
      const angle = Math.random() * 2 * Math.PI
      const to = [client.pos[0] + Math.cos(angle) * 0.3, client.pos[1], client.pos[2] + Math.sin(angle) * 0.3]
      if (Math.hypot(to[0] - home[0], to[2] - home[2]) < 24) client.moveTo(to)
    }
  }

  // A bot digs the block in front of it at its feet's level minus one, then puts dirt back.
  async build (console) {
    for (const [name, bot] of this.bots) {
      try {
        const below = bot.entity.position.offset(1, -1, 0).floored()
        const block = bot.blockAt(below)
        if (block && block.name !== 'air' && bot.canDigBlock(block)) await bounded(bot.dig(block, true), 10000, 'a dig')
        await console(`give ${name} dirt 1`)
        const item = bot.inventory.items().find((i) => i.name === 'dirt')
        const under = bot.blockAt(below.offset(0, -1, 0))
        if (item && under && under.name !== 'air') {
          await bounded(bot.equip(item, 'hand'), 10000, 'taking dirt in hand')
          await bounded(bot.placeBlock(under, below.minus(under.position)), 10000, 'placing dirt')
        }
      } catch {
        // The world moved under it (a death, a restart): the next round tries again.
        try { bot.stopDigging() } catch {}
      }
    }
  }

  names () {
    return [...this.lean.keys(), ...this.bots.keys()]
  }

  closeAll () {
    for (const client of this.lean.values()) client.end()
    for (const bot of this.bots.values()) bot.end()
    this.lean.clear()
    this.bots.clear()
  }
}

// The tick times of one life outside its fault windows (and the few seconds after each).
function ticksOutsideFaults (life, csv) {
  const ticks = []
  for (const line of csv.trim().split('\n').slice(1)) {
    const [second, ms] = line.split(',').map(Number)
    const at = life.perfStarted + second * 1000
    if (life.faults.some((f) => at >= f.from - 1000 && at <= (f.to || Infinity) + 3000)) continue
    ticks.push(ms)
  }
  return ticks.sort((a, b) => a - b)
}

function percentile (sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null
}

// What a leak would grow, read from the kernel and asked of the server and its map.
async function sample (life, mapPort) {
  const pid = life.server.child.pid
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const links = fs.readdirSync(`/proc/${pid}/fd`).map((fd) => { try { return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) } catch { return '' } })
  const ask = async (line, expect) => logfmt((await life.server.command(line, expect)).slice(-1)[0])
  const chunks = await ask('chunks', 'loaded=')
  const entities = await ask('entities', 'entities=')
  // The map's snapshot as a page reads it, and its event stream opened and dropped, as a page
  // that is closed.
  const state = await bounded(fetch(`http://127.0.0.1:${mapPort}/api/state`).then((r) => r.text()), 30000, 'the map\'s state')
  const events = new AbortController()
  await bounded(fetch(`http://127.0.0.1:${mapPort}/events`, { signal: events.signal })
    .then((r) => r.body.getReader().read()), 30000, 'the map\'s events').finally(() => events.abort())
  const row = {
    at: Date.now(),
    rssMb: Number(status.match(/VmRSS:\s+(\d+)/)[1]) / 1024,
    threads: Number(status.match(/Threads:\s+(\d+)/)[1]),
    fds: links.length,
    sockets: links.filter((l) => l.startsWith('socket:')).length,
    chunks: Number(chunks.loaded),
    entities: Number(entities.entities),
    players: Number(entities.players),
    zombies: Number(entities.zombies),
    items: Number(entities.items),
    orbs: Number(entities.orbs),
    entityLayers: Number(entities.entity_layers),
    mapStateBytes: state.length,
    ...mapParts(JSON.parse(state))
  }
  life.samples.push(row)
  // Kept as they come, so a run cut short still has its samples.
  const file = path.join(life.out, 'samples.csv')
  if (!fs.existsSync(file)) fs.writeFileSync(file, `life,minute,${SAMPLED.join(',')}\n`)
  fs.appendFileSync(file, `${life.number},${((row.at - life.first) / 60000).toFixed(2)},${SAMPLED.map((k) => row[k]).join(',')}\n`)
}

async function main () {
  const args = parseArgs()
  fs.mkdirSync(args.out, { recursive: true })
  fs.rmSync(path.join(args.out, 'samples.csv'), { force: true })
  const home = makeHome()
  const lives = []
  const crowd = new Crowd(args)
  const cleanUp = () => {
    crowd.closeAll()
    for (const l of lives) if (!l.server.done) l.server.child.kill('SIGKILL')
    if (home.mounted) try { execFileSync('umount', ['-l', home.disk]) } catch {}
    fs.rmSync(home.dir, { recursive: true, force: true })
  }
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => { cleanUp(); process.exit(1) })
  const world = path.join(home.disk, 'world')
  const configPath = path.join(home.dir, 'config.toml')
  // The slowest close of each kind of garbage, over every round.
  const closeTimes = {}
  const noteClose = (what, seconds) => { closeTimes[what] = Math.max(closeTimes[what] || 0, seconds) }
  let life
  let chunkChanges = 0
  try {
    fs.cpSync(path.join(ROOT, 'worlds/default'), world, { recursive: true })
    const rconPort = await freePort()
    const mapPort = await freePort()
    fs.writeFileSync(configPath, configText(args, rconPort, mapPort, 20))
    life = await startLife(home, configPath, world, lives, args.out)
    crowd.port = life.port
    let console = (line) => life.server.command(line, '')
    const consoleLast = async (line) => logfmt((await life.server.command(line, '')).slice(-1)[0])
    // A few blocks beside the first bot, other than last time: the next save writes a region.
    const changeAChunk = () => console(`fill ~2 ~ ~2 ~3 ~1 ~3 ${chunkChanges++ % 2 ? 'glass' : 'oak_planks'}`)
    await crowd.fill()
    log(`${crowd.names().length} players in`)

    const deadline = Date.now() + args.minutes * 60000
    const faults = [
      async function reloadValid () {
        fs.writeFileSync(configPath, configText(args, rconPort, mapPort, 10 + Math.floor(Math.random() * 20)))
        const answer = await consoleLast('reload')
        record('reload with a valid edit is applied', answer.reloaded === 'true', JSON.stringify(answer))
      },
      async function reloadInvalid () {
        const good = fs.readFileSync(configPath, 'utf8')
        fs.writeFileSync(configPath, good.replace('interval_ticks =', 'interval_ticks = "often" #'))
        const bad = await consoleLast('reload')
        fs.writeFileSync(configPath, good + '\n[spawning.nonsense\n')
        const broken = await consoleLast('reload')
        fs.writeFileSync(configPath, good)
        const alive = await consoleLast('time query')
        record('reload with an invalid edit is refused, in one line, and the server runs on',
          bad.reloaded === 'false' && broken.reloaded === 'false' && alive.daytime !== undefined,
          `${bad.error} | ${broken.error}`)
      },
      async function saveAll () {
        const saved = await consoleLast('save-all')
        record('save-all while players move', saved.saved === 'true', `packs=${saved.packs} members=${saved.members} loose=${saved.loose} players=${saved.players}`)
      },
      async function garbageMinecraft () {
        const port = life.port
        const oversized = Buffer.concat([varint(3 * 1024 * 1024), Buffer.alloc(1024, 7)])
        const cases = {
          'random bytes': garbage(port, require('crypto').randomBytes(4096)),
          'truncated handshake': garbage(port, handshake(port).subarray(0, 6)),
          'oversized packet': garbage(port, oversized),
          'silent after handshake': garbage(port, handshake(port)),
          'nothing at all': garbage(port, Buffer.alloc(0), { silent: true }),
          'legacy ping garbage': garbage(port, Buffer.from([0xfe, 0x01, 0xfa, 0xff, 0xff, 0xff]))
        }
        for (const [what, closed] of Object.entries(cases)) noteClose(`minecraft: ${what}`, await closed)
      },
      async function garbageRcon () {
        const cases = {
          'random bytes': garbage(rconPort, require('crypto').randomBytes(4096)),
          'truncated packet': garbage(rconPort, rconPacket(1, 3, RCON_PASSWORD).subarray(0, 7)),
          'oversized length': garbage(rconPort, Buffer.from([0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4])),
          'nothing at all': garbage(rconPort, Buffer.alloc(0), { silent: true })
        }
        for (const [what, closed] of Object.entries(cases)) noteClose(`rcon: ${what}`, await closed)
      },
      async function rconFlood () {
        const clients = await Promise.all(Array.from({ length: 20 }, () => rcon(rconPort).catch(() => null)))
        const live = clients.filter(Boolean)
        const answers = await Promise.all(live.flatMap((c) => Array.from({ length: 10 }, () => c.send('list').catch(() => ''))))
        await Promise.all(live.map((c) => c.end().catch(() => {})))
        const alive = await consoleLast('time query')
        record('an RCON flood is answered or refused, and the server runs on',
          answers.filter((a) => a.startsWith('players=')).length > 0 && alive.daytime !== undefined,
          `${live.length} of 20 connections, ${answers.filter(Boolean).length} answers`)
      },
      async function neverReads () {
        // It cannot see the server hang up without reading: the server's side of the
        // connection is watched instead.
        const client = new LeanClient({ host: '127.0.0.1', port: life.port, username: 'deaf' })
        client.on('error', () => {})
        const spawned = await new Promise((resolve) => {
          client.once('spawn', () => resolve(true))
          client.once('end', () => resolve(false))
          setTimeout(() => resolve(false), 60000)
        })
        if (!spawned) {
          client.end()
          return record('a client that never reads joins first', false, 'it never spawned')
        }
        client.socket.pause()
        const started = Date.now()
        const local = client.socket.localPort
        while (serverHolds(local) && Date.now() - started < 120000) await sleep(250)
        noteClose('minecraft: a client that never reads', serverHolds(local) ? Infinity : (Date.now() - started) / 1000)
        client.end()
      },
      async function fullDisk () {
        if (!home.mounted) return record('full disk during a save', true, 'skipped: mounting a size-limited tmpfs needs root')
        // No autosave from here on (the one under way written first): one that failed on the
        // full disk would free the space its temp files took, or change files after they are
        // read.
        const off = await consoleLast('save-off')
        const fillUp = (name) => {
          try {
            execFileSync('dd', ['if=/dev/zero', `of=${path.join(home.disk, name)}`, 'bs=64k', 'count=2048'], { stdio: 'ignore' })
          } catch {}
        }
        fillUp('filler')
        // Read once the disk is full. A changed chunk makes the save write a region file too;
        // the disk is topped up after it, in case anything was let go in between.
        const before = filesOf(world)
        await changeAChunk()
        fillUp('filler2')
        const answer = await life.server.command('save-all', '')
        const line = answer.slice(-1)[0]
        const after = filesOf(world)
        const changed = [...before.keys()].filter((f) => !after.has(f) || !before.get(f).equals(after.get(f)))
        const left = [...after.keys()].filter((f) => !before.has(f))
        let unreadable = 0
        for (const f of after.keys()) if (f.endsWith('.dat')) { try { readSave(path.join(world, f)) } catch { unreadable++ } }
        const regions = await regionsRead(world)
        for (const name of ['filler', 'filler2']) fs.rmSync(path.join(home.disk, name), { force: true })
        const again = await consoleLast('save-all')
        const on = await consoleLast('save-on')
        const kept = Number((line.match(/(\d+) changed chunks kept for the next save/) || [])[1])
        record('a full disk fails the save with a clear line and leaves every file as it was',
          /saved=false/.test(line) && /space/i.test(line) && kept > 0 && /players' files not written/.test(line) &&
            changed.length === 0 && left.length === 0 && unreadable === 0 && regions.bad.length === 0,
          `${line.slice(0, 400)}; ${changed.length} files changed, ${left.length} left behind, ${unreadable} unreadable, ${regions.bad.length} chunks unreadable`)
        record('once space is back the next save writes what the full disk refused',
          again.saved === 'true' && Number(again.chunks) >= kept && Number(again.players) > 0 &&
            off.autosave === 'off' && on.autosave === 'on',
          `${JSON.stringify(again)}: ${kept} chunks had been kept; autosave ${off.autosave} then ${on.autosave}`)
      },
      async function slowDisk () {
        if (!home.shim) return record('an autosave completes on a slow disk', true, 'skipped: no C compiler for the fsync shim')
        fs.rmSync(`${home.flag}.entered`, { force: true })
        fs.writeFileSync(home.flag, '200')
        const saves = autosaves(life)
        await life.server.until('an autosave on the slow disk', () => autosaves(life) > saves + 1)
        const stalled = fs.existsSync(`${home.flag}.entered`)
        fs.rmSync(home.flag, { force: true })
        life.slowWindow = life.faults[life.faults.length - 1]
        record('an autosave completes on a slow disk', stalled, stalled ? '200 ms per fsync' : 'no fsync was slowed')
      },
      async function killMidAutosave () {
        if (!args.kill) return
        if (!home.shim) return record('SIGKILL in the middle of an autosave', true, 'skipped: no C compiler to hold an autosave open')
        // Armed just after an autosave ends, so the next one is the one caught; a changed chunk
        // makes its first write (and first held fsync) a region file's.
        await finishLife(life)
        const saves = autosaves(life)
        await life.server.until('an autosave', () => autosaves(life) > saves)
        await changeAChunk()
        fs.rmSync(`${home.flag}.entered`, { force: true })
        fs.writeFileSync(home.flag, '3000')
        await life.server.until('an autosave under way', () => fs.existsSync(`${home.flag}.entered`))
        const saved = lastSave(life.server.stderr)
        const ids = packIds(world)
        const players = playerFiles(world)
        life.server.child.kill('SIGKILL')
        await life.server.exited
        fs.rmSync(home.flag, { force: true })
        const midWrite = fs.readdirSync(path.join(world, 'region')).filter((f) => f.endsWith('.tmp'))
        crowd.closeAll()
        life = await startLife(home, configPath, world, lives, args.out)
        crowd.port = life.port
        const loaded = life.server.stderr.match(/loaded (\d+) packs \((\d+) members\) and (\d+) loose zombies/)
        const got = loaded && { packs: Number(loaded[1]), members: Number(loaded[2]), loose: Number(loaded[3]) }
        record('after SIGKILL mid-autosave the population is what the last completed save held',
          saved && got && saved.packs === got.packs && saved.members === got.members && saved.loose === got.loose,
          `saved ${JSON.stringify(saved)} loaded ${JSON.stringify(got)}`)
        const report = await life.server.command('packs', 'packs=')
        const counters = logfmt(report[report.length - 1])
        const live = new Set(report.map((l) => (l.match(/^id=(\d+)/) || [])[1]).filter(Boolean))
        const missing = ids.filter((id) => !live.has(id))
        record('every saved pack id is back', missing.length <= (counters.merged || 0) + (counters.dissolved || 0),
          `${ids.length} saved, missing ${missing.length} (merged ${counters.merged}, dissolved ${counters.dissolved} since)`)
        const regions = await regionsRead(world)
        record('after SIGKILL mid-autosave every region file reads whole (prismarine-provider-anvil)',
          regions.files > 0 && regions.bad.length === 0,
          `${regions.chunks} chunks in ${regions.files} files, unreadable: ${regions.bad.join(' ') || 'none'}; killed while writing ${midWrite.join(' ') || 'no region file'}`)
        const after = playerFiles(world)
        const lost = players.filter((f) => !after.includes(f))
        let unreadable = 0
        for (const f of after) { try { readSave(path.join(world, 'playerdata', f)) } catch { unreadable++ } }
        record('no player\'s saved data is lost', lost.length === 0 && unreadable === 0, `${players.length} files before, ${lost.length} lost, ${unreadable} unreadable`)
        await crowd.fill()
      }
    ]

    let round = 0
    let next = 0
    let last = 0
    let lastFault = Date.now()
    let lastSample = 0
    for (;;) {
      const now = Date.now()
      if (now >= deadline && next === 0 && round > 0) break
      // Between faults: walking, churn, deaths, travel, hunts and building.
      crowd.walk()
      if (now - last > 4000) {
        last = now
        const names = crowd.names()
        const pick = names[Math.floor(Math.random() * names.length)]
        const roll = Math.random()
        if (roll < 0.3 && pick && crowd.lean.has(pick)) {
          crowd.lean.get(pick).end()
          setTimeout(() => crowd.join(pick), 2000)
        } else if (roll < 0.5 && pick) {
          await console(`kill ${pick}`)
        } else if (roll < 0.7 && pick && crowd.lean.has(pick)) {
          // A trip out of sight and back: its crowd turns to ghosts and returns.
          await console(`tp ${pick} ~600 ~ ~`)
          setTimeout(() => console(`tp ${pick} ~-600 ~ ~`).catch(() => {}), 15000)
        } else if (roll < 0.8) {
          await console(Math.random() < 0.5 ? 'hunt start colosseum' : 'hunt stop')
        } else {
          await crowd.build(console)
        }
        await crowd.fill()
      }
      if (Date.now() - lastSample >= args.sampleEvery * 1000) {
        lastSample = Date.now()
        await sample(life, mapPort).catch((err) => record('a sample of the server', false, err.message))
      }
      if (Date.now() - lastFault > args.faultEvery * 1000) {
        const body = faults[next]
        log(`fault: ${body.name}`)
        await fault(life, body.name, body)
        console = (line) => life.server.command(line, '')
        next = (next + 1) % faults.length
        if (next === 0) round++
        lastFault = Date.now()
      }
      await sleep(50)
    }
    await finishLife(life)
    await life.server.stop()
  } finally {
    cleanUp()
  }

  // Across every life.
  const panics = lives.filter((l) => /panicked/.test(l.server.stderr))
  record('no panic', panics.length === 0, panics.map((l) => l.server.stderr.match(/.*panicked.*/)[0]).join(' | '))
  for (const [what, s] of Object.entries(closeTimes)) {
    // A client that never reads cannot be told apart from a slow one until it misses its
    // keep-alives; vanilla gives up on a silent client after 30 seconds.
    const within = /never reads/.test(what) ? Math.max(30, args.closeWithin) : args.closeWithin
    record(`garbage closed (${what})`, s <= within, `${s.toFixed(1)} s (bound ${within} s)`)
  }
  const ticks = lives.flatMap((l) => l.ticks || []).sort((a, b) => a - b)
  const p99 = percentile(ticks, 0.99)
  record('tick p99 outside the faults', args.tickGoalMs === 0 || (p99 !== null && p99 < args.tickGoalMs),
    `${p99 === null ? '-' : p99.toFixed(1)} ms over ${ticks.length} ticks (goal ${args.tickGoalMs || 'not checked'})`)
  const slow = lives.flatMap((l) => l.slowTicks || []).sort((a, b) => a - b)
  if (slow.length) {
    const max = slow[slow.length - 1]
    record('the tick during the slow autosave', args.tickGoalMs === 0 || max < 250, `max ${max.toFixed(1)} ms over ${slow.length} ticks`)
  }
  const longest = lives.reduce((a, l) => (l.samples.length > a.samples.length ? l : a), lives[0])
  const { growths, checks: leaks } = leakChecks(longest.samples, args.growthGoal)
  if (args.growthGoal > 0) for (const c of leaks) record(c.what, c.ok, c.detail)
  const slope = growths.rssMb ? growths.rssMb.perHour : null
  const rss = longest.samples.map((s) => s.rssMb)
  const summary = {
    minutes: args.minutes,
    clients: args.clients,
    bots: args.bots,
    lives: lives.length,
    joins: crowd.joins,
    joinErrors: crowd.errors,
    rssMb: rss.length ? { first: rss[0], last: rss[rss.length - 1], max: Math.max(...rss) } : null,
    rssGrowthMbPerHour: slope,
    growthAfterWarmUp: growths,
    checks
  }
  fs.writeFileSync(path.join(args.out, 'soak.json'), JSON.stringify(summary, null, 1))
  console.log(`| check | result | detail |\n|---|---|---|\n${checks.map((c) => `| ${c.what} | ${c.ok ? 'ok' : '**FAIL**'} | ${c.detail.replace(/\|/g, '/')} |`).join('\n')}`)
  console.log(`\n${lives.length} lives, ${crowd.joins} joins (${crowd.errors} failed); RSS ${summary.rssMb && `${summary.rssMb.first.toFixed(0)} → ${summary.rssMb.last.toFixed(0)} MB (max ${summary.rssMb.max.toFixed(0)})`}, growth after warm-up ${slope === null ? '-' : slope.toFixed(1)} MB/hour`)
  if (checks.some((c) => !c.ok)) process.exit(1)
}

// Ends a life's tick recording and keeps its ticks outside the faults.
async function finishLife (life) {
  const stop = logfmt((await life.server.command('perf stop', 'ticks=')).slice(-1)[0])
  if (!stop.file) return
  const csv = fs.readFileSync(stop.file, 'utf8')
  life.ticks = ticksOutsideFaults(life, csv)
  if (life.slowWindow) {
    const w = life.slowWindow
    life.slowTicks = csv.trim().split('\n').slice(1).map((l) => l.split(',').map(Number))
      .filter(([second]) => {
        const at = life.perfStarted + second * 1000
        return at >= w.from && at <= w.to
      }).map(([, ms]) => ms)
  }
}

main().catch((err) => {
  log(err.stack || String(err))
  process.exit(1)
})

// The load harness: starts the real server, connects many lean protocol clients and a few full
// mineflayer bots over TCP, lets zombies spawn to the scenario's count, then records every tick
// while the players walk and run on the ground and teleport away and back (chunks unload,
// packs turn to ghosts and return), and every 2 s each player makes a noise where it is (as
// loud as a dug block, heard 24 blocks off: the zombies around listen, some go to look, and
// the heat map warms; --quiet leaves it out; --query-flood N floods the query port with N
// packets a second). In the scenarios where the crowd plays, players also stand and fight
// with swords, dig and place, hide in shelters the zombies besiege (rebuilt every 30 s), and
// die and respawn. Each scenario is run again on the floor (examples/floor.rs: the same
// clients doing the same, as many zombies moved every tick with no AI), so each figure is
// also a ratio to Valence's cost. A run whose players or crowd never formed is refused.
//
// node scripts/load/run.js --out DIR [--only NAME] [--seconds N] [--profile] [--quiet]
//   [--query-flood N]
// Writes DIR/NAME.json per run and DIR/results.json (with the machine's cores and the commit);
// prints a summary table. HORDE_BIN and HORDE_FLOOR_BIN name the binaries when they are not
// under target/release.
'use strict'

const dgram = require('dgram')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawn, execFileSync } = require('child_process')
const { connectLean, BANDS } = require('./lean-client')
const { Terrain } = require('./terrain')
const { Server, logfmt, track, ROOT } = require('./server')
const HOST = '127.0.0.1'
// The clients share the server's cores only because this machine has no others. As root the
// server (horde or the floor alike) runs at nice -10, so that a burst of the clients' parsing
// waits for the tick rather than the tick for it, as with players on their own machines;
// otherwise it runs at the clients' priority and the run says so. Results record which.
const SERVER_NICE = process.getuid?.() === 0 ? -10 : 0
function prioritised (binary, args) {
  return SERVER_NICE ? ['nice', ['-n', String(SERVER_NICE), binary, ...args]] : [binary, args]
}
// Where the figures were measured: the machine's cores and the commit built (dirty if the
// working tree differed from it).
const MACHINE = (() => {
  const git = (...a) => {
    try {
      return execFileSync('git', ['-C', ROOT, ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    } catch {
      return null
    }
  }
  const status = git('status', '--porcelain', '--untracked-files=no')
  return { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? null, commit: git('rev-parse', 'HEAD'), dirty: status === null ? null : status !== '', serverNice: SERVER_NICE }
})()
// The tick's phases a recording times apart (src/metrics/phases.rs).
const PHASES = ['world', 'players', 'zombies', 'layers', 'clients', 'flush']
const BAND_NAMES = [...BANDS.map((b) => `<${b}`), `>=${BANDS[BANDS.length - 1]}`]
const SCENARIOS = [
  { name: '10-bots-1k', bots: 10, zombies: 1000, travellers: 0.2 },
  { name: '50-bots-5k', bots: 50, zombies: 5000, travellers: 0.2 },
  { name: '20-bots-10k', bots: 20, zombies: 10000, travellers: 0.5 },
  // #39: a server's full crowd, playing (see ROLES).
  { name: '100-players-10k', bots: 100, zombies: 10000, travellers: 0.2, plays: true },
  // #39: most of 50,000 zombies far from the 20 players, in packs that march and ghost: the
  // crowd is raised in `rounds` places in turn, the players moving on and leaving each
  // round's zombies behind. The floor cannot hold ghosts: horde alone.
  { name: '20-players-50k', bots: 20, zombies: 50000, travellers: 0.5, rounds: 5, noFloor: true },
  // The test suite's check that the harness works; run only when named.
  // Homes close together: every client is within tracking range of every crowd, whichever
  // home the spawner found dry ground at.
  { name: 'smoke', bots: 3, zombies: 60, travellers: 0.4, spacing: 48, onlyByName: true, plays: true }
]
// What each lean client does where the crowd plays, by its index modulo 20: a fifth stand
// and fight, three in twenty dig and place, one hides in a shelter, the rest walk and run.
const ROLES = ['fighter', 'walker', 'digger', 'walker', 'fighter', 'walker', 'digger', 'walker',
  'fighter', 'walker', 'digger', 'walker', 'fighter', 'walker', 'sheltered', 'walker', 'walker',
  'walker', 'walker', 'walker']
// An iron sword's cooldown (attack speed 1.6 a second: minecraft.wiki, Iron Sword) and a
// zombie's reach from the player's feet.
const SWORD_TICKS = 13
const REACH = 3
// A digger's round, in ticks: place dirt, then dig it (0.75 s by hand, minecraft.wiki, Dirt),
// then wait.
const DIG_TICKS = 20
const DIG_ROUND = 40
const SHELTER_REBUILD_S = 30
// Blocks apart the rounds of a raised crowd are.
const ROUND_SPACING = 1024
// The binaries, built by `cargo build --release --bin horde --example floor` (or given).
const HORDE = process.env.HORDE_BIN || path.join(ROOT, 'target/release/horde')
const FLOOR = process.env.HORDE_FLOOR_BIN || path.join(ROOT, 'target/release/examples/floor')
// Full mineflayer bots in each scenario, checking what a real client sees.
const WATCHERS = 2
const HOME_SPACING = 192
const WALK = 4.317 / 20
const SPRINT = 5.612 / 20

function log (...args) {
  console.error(`[load ${new Date().toISOString().slice(11, 19)}]`, ...args)
}

function sleep (ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function parseArgs () {
  const args = { out: null, only: null, seconds: 120, profile: false, map: 'idle', floor: true, noise: true, queryFlood: 0 }
  const argv = process.argv.slice(2)
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--out') args.out = argv[++i]
    else if (a === '--only') args.only = argv[++i]
    else if (a === '--seconds') args.seconds = Number(argv[++i])
    else if (a === '--profile') args.profile = true
    else if (a === '--map') args.map = argv[++i]
    else if (a === '--no-floor') args.floor = false
    else if (a === '--quiet') args.noise = false
    else if (a === '--query-flood') args.queryFlood = Number(argv[++i])
    else throw new Error(`unknown argument ${a}`)
  }
  if (!args.out || !['off', 'idle', 'browser'].includes(args.map)) {
    throw new Error('usage: run.js --out DIR [--only NAME] [--seconds N] [--profile] [--map off|idle|browser] [--no-floor] [--quiet] [--query-flood PACKETS_PER_S]')
  }
  return args
}

// `perPlayer`: the cap on zombies (and ghosts) a player.
function writeConfig (dir, scenario, spawning, map, query, perPlayer) {
  const file = path.join(dir, 'config.toml')
  fs.writeFileSync(file, `# Load harness: the shipped defaults but for these keys.
[server]
address = "${HOST}"
port = 0
online_mode = false
max_players = ${scenario.bots + 10}

[time]
# Night: zombies spawn, and stay out of the sun for the whole run.
start_time = 13500

[chunks]
report_interval_ticks = 72000

# Where the crowd does not play, the bots neither fight back nor flee: blows that do no harm
# keep them from dying every few seconds (a respawn resends everything in view). Where it
# plays, blows do a third of vanilla's 3: those who stand in a crowd die now and then.
[[zombies.types]]
name = "zombie"
health = 20.0
speed = 2.3
damage = ${scenario.plays ? '1.0' : '0.0'}
reach = 2.0
rarity = 100

[hunt]
presets = []

[spawning]
# Off until every player is home; then the count fills fast, bounded by the cap per player.
enabled = ${spawning}
interval_ticks = 1
group_size = 64
mob_cap_per_player = ${perPlayer}

[map]
# --map off|idle|browser: served (on a free port) unless off.
enabled = ${map !== 'off'}
port = 0

[metrics]
enabled = false

[query]
# --query-flood: answered on a free port, and flooded.
enabled = ${query}
port = 0
`)
  return file
}

// Where each bot lives: a grid around the spawn, far enough apart that each has its own crowd.
function homes (count, spawn, spacing = HOME_SPACING) {
  const columns = Math.ceil(Math.sqrt(count))
  return Array.from({ length: count }, (_, i) => {
    const col = i % columns
    const row = Math.floor(i / columns)
    return [spawn[0] + (col - (columns - 1) / 2) * spacing, spawn[1], spawn[2] + (row - (columns - 1) / 2) * spacing]
  })
}

// A seeded walk on the ground: stretches of walking and sprinting in a new direction, pauses,
// and a turn back towards home when 48 blocks out. A step up of more than a block (a wall, a
// tree) or into water turns the walker, as it would a player; down it steps or drops.
class Walker {
  constructor (index) {
    this.seed = index * 2654435761 % 4294967296 || 1
    this.leg = 0
    this.heading = 0
    this.speed = 0
  }

  random () {
    this.seed ^= this.seed << 13; this.seed >>>= 0
    this.seed ^= this.seed >>> 17
    this.seed ^= this.seed << 5; this.seed >>>= 0
    return this.seed / 4294967296
  }

  step (pos, home, terrain) {
    if (this.leg-- <= 0) {
      const r = this.random()
      this.speed = r < 0.2 ? 0 : r < 0.7 ? WALK : SPRINT
      this.leg = 40 + Math.floor(this.random() * 160)
      const away = Math.hypot(pos[0] - home[0], pos[2] - home[2])
      this.heading = away > 48
        ? Math.atan2(home[2] - pos[2], home[0] - pos[0])
        : this.random() * 2 * Math.PI
    }
    const next = [pos[0] + Math.cos(this.heading) * this.speed, pos[1], pos[2] + Math.sin(this.heading) * this.speed]
    const here = terrain.ground(pos[0], pos[2])
    const there = terrain.ground(next[0], next[2])
    if (!there) return here ? [pos[0], here.y, pos[2]] : pos
    if (here && (there.y - here.y > 1 || (there.liquid && !here.liquid))) {
      this.leg = 0
      return [pos[0], here.y, pos[2]]
    }
    next[1] = there.y
    return next
  }
}

// A place on the ground at (x, z), the block's centre; `y` as given while its chunk is unread.
function grounded (terrain, [x, y, z]) {
  const g = terrain.ground(x, z)
  return [Math.floor(x) + 0.5, g ? g.y : y, Math.floor(z) + 0.5]
}

// The full mineflayer bots run in their own process so their parsing does not stall the lean
// clients' keep-alives; they report what they see as JSON lines.
function startWatchers (port, names) {
  const child = track(spawn(process.execPath, [path.join(__dirname, 'watchers.js'), String(port), ...names],
    { stdio: ['ignore', 'pipe', 'inherit'] }))
  const watchers = { child, reports: {}, ready: null }
  let out = ''
  watchers.ready = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d
      let nl
      while ((nl = out.indexOf('\n')) >= 0) {
        const msg = JSON.parse(out.slice(0, nl))
        out = out.slice(nl + 1)
        if (msg.ready) resolve()
        if (msg.error) reject(new Error(msg.error))
        if (msg.name) (watchers.reports[msg.name] ||= []).push(msg)
      }
    })
    child.on('exit', (code) => code && reject(new Error(`watchers exited with ${code}`)))
  })
  return watchers
}

// Waits for `test` (which may ask the server) to hold, asked every `every` ms for at most
// `ms`; if it never does, the run is refused, naming `what()`: what was awaited and how far
// it got.
async function until (what, test, ms = 120000, every = 200) {
  const deadline = Date.now() + ms
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`refused: ${what()} never came`)
    await sleep(every)
  }
}

// Zombies on horde: the materialised and the ghost pack members.
async function crowdSize (server) {
  const zombies = await server.last('zombies', 'total=')
  const packs = await server.last('packs', 'packs=')
  return zombies.total + packs.ghost_members
}

function statsOf (clients) {
  return clients.map((c) => ({ ...c.stats, zombieKinds: { ...c.stats.zombieKinds }, zombieBands: { ...c.stats.zombieBands } }))
}

// --query-flood: `perSecond` query packets a second at the server's query port, a mix of
// handshakes, stat requests with made-up tokens and junk, as a flood would send them. Returns
// a handle whose stop() gives the packets sent.
function startQueryFlood (port, perSecond) {
  const socket = dgram.createSocket('udp4')
  const packets = [
    Buffer.from([0xfe, 0xfd, 9, 0, 0, 0, 1]),
    Buffer.from([0xfe, 0xfd, 0, 0, 0, 0, 1, 1, 2, 3, 4]),
    Buffer.from([0xfe, 0xfd, 0, 0, 0, 0, 1, 1, 2, 3, 4, 0, 0, 0, 0]),
    Buffer.from('junk junk junk')
  ]
  let sent = 0
  // Every 50 ms, a twentieth of the second's packets.
  const timer = setInterval(() => {
    for (let i = 0; i < perSecond / 20; i++) socket.send(packets[sent++ % packets.length], port, HOST)
  }, 50)
  return { stop () { clearInterval(timer); socket.close(); return sent } }
}

// Runs one scenario on one server (`floor` or horde) and returns its figures. A run whose
// players or crowd never formed, or that lost a player, is refused (it throws). `deaths` (the
// horde run's, [second, client] from the recording's start) are dealt again on the floor by
// `kill`, so that the floor's players die and respawn as often and when horde's did.
async function runOnce (scenario, floor, args, outDir, deaths = []) {
  const label = `${scenario.name}${floor ? ' floor' : ''}`
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'horde-load-'))
  const world = path.join(dir, 'world')
  fs.cpSync(path.join(ROOT, 'worlds/default'), world, { recursive: true })
  const rounds = scenario.rounds || 1
  const perPlayer = Math.round(scenario.zombies / scenario.bots)
  const capAt = (round) => Math.round(perPlayer * (round + 1) / rounds)
  const query = args.queryFlood > 0
  const config = writeConfig(dir, scenario, false, args.map, query, capAt(0))
  const binary = floor ? FLOOR : HORDE
  const serverArgs = ['--config', config, '--world', world, ...(floor ? ['--per-player', String(perPlayer)] : [])]
  log(`${label}: starting ${binary}${SERVER_NICE ? ` at nice ${SERVER_NICE}` : ' at the clients\' priority (not root)'}`)
  const server = new Server(...prioritised(binary, serverArgs), label)
  const port = await server.port()
  const rssAtStart = server.rss()

  // Lean clients, then the watchers.
  const terrain = new Terrain()
  const leanCount = scenario.bots - WATCHERS
  const clients = []
  const lost = []
  for (let i = 0; i < leanCount; i++) {
    const client = await connectLean(port, `lean${i}`, terrain)
    client.once('end', () => lost.push(client.username))
    clients.push(client)
    await sleep(50)
  }
  const watcherNames = Array.from({ length: WATCHERS }, (_, i) => `full${i}`)
  const watchers = startWatchers(port, watcherNames)
  await watchers.ready
  const names = [...clients.map((c) => c.username), ...watcherNames]
  const roles = clients.map((_, i) => (scenario.plays ? ROLES[i % ROLES.length] : 'walker'))
  const fmt = (p) => p.map((v) => v.toFixed(2)).join(' ')
  const tp = (name, at) => server.command(`tp ${name} ${fmt(at)}`, 'teleported=')
  // The mineflayer bots live a few blocks from the first lean clients, whose views bring the
  // chunks their ground is read from.
  const leanHomes = homes(clients.length, clients[0].pos, scenario.spacing)
  const baseHomes = [...leanHomes, ...watcherNames.map((_, w) => {
    const [x, y, z] = leanHomes[w % leanHomes.length]
    return [x + 6, y, z + 6]
  })]
  const home = baseHomes.map((h) => h.slice())
  // Where each lean client walks about: its home, or where it was sent.
  const homeOf = clients.map((_, i) => home[i])

  // Everyone home (`shift` blocks east of the first homes), on the ground once its chunk came.
  const sendHome = async (shift) => {
    for (const [i, h] of baseHomes.entries()) home[i] = [h[0] + shift, h[1], h[2]]
    terrain.anchors = home.slice()
    for (const [i, name] of names.entries()) await tp(name, home[i])
    const unread = () => names.filter((_, i) => !terrain.ground(home[i][0], home[i][2]))
    await until(() => `${label}: the ground under the homes of ${unread().join(', ')}`, () => unread().length === 0)
    for (const [i, name] of names.entries()) {
      home[i] = grounded(terrain, home[i])
      if (i < clients.length) homeOf[i] = home[i]
      await tp(name, home[i])
    }
  }
  await sendHome(0)

  // Each player's part: a sword for those who fight, dirt for those who dig, a shelter around
  // those who hide. Given again after a death (the inventory drops where they died).
  const equip = async (i) => {
    if (roles[i] === 'fighter') await server.command(`give ${names[i]} iron_sword 1`, 'given=')
    if (roles[i] === 'digger') await server.command(`give ${names[i]} dirt 64`, 'given=')
  }
  // A cobblestone box round the player's feet and head, its inside cleared.
  const shelter = async (i) => {
    const [x, y, z] = home[i].map(Math.floor)
    for (const [from, to, block] of [[[x - 1, y - 1, z - 1], [x + 1, y + 2, z + 1], 'cobblestone'], [[x, y, z], [x, y + 1, z], 'air']]) {
      server.child.stdin.write(`fill ${from.join(' ')} ${to.join(' ')} ${block}\n`)
    }
  }
  for (const i of clients.keys()) {
    await equip(i)
    if (roles[i] === 'sheltered') await shelter(i)
  }
  let t0 = null
  const deathLog = []
  for (const [i, c] of clients.entries()) {
    c.on('death', () => {
      if (t0 !== null) deathLog.push([(Date.now() - t0) / 1000, i])
      setTimeout(() => tp(c.username, homeOf[i]).then(() => equip(i)).catch(() => {}), 1000)
    })
  }

  // Every tick each lean client does its part: walkers (and anyone sent away) walk, fighters
  // stand and swing at the nearest zombie within reach, diggers place dirt beside them and
  // dig it out, the sheltered stay put.
  const walkers = clients.map((_, i) => new Walker(i + 1))
  const acts = { blows: 0, placed: 0, dug: 0 }
  const away = new Set()
  let tick = 0
  const mover = setInterval(() => {
    tick++
    for (const [i, c] of clients.entries()) {
      if (!c.pos) continue
      const role = away.has(i) ? 'walker' : roles[i]
      if (role === 'walker') {
        c.moveTo(walkers[i].step(c.pos, homeOf[i], terrain))
        continue
      }
      c.moveTo(c.pos)
      if (role === 'fighter' && (tick + i) % SWORD_TICKS === 0) {
        const target = c.nearestZombie(REACH)
        if (target) {
          c.attack(target[0])
          acts.blows++
        }
      } else if (role === 'digger') {
        const step = (tick + 7 * i) % DIG_ROUND
        if (step === 0) {
          const [x, , z] = c.pos.map(Math.floor)
          const g = terrain.ground(x + 1.5, z + 0.5)
          c.digAt = g && !g.liquid ? [x + 1, g.y, z] : null
          if (c.digAt) {
            c.placeOnTop([x + 1, g.y - 1, z])
            acts.placed++
          }
        } else if (c.digAt && step === 2) {
          c.dig(0, c.digAt)
        } else if (c.digAt && step === 2 + DIG_TICKS) {
          c.dig(2, c.digAt)
          acts.dug++
        }
      }
    }
  }, 50)

  // Now the crowd: horde spawns it naturally once spawning is on, the floor on `crowd`. A
  // crowd raised in rounds moves everyone on between them.
  const populateStart = Date.now()
  const rssBeforeCrowd = server.rss()
  if (floor) {
    await server.command('crowd', 'crowd=')
  } else {
    for (let round = 0; round < rounds; round++) {
      if (round > 0) await sendHome(round * ROUND_SPACING)
      writeConfig(dir, scenario, true, args.map, query, capAt(round))
      await server.command('reload', 'reloaded=')
      const target = Math.round(capAt(round) * names.length * 0.95)
      let total = 0
      await until(() => `${label}: the crowd (${total} of ${target} zombies after 180 s)`,
        async () => (total = await crowdSize(server)) >= target, 180000, 1000)
      if (rounds > 1) log(`${label}: round ${round + 1} of ${rounds}: ${total} zombies`)
    }
  }
  if (rounds > 1) {
    // The earlier rounds' zombies, out of everyone's sight, become ghost packs.
    const ghosts = Math.round(scenario.zombies * (rounds - 1) / rounds * 0.9)
    let members = 0
    await until(() => `${label}: the packs left behind as ghosts (${members} of ${ghosts} members after 480 s)`,
      async () => (members = (await server.last('packs', 'packs=')).ghost_members) >= ghosts, 480000, 2000)
    log(`${label}: the earlier rounds' packs are ghosts`)
  }
  if (lost.length) throw new Error(`${label}: refused, players lost before the recording: ${lost.join(', ')}`)
  const rssWithCrowd = server.rss()
  const crowdAtStart = floor ? scenario.zombies : await crowdSize(server)
  log(`${label}: ${names.length} players online, crowd of ${crowdAtStart} ready after ${((Date.now() - populateStart) / 1000).toFixed(0)} s; recording ${args.seconds} s`)
  let lastShelter = Date.now()

  // The measured window, with a browser on the live map if asked.
  const browser = args.map === 'browser' ? await openMap(server.mapUrl()) : null
  const perf = args.profile && !floor ? startProfile(server.child.pid, outDir, scenario.name) : null
  const flooder = query ? startQueryFlood(await server.queryPort(), args.queryFlood) : null
  await server.command('perf start', 'recording=')
  const before = statsOf(clients)
  const actsBefore = { ...acts }
  const cpuBefore = process.cpuUsage()
  t0 = Date.now()
  const kills = deaths.map(([second, i]) => setTimeout(() => server.command(`kill ${names[i]}`, 'damaged=').catch(() => {}), second * 1000))
  const timeline = []
  const travellers = [...clients.keys()].filter((i) => roles[i] !== 'sheltered').slice(0, Math.round(names.length * scenario.travellers))
  const leaveAt = Math.min(10, args.seconds / 4)
  const returnAt = Math.max(leaveAt + 1, args.seconds - 30)
  let left = false
  let returned = false
  const viewSamples = clients.map(() => [])
  const bandSamples = clients.map(() => [])
  while (Date.now() - t0 < args.seconds * 1000) {
    const t = (Date.now() - t0) / 1000
    if (!left && t >= leaveAt) {
      left = true
      log(`${label}: ${travellers.length} players teleport away`)
      for (const i of travellers) {
        const far = [home[i][0] + 4000 + 500 * i, home[i][1], home[i][2] + 4000]
        terrain.anchors.push(far)
        homeOf[i] = far
        away.add(i)
        await tp(names[i], far)
      }
    }
    if (!returned && t >= returnAt) {
      returned = true
      log(`${label}: the travellers come back`)
      for (const i of travellers) {
        homeOf[i] = home[i]
        away.delete(i)
        await tp(names[i], home[i])
      }
    }
    if (Date.now() - lastShelter > SHELTER_REBUILD_S * 1000) {
      lastShelter = Date.now()
      for (const i of clients.keys()) if (roles[i] === 'sheltered') await shelter(i)
    }
    if (args.noise) {
      // Fired together, answers unread: the console takes every waiting line in one tick. The
      // floor has no zombies to hear and answers each with an error, as cheaply.
      server.child.stdin.write(homeOf.map((h) => `noise ${fmt(h)} 24 4\n`).join(''))
    }
    for (const [i, c] of clients.entries()) {
      viewSamples[i].push(c.zombies.size)
      bandSamples[i].push(c.zombiesByBand())
    }
    const sample = { t }
    if (!floor) {
      Object.assign(sample, await server.last('zombies', 'total='))
      Object.assign(sample, await server.last('packs', 'packs='))
    }
    timeline.push(sample)
    await sleep(2000)
  }
  const seconds = (Date.now() - t0) / 1000
  for (const kill of kills) clearTimeout(kill)
  const after = statsOf(clients)
  const cpu = process.cpuUsage(cpuBefore)
  const perfStop = await server.last('perf stop', 'ticks=')
  const flooded = flooder ? flooder.stop() : 0
  if (browser) await browser.close()
  if (perf) await stopProfile(perf)
  const chunks = await server.last('chunks', 'loaded=')
  const rssMiB = server.rss()
  clearInterval(mover)
  if (lost.length) throw new Error(`${label}: refused, players lost during the recording: ${lost.join(', ')}`)

  const perClient = clients.map((c, i) => {
    const inView = viewSamples[i].reduce((a, b) => a + b, 0) / Math.max(1, viewSamples[i].length)
    const bytes = (after[i].bytes - before[i].bytes) / seconds / 1000
    const zombie = (after[i].zombieBytes - before[i].zombieBytes) / seconds / 1000
    return { kBps: bytes, zombieKBps: zombie, zombiesInView: inView, deaths: after[i].deaths - before[i].deaths, blockChanges: after[i].blockChanges - before[i].blockChanges }
  })
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
  const KINDS = ['spawn', 'destroy', 'move', 'moveAndTurn', 'teleport', 'turn', 'head', 'metadata', 'other']
  const kindKBps = (i, k) => ((after[i].zombieKinds[k] || 0) - (before[i].zombieKinds[k] || 0)) / seconds / 1000
  const bandKBps = (i, b) => ((after[i].zombieBands[b] || 0) - (before[i].zombieBands[b] || 0)) / seconds / 1000
  const densest = perClient.reduce((best, c, i) => (c.zombieKBps > perClient[best].zombieKBps ? i : best), 0)
  const inViewTotal = perClient.reduce((a, c) => a + c.zombiesInView, 0)
  const zombieTotal = perClient.reduce((a, c) => a + c.zombieKBps, 0)
  // Each mineflayer bot's last report, and the most zombies it saw at once.
  const watcherReports = Object.values(watchers.reports).map((reports) => ({
    ...reports[reports.length - 1],
    mostZombies: Math.max(...reports.map((r) => r.zombies))
  }))
  watchers.child.kill()
  if (watcherReports.length < WATCHERS) throw new Error(`${label}: refused, ${WATCHERS - watcherReports.length} mineflayer bots never reported`)
  for (const c of clients) c.end()
  await server.stop(floor)
  const csv = perfStop.file && fs.readFileSync(perfStop.file, 'utf8')
  fs.rmSync(dir, { recursive: true, force: true })
  const phases = csv
    ? byPhase(csv, [['all home', 0], ['travellers away', leaveAt], ['after the return', returnAt]])
    : []

  const count = (role) => roles.filter((r) => r === role).length
  const result = {
    scenario: scenario.name,
    machine: MACHINE,
    queryFloodPackets: flooded,
    floor,
    bots: names.length,
    zombies: scenario.zombies,
    crowd: crowdAtStart,
    roles: { walker: count('walker') + WATCHERS, fighter: count('fighter'), digger: count('digger'), sheltered: count('sheltered'), travellers: travellers.length },
    // What the players did in the recorded window.
    acts: { blows: acts.blows - actsBefore.blows, placed: acts.placed - actsBefore.placed, dug: acts.dug - actsBefore.dug },
    seconds,
    deathLog,
    tick: { mean: perfStop.mean_ms, p50: perfStop.p50_ms, p99: perfStop.p99_ms, max: perfStop.max_ms, ticks: perfStop.ticks, overruns: perfStop.overruns },
    // The tick's phases (src/metrics/phases.rs), mean ms: horde's, then Valence's passes.
    tickPhases: Object.fromEntries(PHASES.map((p) => [p, perfStop[`${p}_mean_ms`]])),
    // Resident memory: at start, with the players home, with the crowd, at the end; and the
    // crowd's share per zombie (its bodies, packs and tracking; chunks were loaded before).
    memory: {
      startMiB: rssAtStart,
      playersHomeMiB: rssBeforeCrowd,
      crowdMiB: rssWithCrowd,
      bytesPerZombie: rssWithCrowd && rssBeforeCrowd && crowdAtStart ? (rssWithCrowd - rssBeforeCrowd) * 1048576 / crowdAtStart : null
    },
    phases,
    client: {
      kBps: mean(perClient.map((c) => c.kBps)),
      maxKBps: Math.max(...perClient.map((c) => c.kBps)),
      zombieKBps: mean(perClient.map((c) => c.zombieKBps)),
      maxZombieKBps: Math.max(...perClient.map((c) => c.zombieKBps)),
      zombiesInView: mean(perClient.map((c) => c.zombiesInView)),
      bytesPerZombieInView: inViewTotal > 0 ? zombieTotal * 1000 / inViewTotal : null,
      deaths: perClient.reduce((a, c) => a + c.deaths, 0),
      // Blocks the server changed in the clients' view (digging, placing, sieges), summed.
      blockChanges: perClient.reduce((a, c) => a + c.blockChanges, 0),
      // Mean zombie kB/s per client by what the packets say.
      zombieKinds: Object.fromEntries(KINDS.map((k) => [k, mean(clients.map((_, i) => kindKBps(i, k)))])),
      // The client with the most zombie traffic: what it saw and what its bytes were.
      densest: {
        zombiesInView: perClient[densest].zombiesInView,
        zombieKinds: Object.fromEntries(KINDS.map((k) => [k, kindKBps(densest, k)])),
        // Its zombie kB/s by how far the zombie stood from it (bands of blocks).
        zombieBands: Object.fromEntries(BAND_NAMES.map((b) => [b, bandKBps(densest, b)])),
        // How many zombies it had in each band, on average.
        zombiesByBand: Object.fromEntries(BAND_NAMES.map((b) => [b, mean(bandSamples[densest].map((s) => s[b] || 0))]))
      }
    },
    chunks,
    timeline,
    watchers: watcherReports,
    rssMiB,
    harnessCpuS: (cpu.user + cpu.system) / 1e6
  }
  if (csv) fs.writeFileSync(path.join(outDir, `${scenario.name}${floor ? '-floor' : ''}-ticks.csv`), csv)
  fs.writeFileSync(path.join(outDir, `${scenario.name}${floor ? '-floor' : ''}.json`), JSON.stringify(result, null, 1))
  log(`${label}: tick mean ${result.tick.mean} ms p99 ${result.tick.p99} ms; zombie traffic ${result.client.zombieKBps.toFixed(1)} kB/s per client`)
  return result
}

// Tick figures per phase of the run, from the recording's `second,tick_ms` rows: `starts` are
// [name, second] pairs, each phase running to the next one's start.
function byPhase (csv, starts) {
  const rows = csv.trim().split('\n').slice(1).map((l) => l.split(',').map(Number))
  return starts.map(([name, from], i) => {
    const to = i + 1 < starts.length ? starts[i + 1][1] : Infinity
    const ms = rows.filter(([second]) => second >= from && second < to).map(([, t]) => t).sort((a, b) => a - b)
    const at = (p) => (ms.length ? ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] : null)
    return {
      name,
      from,
      ticks: ms.length,
      mean: ms.length ? ms.reduce((a, b) => a + b, 0) / ms.length : null,
      p99: at(0.99),
      max: ms.length ? ms[ms.length - 1] : null,
      overruns: ms.filter((t) => t > 50).length
    }
  })
}

// Headless Debian chromium on the live map page, as an operator keeps it open.
async function openMap (url) {
  if (!url) throw new Error('--map browser: the server serves no map')
  const { chromium } = require('playwright-core')
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync']
  })
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(`${url}/`)
  await page.waitForSelector('[data-pack-id]', { timeout: 120000 }).catch(() => {})
  log(`the map is open in a browser: ${url}/`)
  return browser
}

// `perf record` on the server for the measured window, when asked.
function startProfile (pid, outDir, name) {
  const data = path.join(outDir, `${name}.perf.data`)
  const child = track(spawn('perf', ['record', '-e', 'cpu-clock', '-F', '499', '-g', '-p', String(pid), '-o', data],
    { stdio: ['ignore', 'ignore', 'inherit'] }))
  return { child, data, done: new Promise((resolve) => child.on('exit', resolve)) }
}

async function stopProfile (perf) {
  perf.child.kill('SIGINT')
  await perf.done
}

function table (results) {
  const m = results[0]?.machine || {}
  const rows = [`${m.cores} cores (${m.cpu}), commit ${m.commit}${m.dirty ? ' with changes' : ''}`, '',
    '| scenario | server | tick mean / p50 / p99 / max ms | overruns | world / players / zombies; Valence layers / clients / flush ms | kB/s per client (zombies; densest) | zombies in view | B/s per zombie in view | chunk load p50/p99 ticks | flaps | deaths | blows / placed / dug | crowd, B a zombie |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|']
  const f2 = (v) => (typeof v === 'number' ? v.toFixed(2) : '-')
  for (const r of results) {
    const last = r.timeline[r.timeline.length - 1] || {}
    rows.push(`| ${r.scenario} | ${r.floor ? 'floor' : 'horde'} | ${r.tick.mean} / ${r.tick.p50} / ${r.tick.p99} / ${r.tick.max} | ${r.tick.overruns} | ` +
      `${PHASES.slice(0, 3).map((p) => f2(r.tickPhases[p])).join(' / ')}; ${PHASES.slice(3).map((p) => f2(r.tickPhases[p])).join(' / ')} | ` +
      `${r.client.kBps.toFixed(1)} (${r.client.zombieKBps.toFixed(1)}; ${r.client.maxZombieKBps.toFixed(1)}) | ${r.client.zombiesInView.toFixed(0)} | ` +
      `${r.client.bytesPerZombieInView === null ? '-' : r.client.bytesPerZombieInView.toFixed(0)} | ${r.chunks.load_p50}/${r.chunks.load_p99} | ${last.flaps ?? '-'} | ` +
      `${r.client.deaths} | ${r.acts.blows} / ${r.acts.placed} / ${r.acts.dug} | ${r.crowd}, ${r.memory.bytesPerZombie === null ? '-' : r.memory.bytesPerZombie.toFixed(0)} |`)
  }
  const ratios = ['', '| scenario | tick mean ÷ floor | tick p99 ÷ floor | zombie B/s per zombie in view ÷ floor |', '|---|---|---|---|']
  for (const r of results.filter((r) => !r.floor)) {
    const f = results.find((x) => x.floor && x.scenario === r.scenario)
    if (!f) continue
    const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : '-')
    ratios.push(`| ${r.scenario} | ${ratio(r.tick.mean, f.tick.mean)} | ${ratio(r.tick.p99, f.tick.p99)} | ${ratio(r.client.bytesPerZombieInView, f.client.bytesPerZombieInView)} |`)
  }
  const phases = ['', '| scenario | phase | horde tick mean / p99 / max ms | overruns | floor mean / p99 ms | mean ÷ floor |', '|---|---|---|---|---|---|']
  const f1 = (v) => (v === null || v === undefined ? '-' : v.toFixed(1))
  for (const r of results.filter((r) => !r.floor)) {
    const f = results.find((x) => x.floor && x.scenario === r.scenario)
    for (const [i, p] of (r.phases || []).entries()) {
      const fp = f && f.phases && f.phases[i]
      const ratio = fp && p.mean && fp.mean ? (p.mean / fp.mean).toFixed(2) : '-'
      phases.push(`| ${r.scenario} | ${p.name} | ${f1(p.mean)} / ${f1(p.p99)} / ${f1(p.max)} | ${p.overruns} | ${fp ? `${f1(fp.mean)} / ${f1(fp.p99)}` : '-'} | ${ratio} |`)
    }
  }
  return rows.concat(ratios, phases).join('\n')
}

async function main () {
  const args = parseArgs()
  fs.mkdirSync(args.out, { recursive: true })
  const results = []
  const chosen = SCENARIOS.filter((s) => args.only ? s.name === args.only : !s.onlyByName)
  if (chosen.length === 0) throw new Error(`no scenario ${args.only}; ${SCENARIOS.map((s) => s.name).join(', ')}`)
  for (const scenario of chosen) {
    const horde = await runOnce(scenario, false, args, args.out)
    results.push(horde)
    if (args.floor && !scenario.noFloor) results.push(await runOnce(scenario, true, args, args.out, horde.deathLog))
  }
  fs.writeFileSync(path.join(args.out, 'results.json'), JSON.stringify(results, null, 1))
  console.log(table(results))
}

main().then(() => process.exit(0), (err) => {
  log(err.stack || String(err))
  process.exit(1)
})

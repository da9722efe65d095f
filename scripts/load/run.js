// The load harness: starts the real server, connects many lean protocol clients and a few full
// mineflayer bots over TCP, lets zombies spawn to the scenario's count, then records every tick
// while the bots walk, run and teleport away and back (chunks unload, packs turn to ghosts and
// return), and every 2 s each player makes a noise where it is (as loud as a dug block, heard
// 24 blocks off: the zombies around listen, some go to look, and the heat map warms; --quiet
// leaves it out; --query-flood N floods the query port with N packets a second). Each scenario is run again on the floor (examples/floor.rs: the same bots and as
// many zombies, moved every tick with no AI), so each figure is also a ratio to Valence's cost.
//
// node scripts/load/run.js --out DIR [--only NAME] [--seconds N] [--profile] [--quiet]
//   [--query-flood N]
// Writes DIR/NAME.json per run and DIR/results.json; prints a summary table. HORDE_BIN and
// HORDE_FLOOR_BIN name the binaries when they are not under target/release.
'use strict'

const dgram = require('dgram')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawn } = require('child_process')
const { connectLean, BANDS } = require('./lean-client')
const { Server, logfmt, track, ROOT } = require('./server')
const HOST = '127.0.0.1'
const BAND_NAMES = [...BANDS.map((b) => `<${b}`), `>=${BANDS[BANDS.length - 1]}`]
const SCENARIOS = [
  { name: '10-bots-1k', bots: 10, zombies: 1000, travellers: 0.2 },
  { name: '50-bots-5k', bots: 50, zombies: 5000, travellers: 0.2 },
  { name: '20-bots-10k', bots: 20, zombies: 10000, travellers: 0.5 },
  // The test suite's check that the harness works; run only when named.
  // Homes close together: every client is within tracking range of every crowd, whichever
  // home the spawner found dry ground at.
  { name: 'smoke', bots: 3, zombies: 60, travellers: 0.4, spacing: 48, onlyByName: true }
]
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

function writeConfig (dir, scenario, spawning, map, query) {
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

# The bots do not fight back or flee: blows that do no harm keep them from dying every few
# seconds (a respawn resends everything in view), while the zombies chase and swing as ever.
[[zombies.types]]
name = "zombie"
health = 20.0
speed = 2.3
damage = 0.0
reach = 2.0
rarity = 100

[hunt]
presets = []

[spawning]
# Off until every player is home; then the count fills fast, bounded by the cap per player.
enabled = ${spawning}
interval_ticks = 1
group_size = 64
mob_cap_per_player = ${Math.round(scenario.zombies / scenario.bots)}

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

// A seeded walk: stretches of walking and sprinting in a new direction, pauses, and a turn back
// towards home when 48 blocks out.
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

  step (pos, home) {
    if (this.leg-- <= 0) {
      const r = this.random()
      this.speed = r < 0.2 ? 0 : r < 0.7 ? WALK : SPRINT
      this.leg = 40 + Math.floor(this.random() * 160)
      const away = Math.hypot(pos[0] - home[0], pos[2] - home[2])
      this.heading = away > 48
        ? Math.atan2(home[2] - pos[2], home[0] - pos[0])
        : this.random() * 2 * Math.PI
    }
    return [pos[0] + Math.cos(this.heading) * this.speed, pos[1], pos[2] + Math.sin(this.heading) * this.speed]
  }
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

// Runs one scenario on one server (`floor` or horde) and returns its figures.
async function runOnce (scenario, floor, args, outDir) {
  const label = `${scenario.name}${floor ? ' floor' : ''}`
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'horde-load-'))
  const world = path.join(dir, 'world')
  fs.cpSync(path.join(ROOT, 'worlds/default'), world, { recursive: true })
  const config = writeConfig(dir, scenario, false, args.map, args.queryFlood > 0)
  const perPlayer = Math.round(scenario.zombies / scenario.bots)
  const binary = floor ? FLOOR : HORDE
  const serverArgs = ['--config', config, '--world', world, ...(floor ? ['--per-player', String(perPlayer)] : [])]
  log(`${label}: starting ${binary}`)
  const server = new Server(binary, serverArgs, label)
  const port = await server.port()

  // Lean clients, then the watchers; everyone is sent home.
  const leanCount = scenario.bots - WATCHERS
  const clients = []
  for (let i = 0; i < leanCount; i++) {
    clients.push(await connectLean(port, `lean${i}`))
    await sleep(50)
  }
  const watcherNames = Array.from({ length: WATCHERS }, (_, i) => `full${i}`)
  const watchers = startWatchers(port, watcherNames)
  await watchers.ready
  const spawnPos = clients[0].pos
  const names = [...clients.map((c) => c.username), ...watcherNames]
  const home = homes(names.length, spawnPos, scenario.spacing)
  const fmt = (p) => p.map((v) => v.toFixed(2)).join(' ')
  for (let i = 0; i < names.length; i++) await server.command(`tp ${names[i]} ${fmt(home[i])}`, 'teleported=')
  for (const [i, c] of clients.entries()) {
    c.on('death', () => setTimeout(() => server.command(`tp ${c.username} ${fmt(home[i])}`, 'teleported=').catch(() => {}), 1000))
  }

  // Every tick each lean client takes a step of its walk.
  const walkers = clients.map((_, i) => new Walker(i + 1))
  const homeOf = clients.map((_, i) => home[i].slice())
  const mover = setInterval(() => {
    for (const [i, c] of clients.entries()) if (c.pos) c.moveTo(walkers[i].step(c.pos, homeOf[i]))
  }, 50)

  // Now the crowd: horde spawns it naturally once spawning is on, the floor on `crowd`.
  if (floor) {
    await server.command('crowd', 'crowd=')
  } else {
    writeConfig(dir, scenario, true, args.map, args.queryFlood > 0)
    await server.command('reload', 'reloaded=')
  }
  const target = scenario.zombies * 0.95
  const populateStart = Date.now()
  for (;;) {
    const z = floor ? null : await server.last('zombies', 'total=')
    if (floor || z.total >= target || Date.now() - populateStart > 120000) break
    await sleep(1000)
  }
  log(`${label}: ${names.length} players online, crowd ready after ${((Date.now() - populateStart) / 1000).toFixed(0)} s; recording ${args.seconds} s`)

  // The measured window, with a browser on the live map if asked.
  const browser = args.map === 'browser' ? await openMap(server.mapUrl()) : null
  const perf = args.profile && !floor ? startProfile(server.child.pid, outDir, scenario.name) : null
  const flooder = args.queryFlood > 0 ? startQueryFlood(await server.queryPort(), args.queryFlood) : null
  await server.command('perf start', 'recording=')
  const before = statsOf(clients)
  const cpuBefore = process.cpuUsage()
  const t0 = Date.now()
  const timeline = []
  const travellers = Math.round(names.length * scenario.travellers)
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
      log(`${label}: ${travellers} players teleport away`)
      for (let i = 0; i < travellers; i++) {
        const far = [home[i][0] + 4000 + 500 * i, home[i][1], home[i][2] + 4000]
        homeOf[i] = far
        await server.command(`tp ${names[i]} ${fmt(far)}`, 'teleported=')
      }
    }
    if (!returned && t >= returnAt) {
      returned = true
      log(`${label}: the travellers come back`)
      for (let i = 0; i < travellers; i++) {
        homeOf[i] = home[i].slice()
        await server.command(`tp ${names[i]} ${fmt(home[i])}`, 'teleported=')
      }
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
  const after = statsOf(clients)
  const cpu = process.cpuUsage(cpuBefore)
  const perfStop = await server.last('perf stop', 'ticks=')
  const flooded = flooder ? flooder.stop() : 0
  if (browser) await browser.close()
  if (perf) await stopProfile(perf)
  const chunks = await server.last('chunks', 'loaded=')
  const rssMiB = server.rss()
  clearInterval(mover)

  const perClient = clients.map((c, i) => {
    const inView = viewSamples[i].reduce((a, b) => a + b, 0) / Math.max(1, viewSamples[i].length)
    const bytes = (after[i].bytes - before[i].bytes) / seconds / 1000
    const zombie = (after[i].zombieBytes - before[i].zombieBytes) / seconds / 1000
    return { kBps: bytes, zombieKBps: zombie, zombiesInView: inView, deaths: after[i].deaths - before[i].deaths }
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
  for (const c of clients) c.end()
  await server.stop(floor)
  const csv = perfStop.file && fs.readFileSync(perfStop.file, 'utf8')
  fs.rmSync(dir, { recursive: true, force: true })
  const phases = csv
    ? byPhase(csv, [['all home', 0], ['travellers away', leaveAt], ['after the return', returnAt]])
    : []

  const result = {
    scenario: scenario.name,
    queryFloodPackets: flooded,
    floor,
    bots: names.length,
    zombies: scenario.zombies,
    seconds,
    tick: { mean: perfStop.mean_ms, p50: perfStop.p50_ms, p99: perfStop.p99_ms, max: perfStop.max_ms, ticks: perfStop.ticks, overruns: perfStop.overruns },
    phases,
    client: {
      kBps: mean(perClient.map((c) => c.kBps)),
      maxKBps: Math.max(...perClient.map((c) => c.kBps)),
      zombieKBps: mean(perClient.map((c) => c.zombieKBps)),
      maxZombieKBps: Math.max(...perClient.map((c) => c.zombieKBps)),
      zombiesInView: mean(perClient.map((c) => c.zombiesInView)),
      bytesPerZombieInView: inViewTotal > 0 ? zombieTotal * 1000 / inViewTotal : null,
      deaths: perClient.reduce((a, c) => a + c.deaths, 0),
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
  const rows = ['| scenario | server | tick mean / p50 / p99 / max ms | overruns | kB/s per client (zombies) | zombies in view | B/s per zombie in view | chunk load p50/p99 ticks | flaps |',
    '|---|---|---|---|---|---|---|---|---|']
  for (const r of results) {
    const last = r.timeline[r.timeline.length - 1] || {}
    rows.push(`| ${r.scenario} | ${r.floor ? 'floor' : 'horde'} | ${r.tick.mean} / ${r.tick.p50} / ${r.tick.p99} / ${r.tick.max} | ${r.tick.overruns} | ` +
      `${r.client.kBps.toFixed(1)} (${r.client.zombieKBps.toFixed(1)}) | ${r.client.zombiesInView.toFixed(0)} | ` +
      `${r.client.bytesPerZombieInView === null ? '-' : r.client.bytesPerZombieInView.toFixed(0)} | ${r.chunks.load_p50}/${r.chunks.load_p99} | ${last.flaps ?? '-'} |`)
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
    for (const floor of args.floor ? [false, true] : [false]) results.push(await runOnce(scenario, floor, args, args.out))
  }
  fs.writeFileSync(path.join(args.out, 'results.json'), JSON.stringify(results, null, 1))
  console.log(table(results))
}

main().then(() => process.exit(0), (err) => {
  log(err.stack || String(err))
  process.exit(1)
})

// What operators' tools see, with real clients: the multiplayer list's status ping and
// vanilla's query (basic and full stat) from minecraft-server-util, a flood of query packets,
// and the Prometheus endpoint parsed by prometheus_client's own OpenMetrics parser.
// Env: HORDE_QUERY_PORT, HORDE_METRICS (the /metrics URL), HORDE_CONFIG (config.toml, edited
// and reloaded), HORDE_PYTHON (a python with prometheus_client).
'use strict'

const dgram = require('dgram')
const fs = require('fs')
const path = require('path')
const { execFileSync } = require('child_process')
const util = require('minecraft-server-util')
const { connectBot, rconClient, untilAnswer, check, log, scenario } = require('./lib')

const host = '127.0.0.1'
const port = Number(process.env.HORDE_PORT)
const queryPort = Number(process.env.HORDE_QUERY_PORT)
const options = { enableSRV: false, timeout: 5000 }

const ping = () => util.status(host, port, options)

async function scrape () {
  const response = await fetch(process.env.HORDE_METRICS)
  check(response.ok, `GET /metrics: ${response.status}`)
  const type = response.headers.get('content-type')
  const text = await response.text()
  const parsed = execFileSync(process.env.HORDE_PYTHON, [path.join(__dirname, 'parse_metrics.py')], { input: text })
  return { type, families: JSON.parse(parsed) }
}

const total = (family, name, labels = {}) => family.samples
  .filter(([n, l]) => n === name && Object.entries(labels).every(([k, v]) => l[k] === v))
  .reduce((sum, [, , v]) => sum + v, 0)

// Sends `count` query handshakes as fast as the socket takes them.
function flood (count) {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4')
    const packet = Buffer.from([0xfe, 0xfd, 9, 0, 0, 0, 1])
    let sent = 0
    const next = () => {
      if (sent === count) { socket.close(); return resolve(sent) }
      sent++
      socket.send(packet, queryPort, host, next)
    }
    next()
  })
}

scenario(async () => {
  const rcon = await rconClient()

  // The list before anyone joins: the MOTD with its codes, the icon, the count.
  const empty = await ping()
  check(empty.motd.raw === '§2horde §7under test', `motd: ${JSON.stringify(empty.motd.raw)}`)
  check(empty.motd.clean === 'horde under test', `motd without codes: ${empty.motd.clean}`)
  check(empty.version.name === '1.20.1' && empty.version.protocol === 763, `version: ${JSON.stringify(empty.version)}`)
  check(empty.players.online === 0 && empty.players.max === 20, `players: ${JSON.stringify(empty.players)}`)
  const icon = Buffer.from(empty.favicon.replace('data:image/png;base64,', ''), 'base64')
  check(empty.favicon.startsWith('data:image/png;base64,') && icon.readUInt32BE(16) === 64 && icon.readUInt32BE(20) === 64,
    'a 64x64 PNG icon')

  const before = await scrape()
  check(before.type.startsWith('application/openmetrics-text'), `content type: ${before.type}`)
  const expected = [
    'horde_tick_duration_seconds', 'horde_tick_overruns', 'horde_tps', 'horde_mspt_seconds',
    'process_resident_memory_bytes', 'horde_players_online', 'horde_zombies', 'horde_packs',
    'horde_pack_members', 'horde_hunt_running', 'horde_hunt_zombies_alive', 'horde_chunks_loaded',
    'horde_chunk_load_ticks', 'horde_chunk_unload_ticks', 'horde_saves', 'horde_save_duration_seconds',
    'horde_save_region_bytes', 'horde_login_refusals', 'horde_rcon_refusals', 'horde_query_packets'
  ]
  const missing = expected.filter((name) => !before.families[name])
  check(missing.length === 0, `every family is exported (missing: ${missing.join(', ')})`)
  check(before.families.horde_tick_duration_seconds.type === 'histogram', 'tick durations are a histogram')
  check(total(before.families.horde_zombies, 'horde_zombies') === 0, 'no zombies yet')

  // A player joins: the list counts and names them; the query does too.
  const bot = await connectBot('alice')
  const joined = await untilAnswer(async () => {
    const s = await ping()
    return s.players.online === 1 && s.players.sample?.some((p) => p.name === 'alice') && s
  }, 'the list shows alice')
  log(`sample: ${JSON.stringify(joined.players.sample)}`)
  const basic = await util.queryBasic(host, queryPort, options)
  check(basic.motd.clean === 'horde under test' && basic.gameType === 'SMP' && basic.map === 'world', `basic stat: ${JSON.stringify(basic)}`)
  // The port is a little-endian short: the client reads it signed.
  check(basic.players.online === 1 && basic.players.max === 20 && (basic.hostPort & 0xffff) === port,
    `basic stat players: ${JSON.stringify(basic.players)} port ${basic.hostPort}`)
  const full = await util.queryFull(host, queryPort, options)
  check(full.version === '1.20.1' && full.players.list.includes('alice') && full.players.online === 1, `full stat: ${JSON.stringify(full)}`)

  // Zombies spawn: their family moves once the gauges refresh (once a second).
  const p = bot.entity.position
  for (let i = 0; i < 5; i++) log(await rcon.send(`summon zombie ${p.x + 20 + i} ${p.y} ${p.z + 20}`))
  const zombies = await untilAnswer(async () => {
    const { families } = await scrape()
    const n = total(families.horde_zombies, 'horde_zombies')
    return n >= 5 && n
  }, 'the zombies gauge counts the summoned zombies')
  check(zombies >= 5, `zombies in the scrape: ${zombies}`)
  const online = await untilAnswer(async () => total((await scrape()).families.horde_players_online, 'horde_players_online') === 1, 'one player online')
  check(online, 'players online is 1')
  log(await rcon.send('save-all'))
  const saved = await scrape()
  check(total(saved.families.horde_saves, 'horde_saves_total', { outcome: 'ok' }) >= 1, 'the save is counted')

  // hide_online_players and a new MOTD, by reload: the count stays, the names go.
  const config = fs.readFileSync(process.env.HORDE_CONFIG, 'utf8')
    .replace('hide_online_players = false', 'hide_online_players = true')
    .replace('§2horde §7under test', '§cclosed')
  fs.writeFileSync(process.env.HORDE_CONFIG, config)
  log(await rcon.send('reload'))
  const hidden = await untilAnswer(async () => {
    const s = await ping()
    return s.motd.clean === 'closed' && s
  }, 'the reloaded motd')
  check(hidden.players.online === 1 && (hidden.players.sample ?? []).length === 0, `hidden players: ${JSON.stringify(hidden.players)}`)
  const fullHidden = await util.queryFull(host, queryPort, options)
  check(fullHidden.players.online === 1 && fullHidden.players.list.length === 0, `full stat hides names: ${JSON.stringify(fullHidden.players)}`)

  // A flood: past query.max_packets_per_s the rest is dropped, and the query answers again.
  const sent = await flood(5000)
  const dropped = await untilAnswer(async () => {
    const n = total((await scrape()).families.horde_query_packets, 'horde_query_packets_total', { outcome: 'dropped' })
    return n > 0 && n
  }, 'dropped query packets are counted')
  log(`flood: sent=${sent} dropped=${dropped}`)
  const after = await untilAnswer(() => util.queryBasic(host, queryPort, options).catch(() => null), 'the query answers after the flood')
  check(after.players.online === 1, 'the query answers after the flood')
  check((await ping()).players.online === 1, 'the list answers after the flood')

  // A wrong RCON password is counted.
  const refused = await rconClient('wrong').then(() => false, () => true)
  check(refused, 'a wrong RCON password is refused')
  const counted = await untilAnswer(async () => total((await scrape()).families.horde_rcon_refusals, 'horde_rcon_refusals_total') >= 1, 'the RCON refusal is counted')
  check(counted, 'the RCON refusal is counted')

  bot.quit()
  await rcon.end()
  return { zombies, sent, dropped, sample: joined.players.sample.map((s) => s.name) }
})

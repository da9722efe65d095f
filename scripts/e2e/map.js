// The live map in a real browser (Debian's chromium, driven by playwright-core). A mineflayer
// player stands by zombies that form packs; the page shows every pack the `packs` command
// lists, with its id and state, and /api/state has the same numbers; a noise warms its chunk
// on the heat map layer; a `reload` of a [pack]
// key shows on the page; the player leaves, the packs become ghosts and the page draws them as
// ghosts and follows one as it walks; the page asked nothing of anyone but the server. Then,
// without the browser: unknown paths are 404, writes are refused, and past the connection cap
// the answer is 503.
// HORDE_MAP_URL: the map's address. HORDE_CONFIG: the server's config file (the reload edits
// it). HORDE_SCREENSHOT: where to keep a screenshot of the page.
'use strict'

const fs = require('fs')
const http = require('http')
const { chromium } = require('playwright-core')
const { connectBot, rconClient, until, untilAnswer, check, log, scenario, WAIT_MS } = require('./lib')

const MAP = process.env.HORDE_MAP_URL.replace(/\/$/, '')

function parsePacks (text) {
  return text.split('\n').filter((l) => l.startsWith('id=')).map((line) => Object.fromEntries(
    line.split(' ').filter((kv) => kv.includes('=')).map((kv) => kv.split('='))))
}

// What the page draws: id -> { state, x, z, dashed }.
async function drawn (page) {
  return page.$$eval('[data-pack-id]', (els) => Object.fromEntries(els.map((el) => [
    el.dataset.packId,
    {
      state: el.dataset.state,
      x: Number(el.dataset.x),
      z: Number(el.dataset.z),
      dashed: getComputedStyle(el.querySelector('circle.body')).strokeDasharray !== 'none'
    }
  ])))
}

// Waits until the page shows exactly the packs `packs` lists, each in its state.
async function pageMatchesPacks (rcon, page, what, accept = () => true) {
  let listed = []
  await untilAnswer(async () => {
    listed = parsePacks(await rcon.send('packs'))
    if (!listed.length || !accept(listed)) return undefined
    const shown = await drawn(page)
    const same = listed.length === Object.keys(shown).length &&
      listed.every((p) => shown[p.id] && shown[p.id].state === p.state)
    return same ? shown : undefined
  }, what)
  return listed
}

function get (path, { method = 'GET', keep = false } = {}) {
  return new Promise((resolve, reject) => {
    // A connection of its own each time (no keep-alive pool holding places).
    const req = http.request(`${MAP}${path}`, { method, agent: false }, (res) => {
      if (keep) return resolve({ status: res.statusCode, res })
      let body = ''
      res.on('data', (chunk) => { body += chunk })
      res.on('end', () => resolve({ status: res.statusCode, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

scenario(async () => {
  const rcon = await rconClient()
  const bot = await connectBot('mapper')
  await until(() => bot.entity.onGround, 'the player stands on the ground')
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y, p.z]
  await rcon.send('gamemode creative mapper')
  await rcon.send('time set 14000')
  await rcon.send(`fill ${x - 14} ${y - 2} ${z - 14} ${x + 14} ${y - 1} ${z + 14} stone`)
  await rcon.send(`fill ${x - 14} ${y} ${z - 14} ${x + 14} ${y + 6} ${z + 14} air`)
  for (const dx of [-8, 8]) {
    for (let i = 0; i < 5; i++) {
      await rcon.send(`summon zombie ${x + dx + 0.5 + (i % 3)} ${y} ${z + 0.5 + Math.floor(i / 3) * 2}`)
    }
  }
  await untilAnswer(async () => parsePacks(await rcon.send('packs')).length || undefined, 'packs form')

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync']
  })
  const requests = []
  let materialised = []
  let ghosts = []
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    page.setDefaultTimeout(WAIT_MS)
    page.on('request', (r) => requests.push(r.url()))
    await page.goto(`${MAP}/`)

    materialised = await pageMatchesPacks(rcon, page, 'the page shows every pack, materialised',
      (listed) => listed.every((p) => p.state === 'materialised'))
    const api = JSON.parse((await get('/api/state')).body)
    for (const p of materialised) {
      const same = api.packs.find((a) => String(a.id) === p.id)
      check(same && same.state === p.state, `/api/state has pack ${p.id} as ${p.state}`)
    }
    check(api.players.some((pl) => pl.name === 'mapper'), 'and the player by name')
    await page.waitForSelector('[data-player="mapper"]')
    await page.waitForFunction(() => document.querySelectorAll('#terrain').length === 1)
    // A noise warms its chunk on the heat map, drawn where it was made.
    await rcon.send(`noise ${x + 20} ${y} ${z + 20} 16 40`)
    const chunk = `${Math.floor((x + 20) / 16)},${Math.floor((z + 20) / 16)}`
    const heat = await page.waitForSelector(`[data-heat-chunk="${chunk}"]`)
    check(Number(await heat.getAttribute('data-heat')) > 30, `chunk ${chunk} is warm on the map`)
    const hot = JSON.parse((await get('/api/state')).body).heat
      .find((c) => `${c.chunk_x},${c.chunk_z}` === chunk)
    check(hot && hot.heat > 30, '/api/state has the same heat')
    if (process.env.HORDE_SCREENSHOT) await page.screenshot({ path: process.env.HORDE_SCREENSHOT })

    // A reload of a [pack] key shows on the page.
    const config = process.env.HORDE_CONFIG
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('max_size = 24', 'max_size = 23'))
    log(await rcon.send('reload'))
    await page.waitForFunction(() => document.querySelector('[data-setting="max_size"]')?.textContent === '23')

    // The player leaves: the packs become ghosts, drawn as ghosts.
    await rcon.send('tp mapper ~2000 ~ ~')
    ghosts = await pageMatchesPacks(rcon, page, 'the page shows the packs as ghosts',
      (listed) => listed.every((p) => p.state === 'ghost'))
    let shown = await drawn(page)
    for (const g of ghosts) check(shown[g.id].dashed, `ghost ${g.id} is drawn dashed`)

    // Ghosts walk on at night: the page follows one.
    const followed = ghosts[0].id
    const from = shown[followed]
    await untilAnswer(async () => {
      shown = await drawn(page)
      const now = shown[followed]
      return now && (now.x !== from.x || now.z !== from.z) ? now : undefined
    }, `the page follows ghost ${followed} as it walks`)
    await page.close()
  } finally {
    await browser.close()
  }
  const elsewhere = requests.filter((url) => !url.startsWith(`${MAP}/`))
  check(elsewhere.length === 0, `the page asked only the server: ${JSON.stringify(elsewhere)}`)

  check((await get('/nope')).status === 404, 'an unknown path is 404')
  check((await get('/api/state', { method: 'POST' })).status === 405, 'a write is refused')
  const cap = Number(process.env.HORDE_MAP_CAP)
  const streams = []
  for (let i = 0; i < cap; i++) {
    const open = await get('/events', { keep: true })
    check(open.status === 200, `live connection ${i + 1} of ${cap} is served`)
    streams.push(open.res)
  }
  check((await get('/api/state')).status === 503, 'past the cap: 503')
  for (const s of streams) s.destroy()
  await untilAnswer(async () => (await get('/api/state')).status === 200 || undefined,
    'closed connections free their places')

  bot.quit()
  await rcon.end()
  return { packs: materialised.length, ghosts: ghosts.length, requests: requests.length }
})

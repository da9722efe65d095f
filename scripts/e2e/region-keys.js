// Every chunk of every region file in a folder, as a third-party reader
// (prismarine-provider-anvil) opens it: its top-level keys and heightmaps, and whether its
// blocks load. Prints one JSON array, a chunk an entry.
//
// node scripts/e2e/region-keys.js REGION_DIR
'use strict'

const fs = require('fs')
const Anvil = require('prismarine-provider-anvil').Anvil('1.20.1')

;(async () => {
  const dir = process.argv[2]
  const anvil = new Anvil(dir)
  const out = []
  for (const file of fs.readdirSync(dir)) {
    const m = /^r\.(-?\d+)\.(-?\d+)\.mca$/.exec(file)
    if (!m) continue
    for (let i = 0; i < 1024; i++) {
      const [x, z] = [Number(m[1]) * 32 + (i % 32), Number(m[2]) * 32 + Math.floor(i / 32)]
      const raw = await anvil.loadRaw(x, z)
      if (!raw) continue
      let loads = true
      try { await anvil.load(x, z) } catch (e) { loads = String(e) }
      const heightmaps = raw.value.Heightmaps ? Object.keys(raw.value.Heightmaps.value).sort() : []
      out.push({ x, z, keys: Object.keys(raw.value).sort(), heightmaps, loads })
    }
  }
  console.log(JSON.stringify(out))
})().catch((err) => { console.error(err); process.exit(1) })

// A world's entities as a third-party reader finds them: prismarine-provider-anvil reads the
// entity chunks of `entities/` (Minecraft 1.17 and later keep a chunk's entities there) and
// prismarine-nbt simplifies them. Prints one JSON object: for each chunk asked for, its
// DataVersion, Position and entities (id, tags, position, health, and the rest as saved).
//
// node scripts/e2e/read-entities.js ENTITIES_DIR X,Z [X,Z ...]
'use strict'

const nbt = require('prismarine-nbt')
const Anvil = require('prismarine-provider-anvil').Anvil('1.20.1')

;(async () => {
  const [dir, ...chunks] = process.argv.slice(2)
  const anvil = new Anvil(dir)
  const out = []
  for (const xz of chunks) {
    const [x, z] = xz.split(',').map(Number)
    const raw = await anvil.loadRaw(x, z)
    if (!raw) { out.push({ x, z, missing: true }); continue }
    const chunk = nbt.simplify(raw)
    out.push({ x, z, dataVersion: chunk.DataVersion, position: chunk.Position, entities: chunk.Entities || [] })
  }
  console.log(JSON.stringify(out, (_, v) => (typeof v === 'bigint' ? Number(v) : v)))
})().catch((err) => { console.error(err); process.exit(1) })

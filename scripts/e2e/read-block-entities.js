// Prints, as one JSON array, every container block entity (chest, trapped chest, barrel) of
// the region files given, read with prismarine-nbt: a third-party reader's view of what a
// world keeps in its chests.
//   node read-chests.js REGION.mca...
'use strict'

const fs = require('fs')
const zlib = require('zlib')
const nbt = require('prismarine-nbt')

async function chests (file) {
  const region = fs.readFileSync(file)
  const found = []
  for (let i = 0; i < 1024; i++) {
    const sector = region.readUInt32BE(i * 4) >>> 8
    if (!sector) continue
    const at = sector * 4096
    const length = region.readUInt32BE(at)
    const body = region.subarray(at + 5, at + 4 + length)
    const raw = region[at + 4] === 2 ? zlib.inflateSync(body) : zlib.gunzipSync(body)
    const chunk = nbt.simplify((await nbt.parse(raw)).parsed)
    for (const entity of chunk.block_entities || []) {
      if (/chest|barrel/.test(entity.id)) found.push(entity)
    }
  }
  return found
}

Promise.all(process.argv.slice(2).map(chests))
  .then((all) => console.log(JSON.stringify(all.flat())))
  .catch((err) => { console.error(err); process.exit(1) })

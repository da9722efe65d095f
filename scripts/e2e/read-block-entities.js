// Prints, as one JSON array, every block entity (a chest's items, a sign's text...) of the
// region files given, read with prismarine-nbt: a third-party reader's view of what a world
// keeps in its blocks.
//   node read-block-entities.js REGION.mca...
'use strict'

const fs = require('fs')
const zlib = require('zlib')
const nbt = require('prismarine-nbt')

async function blockEntities (file) {
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
    found.push(...(chunk.block_entities || []))
  }
  return found
}

Promise.all(process.argv.slice(2).map(blockEntities))
  .then((all) => console.log(JSON.stringify(all.flat())))
  .catch((err) => { console.error(err); process.exit(1) })

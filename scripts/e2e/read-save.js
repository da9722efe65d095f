// Reads horde's save files with a third-party NBT library (prismarine-nbt) and prints what it
// found as JSON: proof that the files are real gzipped NBT that other tools can open.
'use strict'

const fs = require('fs')
const path = require('path')
const nbt = require('prismarine-nbt')

async function read (file) {
  const { parsed } = await nbt.parse(fs.readFileSync(file))
  return nbt.simplify(parsed)
}

;(async () => {
  const data = process.argv[2]
  const world = await read(path.join(data, 'horde_world.dat'))
  const packs = await read(path.join(data, 'horde_packs.dat'))
  console.log(JSON.stringify({
    dataVersion: world.DataVersion,
    time: Number(world.Time),
    phase: world.Phase,
    packsDataVersion: packs.DataVersion,
    packs: packs.Packs.map((p) => ({ id: Number(p.Id), members: p.Members.length, types: p.Members.map((m) => m.Type) })),
    loose: packs.Loose.length
  }))
})().catch((err) => { console.error(err); process.exit(1) })

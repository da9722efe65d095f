// A third-party reader's view of a region file, for comparing horde's block for block:
// prismarine-provider-anvil reads every chunk of `r.X.Z.mca` as a 1.20.1 client would get it.
// For each chunk, one JSON line: its position, status, and for every 16-block section a SHA-256
// of its 4096 blocks in YZX order, each written `name[key=value,...]` with the keys sorted.
// With `--section CX CZ SY`, the 4096 block strings of that one section instead, one a line.
//
// node scripts/e2e/region-digest.js REGION_FILE [--section CX CZ SY]
'use strict'

const crypto = require('crypto')
const path = require('path')
const { Vec3 } = require('vec3')
const Anvil = require('prismarine-provider-anvil').Anvil('1.20.1')

const file = process.argv[2]
const match = /r\.(-?\d+)\.(-?\d+)\.mca$/.exec(path.basename(file))
if (!match) throw new Error(`not a region file name: ${file}`)
const [rx, rz] = [Number(match[1]), Number(match[2])]
const anvil = new Anvil(path.dirname(file))

const names = new Map()
function blockName (column, pos) {
  const stateId = column.getBlockStateId(pos)
  let name = names.get(stateId)
  if (name === undefined) {
    const block = column.getBlock(pos)
    const props = Object.entries(block.getProperties())
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
    name = `${block.name}[${props.join(',')}]`
    names.set(stateId, name)
  }
  return name
}

function sectionBlocks (column, x0, z0, sy) {
  const out = []
  const pos = new Vec3(0, 0, 0)
  for (let y = 0; y < 16; y++) {
    for (let z = 0; z < 16; z++) {
      for (let x = 0; x < 16; x++) {
        pos.set(x, sy * 16 + y, z)
        out.push(blockName(column, pos))
      }
    }
  }
  return out
}

;(async () => {
  const [flag, cx, cz, sy] = process.argv.slice(3)
  if (flag === '--section') {
    const column = await anvil.load(Number(cx), Number(cz))
    console.log(sectionBlocks(column, 0, 0, Number(sy)).join('\n'))
    return
  }
  for (let lz = 0; lz < 32; lz++) {
    for (let lx = 0; lx < 32; lx++) {
      const [x, z] = [rx * 32 + lx, rz * 32 + lz]
      const raw = await anvil.loadRaw(x, z)
      if (!raw) continue
      const status = raw.value.Status ? raw.value.Status.value : null
      const column = await anvil.load(x, z)
      const sections = {}
      for (let s = -4; s < 20; s++) {
        const hash = crypto.createHash('sha256')
        hash.update(sectionBlocks(column, 0, 0, s).join('\n'))
        sections[s] = hash.digest('hex')
      }
      console.log(JSON.stringify({ x, z, status, sections }))
    }
  }
})().catch((err) => { console.error(err); process.exit(1) })

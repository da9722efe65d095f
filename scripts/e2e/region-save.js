// A vanilla region that horde edited and saved, read by a third-party Anvil reader
// (prismarine-provider-anvil) beside the untouched original: the edited box holds the new
// block, every other block is as vanilla saved it, and the chunk keeps everything horde does
// not model (block entities, structures, ticks, timestamps, untouched sections' blocks and
// biomes); its heightmaps are vanilla's where nothing changed and follow the edit where it
// did; it carries its light (isLightOn); a chunk beside it keeps its blocks, though its light
// may have been written again where the edit changed it.
// HORDE_SAVED_DIR / HORDE_ORIGINAL_DIR: the two region folders. HORDE_BOX: "x1 y1 z1 x2 y2 z2
// block", inside chunk 0 0.
'use strict'

const assert = require('assert')
const { Vec3 } = require('vec3')
const Anvil = require('prismarine-provider-anvil').Anvil('1.20.1')
const { check, scenario } = require('./lib')

const saved = new Anvil(process.env.HORDE_SAVED_DIR)
const original = new Anvil(process.env.HORDE_ORIGINAL_DIR)
const [x1, y1, z1, x2, y2, z2, block] = process.env.HORDE_BOX.split(' ')
const box = [x1, y1, z1, x2, y2, z2].map(Number)
const inBox = (x, y, z) => x >= box[0] && x <= box[3] && y >= box[1] && y <= box[4] && z >= box[2] && z <= box[5]

const sectionY = (s) => s.Y.value
const sectionsOf = (raw) => raw.value.sections.value.value

function deepEqual (a, b) {
  try { assert.deepStrictEqual(a, b); return true } catch { return false }
}

scenario(async () => {
  const before = await original.load(0, 0)
  const after = await saved.load(0, 0)
  check(after !== null, 'the reader finds the saved chunk')
  let edited = 0
  let kept = 0
  const wrong = []
  for (let x = 0; x < 16; x++) {
    for (let z = 0; z < 16; z++) {
      for (let y = -64; y < 320; y++) {
        const pos = new Vec3(x, y, z)
        const want = inBox(x, y, z) ? block : before.getBlock(pos).name
        const got = after.getBlock(pos).name
        if (got !== want && wrong.length < 10) wrong.push({ x, y, z, want, got })
        if (inBox(x, y, z)) edited++; else kept++
      }
    }
  }
  check(wrong.length === 0, `every block as expected: ${JSON.stringify(wrong)}`)

  const rawBefore = await original.loadRaw(0, 0)
  const rawAfter = await saved.loadRaw(0, 0)
  const recomputed = ['sections', 'Heightmaps', 'isLightOn']
  const keys = Object.keys(rawBefore.value).filter((k) => !recomputed.includes(k))
  for (const key of keys) {
    check(deepEqual(rawBefore.value[key], rawAfter.value[key]), `${key} is kept`)
  }
  check(rawAfter.value.isLightOn.value === 1, 'the chunk carries its light')
  // The heightmaps are computed again: vanilla's own outside the box, the glass on top inside.
  const heights = (raw, key) => {
    const longs = raw.value.Heightmaps.value[key].value.map(([hi, lo]) => (BigInt(hi) << 32n) | BigInt(lo >>> 0))
    return Array.from({ length: 256 }, (_, i) => Number((longs[Math.floor(i / 7)] >> BigInt((i % 7) * 9)) & 511n))
  }
  const glassTop = box[4] + 1 + 64
  for (const key of ['WORLD_SURFACE', 'MOTION_BLOCKING', 'MOTION_BLOCKING_NO_LEAVES', 'OCEAN_FLOOR']) {
    check(rawAfter.value.Heightmaps && rawAfter.value.Heightmaps.value[key], `the saved chunk has ${key}`)
    const [was, now] = [heights(rawBefore, key), heights(rawAfter, key)]
    for (let i = 0; i < 256; i++) {
      const [x, z] = [i % 16, Math.floor(i / 16)]
      const inside = x >= box[0] && x <= box[3] && z >= box[2] && z <= box[5]
      const want = inside ? Math.max(was[i], glassTop) : was[i]
      check(now[i] === want, `${key} at ${x} ${z}: ${now[i]}, not ${want}`)
    }
  }
  const changed = new Set([box[1] >> 4, box[4] >> 4])
  let sectionsKept = 0
  const lit = sectionsOf(rawAfter).filter((s) => s.SkyLight || s.BlockLight)
  check(lit.length > 0, `${lit.length} sections carry light`)
  for (const section of lit) {
    for (const array of [section.SkyLight, section.BlockLight].filter(Boolean)) {
      check(array.value.length === 2048, `section ${sectionY(section)}'s light is 2048 bytes`)
    }
  }
  for (const section of sectionsOf(rawBefore).filter((s) => s.block_states)) {
    const same = sectionsOf(rawAfter).find((s) => sectionY(s) === sectionY(section))
    check(same !== undefined, `section ${sectionY(section)} is there`)
    if (changed.has(sectionY(section))) continue
    check(deepEqual(section.block_states, same.block_states) && deepEqual(section.biomes, same.biomes),
      `section ${sectionY(section)} is untouched`)
    sectionsKept++
  }
  // Beside it: the same blocks and everything else, its light perhaps written again.
  const [besideBefore, besideAfter] = [await original.loadRaw(1, 0), await saved.loadRaw(1, 0)]
  for (const key of Object.keys(besideBefore.value).filter((k) => !recomputed.includes(k))) {
    check(deepEqual(besideBefore.value[key], besideAfter.value[key]), `chunk 1 0 keeps ${key}`)
  }
  for (const section of sectionsOf(besideBefore).filter((s) => s.block_states)) {
    const same = sectionsOf(besideAfter).find((s) => sectionY(s) === sectionY(section))
    check(same && deepEqual(section.block_states, same.block_states) && deepEqual(section.biomes, same.biomes),
      `chunk 1 0's section ${sectionY(section)} keeps its blocks`)
  }
  return { edited, kept, keys: keys.length, sectionsKept }
})

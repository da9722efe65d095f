// A vanilla world dropped into the world folder is what players get: every block a real
// client sees in the spawn chunks equals what a third-party Anvil reader
// (prismarine-provider-anvil) reads from the same region file.
'use strict'

const { Vec3 } = require('vec3')
const Anvil = require('prismarine-provider-anvil').Anvil('1.19.4')
const { connectBot, until, check, scenario } = require('./lib')

const REGION_DIR = process.env.HORDE_REGION_DIR
const CHUNKS = [[0, 0], [1, 0], [0, 1], [1, 1]]

scenario(async () => {
  const anvil = new Anvil(REGION_DIR)
  const bot = await connectBot('visitor')
  let compared = 0
  const mismatches = []
  for (const [cx, cz] of CHUNKS) {
    const column = await anvil.load(cx, cz)
    check(column !== null, `the region file has chunk ${cx} ${cz}`)
    await until(() => bot.blockAt(new Vec3(cx * 16, 0, cz * 16)) !== null, `chunk ${cx} ${cz} reaches the client`)
    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        for (let y = -64; y < 320; y++) {
          const expected = column.getBlock(new Vec3(x, y, z)).name
          const seen = bot.blockAt(new Vec3(cx * 16 + x, y, cz * 16 + z)).name
          compared++
          if (expected !== seen && mismatches.length < 10) mismatches.push({ x: cx * 16 + x, y, z: cz * 16 + z, expected, seen })
        }
      }
    }
  }
  check(mismatches.length === 0, `all ${compared} blocks match: ${JSON.stringify(mismatches)}`)
  const ground = bot.blockAt(bot.entity.position.offset(0, -0.5, 0))
  check(ground && ground.boundingBox === 'block', `spawned on vanilla ${ground && ground.name}`)
  bot.quit()
  return { compared, spawn: bot.entity.position.toArray() }
})

// A vanilla world dropped into the world folder is what players get: every block, name and
// properties, of every chunk of the region file a real client is sent equals what a
// third-party Anvil reader (prismarine-provider-anvil) reads from the same file. Chunks vanilla
// had not yet placed blocks in (generation before `features`) are horde's and are skipped.
// HORDE_REGION_DIR: the world's region folder (its r.0.0.mca is compared).
'use strict'

const { Vec3 } = require('vec3')
const Anvil = require('prismarine-provider-anvil').Anvil('1.20.1')
const { connectBot, until, check, scenario } = require('./lib')

const REGION_DIR = process.env.HORDE_REGION_DIR
const SERVED = ['features', 'light', 'initialize_light', 'spawn', 'heightmaps', 'full']

function describe (block) {
  const props = Object.entries(block.getProperties()).sort().map(([k, v]) => `${k}=${v}`)
  return `${block.name}[${props.join(',')}]`
}

scenario(async () => {
  const anvil = new Anvil(REGION_DIR)
  const bot = await connectBot('visitor')
  // The spawn chunk and its neighbours reach the client first.
  const spawn = bot.entity.position
  await until(() => bot.blockAt(spawn.offset(16, 0, 16)) !== null, 'the chunks round the spawn reach the client')
  let compared = 0
  let chunks = 0
  const mismatches = []
  for (let cz = 0; cz < 32; cz++) {
    for (let cx = 0; cx < 32; cx++) {
      if (bot.blockAt(new Vec3(cx * 16, 0, cz * 16)) === null) continue
      const raw = await anvil.loadRaw(cx, cz)
      const status = raw && raw.value.Status ? raw.value.Status.value.replace('minecraft:', '') : null
      if (!SERVED.includes(status)) continue
      const column = await anvil.load(cx, cz)
      chunks++
      for (let x = 0; x < 16; x++) {
        for (let z = 0; z < 16; z++) {
          for (let y = -64; y < 320; y++) {
            const expected = describe(column.getBlock(new Vec3(x, y, z)))
            const seen = describe(bot.blockAt(new Vec3(cx * 16 + x, y, cz * 16 + z)))
            compared++
            if (expected !== seen && mismatches.length < 10) mismatches.push({ x: cx * 16 + x, y, z: cz * 16 + z, expected, seen })
          }
        }
      }
    }
  }
  check(chunks >= 4, `the client holds ${chunks} chunks of the vanilla region`)
  check(mismatches.length === 0, `all ${compared} blocks of ${chunks} chunks match: ${JSON.stringify(mismatches)}`)
  const ground = bot.blockAt(bot.entity.position.offset(0, -0.5, 0))
  check(ground && ground.boundingBox === 'block', `spawned on vanilla ${ground && ground.name}`)
  bot.quit()
  return { compared, chunks, spawn: bot.entity.position.toArray() }
})

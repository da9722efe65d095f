// The world lit as vanilla lights it, read by a real client. The login gives the overworld
// vanilla's ambient light 0 (Valence raises it to 1). The player stands in sky light 15; a
// sealed stone room beside it is dark (sky and block light 0); a torch set in it lights 14 at
// the torch, 13 and 12 a step and two away, and the room is dark again once it is dug.
//
// The light is read from the chunk and light packets as the vanilla client reads them: each
// section's 2048 bytes hold two levels a byte, the lower nibble first. prismarine-chunk 1.41
// reads those bytes as big-endian longs (its block states' layout), which scrambles every 8
// bytes, so mineflayer's own getSkyLight cannot be the judge.
'use strict'

const nbt = require('prismarine-nbt')
const { connectBot, rconClient, until, check, log, scenario } = require('./lib')

// Light sections as the packets carry them: per chunk, per kind, section index (0 is the one
// below the world) to its bytes.
function lightTracker (client) {
  const chunks = new Map()
  const bit = (mask, i) => {
    const [hi, lo] = mask[0] ?? [0, 0]
    return i < 32 ? (lo >>> i) & 1 : (hi >>> (i - 32)) & 1
  }
  const apply = (p) => {
    const key = `${p.chunkX},${p.chunkZ}`
    const chunk = chunks.get(key) ?? { sky: [], block: [] }
    for (const [kind, mask, empty, arrays] of [
      ['sky', p.skyLightMask, p.emptySkyLightMask, p.skyLight],
      ['block', p.blockLightMask, p.emptyBlockLightMask, p.blockLight]
    ]) {
      let next = 0
      for (let i = 0; i < 26; i++) {
        if (bit(mask, i)) chunk[kind][i] = Buffer.from(arrays[next++])
        else if (bit(empty, i)) chunk[kind][i] = Buffer.alloc(2048)
      }
    }
    chunks.set(key, chunk)
  }
  client.on('map_chunk', (p) => apply({ ...p, chunkX: p.x, chunkZ: p.z }))
  client.on('update_light', apply)
  client.on('unload_chunk', (p) => chunks.delete(`${p.chunkX},${p.chunkZ}`))
  // The level of `kind` at a block; the sky is full above every section the client was sent.
  return (kind, at) => {
    const chunk = chunks.get(`${at.x >> 4},${at.z >> 4}`)
    if (!chunk) return undefined
    const s = ((at.y + 64) >> 4) + 1
    const bytes = chunk[kind][s]
    if (!bytes) return kind === 'sky' && chunk.sky.slice(s).every((b) => !b) ? 15 : 0
    const i = ((at.y & 15) << 8) | ((at.z & 15) << 4) | (at.x & 15)
    return (bytes[i >> 1] >> ((i & 1) * 4)) & 15
  }
}

scenario(async () => {
  const rcon = await rconClient()
  let ambient
  let light
  const bot = await connectBot('lamp', (b) => {
    light = lightTracker(b._client)
    b._client.once('login', (packet) => {
      const codec = packet.dimensionCodec?.type ? nbt.simplify(packet.dimensionCodec) : packet.dimensionCodec
      const overworld = codec['minecraft:dimension_type'].value
        .find((d) => d.name === 'minecraft:overworld')
      ambient = overworld.element.ambient_light
    })
  })
  check(ambient === 0, `the overworld's ambient light is vanilla's 0: ${ambient}`)
  await until(() => bot.entity.onGround, 'the player stands on the ground')
  const p = bot.entity.position.floored()
  const sky = (at) => light('sky', at)
  const lit = (at) => light('block', at)
  await until(() => sky(p) === 15, `sky light 15 where the player stands: ${sky(p)}`)

  // A room of stone 4 blocks east, its inside 5 long, 3 wide and 3 high.
  const [x, y, z] = [p.x + 4, p.y, p.z]
  log(await rcon.send(`fill ${x} ${y - 1} ${z - 2} ${x + 6} ${y + 3} ${z + 2} stone`))
  log(await rcon.send(`fill ${x + 1} ${y} ${z - 1} ${x + 5} ${y + 2} ${z + 1} air`))
  const inside = p.offset(5, 0, 0)
  await until(() => bot.blockAt(inside)?.name === 'air', 'the room is built')
  await until(() => sky(inside) === 0 && lit(inside) === 0,
    `the sealed room is dark: sky ${sky(inside)}, block ${lit(inside)}`)

  log(await rcon.send(`fill ${x + 1} ${y} ${z} ${x + 1} ${y} ${z} torch`))
  const steps = [0, 1, 2].map((i) => inside.offset(i, 0, 0))
  await until(() => steps.every((at, i) => lit(at) === 14 - i),
    `14, 13, 12 stepping away from the torch: ${steps.map(lit)}`)
  check(sky(inside) === 0, 'no sky in the room')

  log(await rcon.send(`fill ${x + 1} ${y} ${z} ${x + 1} ${y} ${z} air`))
  await until(() => steps.every((at) => lit(at) === 0),
    `dark again once the torch is dug: ${steps.map(lit)}`)
  bot.quit()
  await rcon.end()
  return { ambient, torch: [14, 13, 12] }
})

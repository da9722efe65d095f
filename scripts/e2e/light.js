// The world lit as vanilla lights it, read by a real client. The login gives the overworld
// vanilla's ambient light 0 (Valence raises it to 1). The player stands in sky light 15; a
// sealed stone room beside it is dark (sky and block light 0); a torch set in it lights 14 at
// the torch, 13 and 12 a step and two away, and the room is dark again once it is dug.
'use strict'

const nbt = require('prismarine-nbt')
const { connectBot, rconClient, until, check, log, scenario } = require('./lib')

scenario(async () => {
  const rcon = await rconClient()
  let ambient
  const bot = await connectBot('lamp', (b) => {
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
  const sky = (at) => bot.world.getSkyLight(at)
  const lit = (at) => bot.world.getBlockLight(at)
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

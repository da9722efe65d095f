// A real survival client crafts from nothing but logs, raw iron and coal, with mineflayer's own
// `bot.craft` (vanilla's window clicks): planks, sticks and a crafting table in the
// inventory's 2x2 grid; the table placed and opened, a wooden pickaxe and a chest made at it;
// stone dug with the pickaxe and a furnace made of the cobblestone; the furnace placed, the
// raw iron smelted with the coal, an iron sword made. Logs left in the grid come back when the
// window closes. The chest is placed and filled. A sign is placed, its editor opens and the
// text written on it is shown. A bed is refused beside a zombie at midnight, then slept in
// until the night is skipped. Step `after-restart` (HORDE_SPOT: what this step returned):
// after a restart the chest still holds it all and the sign still says it.
'use strict'

const { Vec3 } = require('vec3')
const mcData = require('minecraft-data')('1.20.1')
const { connectBot, rconClient, until, untilAnswer, check, log, scenario, slay } = require('./lib')

const count = (bot, name) => bot.inventory.items().filter((i) => i.name === name).reduce((n, i) => n + i.count, 0)

// Crafts `times` batches of `name` with the first recipe the bot has the ingredients for.
async function craft (bot, name, times, table = null) {
  const id = mcData.itemsByName[name].id
  const [recipe] = bot.recipesFor(id, null, 1, table)
  check(recipe, `the crafter has what ${name} takes`)
  const before = count(bot, name)
  await bot.craft(recipe, times, table)
  const made = recipe.result.count * times
  await until(() => count(bot, name) === before + made, `${made} ${name} in the inventory`)
  check(count(bot, name) === before + made, `${name}: ${count(bot, name)}`)
}

// The crafter walks over every item lying within 6 blocks of `p` (on its level) and comes back.
async function pickUpAround (bot, rcon, p) {
  const lying = () => Object.values(bot.entities).filter((e) => e.name === 'item' && e.position.distanceTo(p) < 6)
  while (lying().length > 0) {
    const item = lying()[0]
    log(await rcon.send(`tp crafter ${item.position.x} ${p.y} ${item.position.z}`))
    await until(() => !bot.entities[item.id], 'the crafter picks it up')
  }
  log(await rcon.send(`tp crafter ${p.x + 0.5} ${p.y} ${p.z + 0.5}`))
}

// What a window holds of its own, as name -> count.
const contents = (window) => {
  const held = {}
  for (const item of window.containerItems()) held[item.name] = (held[item.name] || 0) + item.count
  return held
}

async function afterRestart (spot) {
  const bot = await connectBot('crafter')
  const at = new Vec3(...spot.chest)
  await until(() => bot.blockAt(at)?.name === 'chest', 'the chest is there')
  const window = await bot.openContainer(bot.blockAt(at))
  await until(() => Object.keys(contents(window)).length > 0, 'the chest shows its items')
  const held = contents(window)
  check(JSON.stringify(held) === JSON.stringify(spot.stored), `the chest still holds ${JSON.stringify(spot.stored)}: ${JSON.stringify(held)}`)
  window.close()
  const sign = new Vec3(...spot.sign.at)
  await until(() => bot.blockAt(sign)?.getSignText()[0] === spot.sign.text, 'the sign still says it')
  bot.quit()
  return { kept: held }
}

scenario(async () => {
  if (process.env.HORDE_STEP === 'after-restart') return afterRestart(JSON.parse(process.env.HORDE_SPOT))
  const rcon = await rconClient()
  const bot = await connectBot('crafter')
  await until(() => bot.entity.onGround, 'the crafter stands on the ground')
  log(await rcon.send('time set noon'))
  log(await rcon.send('gamemode survival crafter'))
  // Forty blocks east of the spawn, out of the way of the other scenarios on this server.
  const spawn = bot.entity.position.floored()
  const p = spawn.offset(40, 0, 0)
  const [x, y, z] = [p.x, p.y, p.z]
  log(await rcon.send(`tp crafter ${x + 0.5} ${y} ${z + 0.5}`))
  await until(() => bot.entity.position.distanceTo(p.offset(0.5, 0, 0.5)) < 1 && bot.blockAt(p.offset(0, -1, 0)), 'the crafter is there')
  const field = async () => {
    log(await rcon.send(`fill ${x - 4} ${y - 2} ${z - 4} ${x + 4} ${y - 1} ${z + 4} stone`))
    return rcon.send(`fill ${x - 4} ${y} ${z - 4} ${x + 4} ${y + 3} ${z + 4} air`)
  }
  log(await untilAnswer(async () => / unloaded=0 /.test(await field()), 'the field is built'))
  await until(() => bot.entity.onGround && bot.blockAt(p.offset(0, -1, 0))?.name === 'stone', 'the crafter stands on the field')
  log(await rcon.send('give crafter oak_log 5'))
  await until(() => count(bot, 'oak_log') === 5, 'five logs')

  // In the 2x2 grid: 20 planks, 4 sticks, a table.
  await craft(bot, 'oak_planks', 5)
  await craft(bot, 'stick', 1)
  await craft(bot, 'crafting_table', 1)
  check(count(bot, 'oak_planks') === 14, `14 planks left: ${count(bot, 'oak_planks')}`)

  // The table, placed beside the crafter and opened by the craft.
  await bot.equip(bot.inventory.items().find((i) => i.name === 'crafting_table'), 'hand')
  const spot = p.offset(2, 0, 0)
  await bot.placeBlock(bot.blockAt(spot.offset(0, -1, 0)), spot.minus(spot.offset(0, -1, 0)))
  await until(() => bot.blockAt(spot)?.name === 'crafting_table', 'the table stands')
  const table = bot.blockAt(spot)
  check(bot.recipesFor(mcData.itemsByName.wooden_pickaxe.id, null, 1, null).length === 0,
    'a pickaxe does not fit the 2x2 grid')
  await craft(bot, 'wooden_pickaxe', 1, table)
  await craft(bot, 'chest', 1, table)
  check(count(bot, 'oak_planks') === 3 && count(bot, 'stick') === 2,
    `planks and sticks spent: ${count(bot, 'oak_planks')} planks, ${count(bot, 'stick')} sticks`)

  // Eight stone round the crafter dug with the pickaxe, the cobblestone picked up where it
  // fell, then a furnace made of it at the table.
  const walls = [[-1, 0, -1], [-1, 0, 0], [-1, 0, 1], [0, 0, -1], [0, 0, 1], [-1, 1, -1], [-1, 1, 0], [-1, 1, 1]]
  for (const [dx, dy, dz] of walls) {
    log(await rcon.send(`fill ${x + dx} ${y + dy} ${z + dz} ${x + dx} ${y + dy} ${z + dz} stone`))
  }
  await until(() => walls.every(([dx, dy, dz]) => bot.blockAt(p.offset(dx, dy, dz))?.name === 'stone'), 'the stone stands')
  await bot.equip(bot.inventory.items().find((i) => i.name === 'wooden_pickaxe'), 'hand')
  for (const [dx, dy, dz] of walls) await bot.dig(bot.blockAt(p.offset(dx, dy, dz)))
  // Popped cobblestone flies up to a block or so, out of reach: the crafter walks over it.
  await pickUpAround(bot, rcon, p)
  await until(() => count(bot, 'cobblestone') === 8, 'eight cobblestone picked up')
  await craft(bot, 'furnace', 1, table)

  // The furnace placed west of the crafter, two raw iron smelted with a coal, a sword made.
  log(await rcon.send('give crafter raw_iron 2'))
  log(await rcon.send('give crafter coal 1'))
  await until(() => count(bot, 'raw_iron') === 2 && count(bot, 'coal') === 1, 'raw iron and coal')
  await bot.equip(bot.inventory.items().find((i) => i.name === 'furnace'), 'hand')
  const furnaceAt = p.offset(-2, 0, 0)
  await bot.placeBlock(bot.blockAt(furnaceAt.offset(0, -1, 0)), new Vec3(0, 1, 0))
  await until(() => bot.blockAt(furnaceAt)?.name === 'furnace', 'the furnace stands')
  const furnace = await bot.openFurnace(bot.blockAt(furnaceAt))
  await furnace.putFuel(mcData.itemsByName.coal.id, null, 1)
  await furnace.putInput(mcData.itemsByName.raw_iron.id, null, 2)
  await until(() => furnace.outputItem()?.count === 2, 'two iron ingots smelted')
  await furnace.takeOutput()
  furnace.close()
  await until(() => count(bot, 'iron_ingot') === 2, 'the ingots in the inventory')
  await craft(bot, 'iron_sword', 1, table)

  // A log left in the 2x2 grid comes back when the inventory closes.
  log(await rcon.send('give crafter oak_log 1'))
  await until(() => count(bot, 'oak_log') === 1, 'one more log')
  const log1 = bot.inventory.items().find((i) => i.name === 'oak_log')
  await bot.clickWindow(log1.slot, 0, 0)
  await bot.clickWindow(1, 0, 0)
  await until(() => bot.inventory.slots[0]?.name === 'oak_planks', 'the grid shows planks')
  bot.closeWindow(bot.inventory)
  await until(() => count(bot, 'oak_log') === 1 && !bot.inventory.slots[1], 'the log is back in the inventory')

  const made = Object.fromEntries(['wooden_pickaxe', 'chest', 'iron_sword'].map((n) => [n, count(bot, n)]))

  // The chest placed south of the crafter and filled with the planks and the stick left.
  await bot.equip(bot.inventory.items().find((i) => i.name === 'chest'), 'hand')
  const chestAt = p.offset(0, 0, 2)
  await bot.placeBlock(bot.blockAt(chestAt.offset(0, -1, 0)), new Vec3(0, 1, 0))
  await until(() => bot.blockAt(chestAt)?.name === 'chest', 'the chest stands')
  const window = await bot.openContainer(bot.blockAt(chestAt))
  for (const name of ['oak_planks', 'stick']) {
    await window.deposit(mcData.itemsByName[name].id, null, count(bot, name))
  }
  const stored = contents(window)
  check(stored.oak_planks === 3 && stored.stick === 1, `the chest holds ${JSON.stringify(stored)}`)
  window.close()

  // A sign south-east of the crafter: its editor opens on its front as it is placed, and what
  // is written there is shown.
  log(await rcon.send('give crafter oak_sign 1'))
  await until(() => count(bot, 'oak_sign') === 1, 'a sign')
  await bot.equip(bot.inventory.items().find((i) => i.name === 'oak_sign'), 'hand')
  const signAt = p.offset(2, 0, 2)
  let editor = null
  bot._client.once('open_sign_entity', (packet) => { editor = packet })
  await bot.placeBlock(bot.blockAt(signAt.offset(0, -1, 0)), new Vec3(0, 1, 0))
  await until(() => editor, 'the sign editor opens')
  const { x: ex, y: ey, z: ez } = editor.location
  check(signAt.equals(new Vec3(ex, ey, ez)) && editor.isFrontText, `the editor is the sign's front: ${JSON.stringify(editor)}`)
  bot.updateSign(bot.blockAt(signAt), 'Horde\nwas here')
  const sign = { at: signAt.toArray(), text: 'Horde\nwas here\n\n' }
  await until(() => bot.blockAt(signAt)?.getSignText()[0] === sign.text, 'the sign shows its text')

  // A bed north of the crafter: refused at midnight with a zombie near, slept in once the
  // sword has dealt with it, and the night skipped to the sunrise.
  log(await rcon.send('give crafter red_bed 1'))
  await until(() => count(bot, 'red_bed') === 1, 'a bed')
  await bot.equip(bot.inventory.items().find((i) => i.name === 'red_bed'), 'hand')
  const bedAt = p.offset(0, 0, -2)
  await bot.placeBlock(bot.blockAt(bedAt.offset(0, -1, 0)), new Vec3(0, 1, 0))
  await until(() => bot.blockAt(bedAt)?.name === 'red_bed', 'the bed stands')
  log(await rcon.send('time set midnight'))
  await until(() => bot.time.timeOfDay >= 18000, 'midnight')
  log(await rcon.send(`summon zombie ${x + 3.5} ${y} ${z - 1.5}`))
  const zombie = () => Object.values(bot.entities).find((e) => e.name === 'zombie' && e.position.distanceTo(p) < 8)
  await until(zombie, 'a zombie beside the bed')
  const said = []
  bot.on('message', (m) => said.push(JSON.stringify(m.json)))
  await bot.activateBlock(bot.blockAt(bedAt))
  await until(() => said.some((s) => s.includes('block.minecraft.bed.not_safe')), 'the bed refused: monsters nearby')
  check(!bot.isSleeping, 'the crafter is kept up')
  await bot.equip(bot.inventory.items().find((i) => i.name === 'iron_sword'), 'hand')
  await slay(bot, zombie())
  await pickUpAround(bot, rcon, p) // What it dropped, lest it lie in the survivor's way.
  await bot.sleep(bot.blockAt(bedAt))
  check(bot.isSleeping, 'the crafter sleeps')
  await until(() => !bot.isSleeping, 'the crafter wakes')
  await until(() => bot.time.timeOfDay < 1000, 'the sun rises')
  check(said.some((s) => s.includes('block.minecraft.set_spawn')), 'the bed is the crafter\'s spawn')
  const slept = { dayTime: bot.time.timeOfDay }
  log(await rcon.send('save-all'))
  bot.quit()
  await rcon.end()
  return { made, chest: chestAt.toArray(), stored, sign, slept }
})

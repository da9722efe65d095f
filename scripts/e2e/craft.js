// A real survival client crafts from nothing but logs, with mineflayer's own `bot.craft`
// (vanilla's window clicks): planks, sticks and a crafting table in the inventory's 2x2 grid;
// the table placed and opened, a wooden pickaxe and a chest made at it; stone dug with the
// pickaxe and a furnace made of the cobblestone. Logs left in the grid come back when the
// window closes.
'use strict'

const mcData = require('minecraft-data')('1.20.1')
const { connectBot, rconClient, until, check, log, scenario } = require('./lib')

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

scenario(async () => {
  const rcon = await rconClient()
  const bot = await connectBot('crafter')
  await until(() => bot.entity.onGround, 'the crafter stands on the ground')
  log(await rcon.send('time set noon'))
  log(await rcon.send('gamemode survival crafter'))
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y, p.z]
  log(await rcon.send(`fill ${x - 4} ${y - 2} ${z - 4} ${x + 4} ${y - 1} ${z + 4} stone`))
  log(await rcon.send(`fill ${x - 4} ${y} ${z - 4} ${x + 4} ${y + 3} ${z + 4} air`))
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
  await until(() => count(bot, 'cobblestone') === 8, 'eight cobblestone picked up')
  await craft(bot, 'furnace', 1, table)

  // A log left in the 2x2 grid comes back when the inventory closes.
  log(await rcon.send('give crafter oak_log 1'))
  await until(() => count(bot, 'oak_log') === 1, 'one more log')
  const log1 = bot.inventory.items().find((i) => i.name === 'oak_log')
  await bot.clickWindow(log1.slot, 0, 0)
  await bot.clickWindow(1, 0, 0)
  await until(() => bot.inventory.slots[0]?.name === 'oak_planks', 'the grid shows planks')
  bot.closeWindow(bot.inventory)
  await until(() => count(bot, 'oak_log') === 1 && !bot.inventory.slots[1], 'the log is back in the inventory')

  const made = ['wooden_pickaxe', 'chest', 'furnace'].map((n) => [n, count(bot, n)])
  bot.quit()
  await rcon.end()
  return { made: Object.fromEntries(made) }
})

// Who may join and what they may do, with real clients: a client not on the whitelist is
// refused with vanilla's message and let in once added; a banned client is kicked and refused
// with the reason, an IP ban too, and both let in once pardoned; a kicked client sees the
// reason; a player who is not an operator cannot break a block by the spawn but can 20 blocks
// away, and can by the spawn once made an operator; an operator's commands typed in the game
// run (selectors, `~`), and not once deopped; commands refuse what vanilla refuses; one
// player's chat line reaches another as vanilla's "<name> message", and each is told of the
// other's coming.
'use strict'

const { Vec3 } = require('vec3')
const { connectBot, rconClient, until, untilAnswer, waitFor, check, log, scenario } = require('./lib')

// Connects and expects to be refused; returns the reason the client was given. A connection
// closed before the client read any reason is tried again.
async function refused (name) {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const bot = await connectBot(name)
      bot.quit()
    } catch (e) {
      const why = String(e.message || e)
      if (why.startsWith('kicked:')) return why
      log(`${name}: no reason read (${why}); trying again`)
      continue
    }
    throw new Error(`${name} was let in`)
  }
  throw new Error(`${name} was never told why it was refused`)
}

function kickedWith (bot) {
  return new Promise((resolve) => bot.once('kicked', (reason) => resolve(String(reason))))
}

const name = (bot, at) => bot.blockAt(at)?.name

scenario(async () => {
  const rcon = await rconClient()
  const say = async (line) => { const a = await rcon.send(line); log(`${line} -> ${a}`); return a }

  // The whitelist.
  check((await say('whitelist on')).startsWith('whitelist=true'), 'the whitelist is on')
  const notListed = await refused('outsider')
  check(notListed.includes('You are not white-listed on this server!'), `refused: ${notListed}`)
  await say('whitelist add outsider')
  let bot = await connectBot('outsider')
  check(true, 'on the whitelist, outsider joins')

  // Ban, with a reason: kicked, and refused with it.
  let kicked = kickedWith(bot)
  check((await say('ban outsider Griefing the spawn')).startsWith('banned=outsider'), 'banned')
  let reason = await kicked
  check(reason.includes('banned') && reason.includes('Griefing the spawn'), `kicked: ${reason}`)
  reason = await refused('outsider')
  check(reason.includes('You are banned from this server.') && reason.includes('Reason: Griefing the spawn'),
    `refused: ${reason}`)
  check((await say('banlist players')).includes('player=outsider'), 'the ban is listed')
  await say('pardon outsider')

  // An IP ban refuses every name from that address.
  bot = await connectBot('outsider')
  kicked = kickedWith(bot)
  check((await say('ban-ip outsider')).includes('kicked=1'), 'the address is banned and its player kicked')
  reason = await kicked
  check(reason.includes('IP banned'), `kicked: ${reason}`)
  await say('whitelist add someone')
  reason = await refused('someone')
  check(reason.includes('Your IP address is banned from this server.'), `refused: ${reason}`)
  await say('pardon-ip 127.0.0.1')

  // A kick with a reason.
  bot = await connectBot('outsider')
  kicked = kickedWith(bot)
  await say('kick outsider Time for bed')
  reason = await kicked
  check(reason.includes('Time for bed'), `kicked: ${reason}`)
  await say('whitelist off')

  // Spawn protection: not an operator, outsider cannot break a block by the spawn.
  bot = await connectBot('outsider')
  // The command trees outsider is sent: the names of the commands in each.
  const trees = []
  bot._client.on('declare_commands', (p) => trees.push(p.nodes[p.rootIndex].children.map((c) => p.nodes[c].extraNodeData.name)))
  await until(() => bot.entity.onGround, 'outsider stands')
  await say('gamemode survival outsider')
  const p = bot.entity.position.floored()
  const byTheSpawn = p.offset(1, 0, 0)
  await say(`fill ${byTheSpawn.x} ${byTheSpawn.y} ${byTheSpawn.z} ${byTheSpawn.x} ${byTheSpawn.y} ${byTheSpawn.z} dirt`)
  await until(() => name(bot, byTheSpawn) === 'dirt', 'the dirt by the spawn is there')
  await bot.dig(bot.blockAt(byTheSpawn)).catch(() => {})
  await untilAnswer(async () => name(bot, byTheSpawn) === 'dirt' || undefined, 'the refused dig is sent back')
  check(!bot.inventory.items().some((i) => i.name === 'dirt'), 'and nothing dropped')

  // Twenty blocks away the same dig works.
  const away = p.offset(20, 0, 0)
  await say(`tp outsider ${away.x + 0.5} ${away.y} ${away.z - 0.5}`)
  await say(`fill ${away.x} ${away.y - 1} ${away.z - 2} ${away.x} ${away.y - 1} ${away.z} stone`)
  await say(`fill ${away.x} ${away.y} ${away.z} ${away.x} ${away.y} ${away.z} dirt`)
  await until(() => bot.entity.position.distanceTo(new Vec3(away.x + 0.5, away.y, away.z - 0.5)) < 2, 'outsider is away from the spawn')
  await until(() => name(bot, away) === 'dirt', 'the dirt away from the spawn is there')
  await bot.dig(bot.blockAt(away))
  await until(() => name(bot, away) === 'air', '20 blocks away the dig stands')

  // An operator may build by the spawn.
  check((await say('op outsider')).startsWith('opped=outsider'), 'outsider is an operator')
  await say(`tp outsider ${p.x + 0.5} ${p.y} ${p.z + 0.5}`)
  await until(() => bot.entity.position.distanceTo(p.offset(0.5, 0, 0.5)) < 2, 'outsider is back by the spawn')
  await bot.dig(bot.blockAt(byTheSpawn))
  await until(() => name(bot, byTheSpawn) === 'air', 'the operator digs by the spawn')

  // The operator is sent the tree of the commands of their level; the server completes them.
  await until(() => trees.length > 0 && trees[trees.length - 1].includes('give'), 'the operator is sent the game commands')
  for (const command of ['setblock', 'summon', 'tp', 'time', 'gamemode', 'kill', 'kick', 'stop', 'msg']) {
    check(trees[trees.length - 1].includes(command), `the operator's tree lists ${command}`)
  }
  const completed = waitFor(bot._client, 'tab_complete', (p) => p.transactionId === 9, 'the completion')
  bot._client.write('tab_complete', { transactionId: 9, text: '/give outs' })
  const [completion] = await completed
  check(completion.start === 6 && completion.matches.map((m) => m.match).join() === 'outsider', `/give outs completes to outsider: ${JSON.stringify(completion)}`)

  // The operator's commands typed in the game: selectors, a target left out, `~`; vanilla's
  // answers, in the client's language.
  const answers = []
  bot.on('message', (m) => answers.push(m.toString()))
  bot.chat('/give @p diamond 3')
  await until(() => bot.inventory.items().some((i) => i.name === 'diamond' && i.count === 3), '/give @p gives the operator diamonds')
  await until(() => answers.includes('Gave 3 [Diamond] to outsider'), `/give answers as vanilla: ${JSON.stringify(answers)}`)
  bot.chat('/gamemode creative')
  await until(() => bot.game.gameMode === 'creative', '/gamemode creative: the operator')
  await until(() => answers.includes('Set own game mode to Creative Mode'), '/gamemode answers as vanilla')
  const here = bot.entity.position.floored()
  bot.chat('/fill ~2 ~ ~ ~2 ~ ~ gold_block')
  await until(() => name(bot, here.offset(2, 0, 0)) === 'gold_block', '/fill at ~2 ~ ~ from the operator')
  bot.chat('/setblock ~3 ~ ~ minecraft:oak_stairs[facing=east,half=top]')
  await until(() => name(bot, here.offset(3, 0, 0)) === 'oak_stairs', '/setblock ~3 ~ ~ with a block state')
  const stairs = bot.blockAt(here.offset(3, 0, 0)).getProperties()
  check(stairs.facing === 'east' && stairs.half === 'top', `the stairs face east, upside down: ${JSON.stringify(stairs)}`)
  await until(() => answers.includes(`Changed the block at ${here.x + 3}, ${here.y}, ${here.z}`), '/setblock answers as vanilla')
  bot.chat('/summon minecraft:zombie ~5 ~ ~')
  await until(() => answers.includes('Summoned new Zombie'), '/summon minecraft:zombie ~5 ~ ~')
  await until(() => Object.values(bot.entities).some((e) => e.name === 'zombie' && e.position.distanceTo(here.offset(5, 0, 0)) < 3), 'the zombie stands 5 blocks away')
  bot.chat('/kill @e[type=zombie,distance=..20]')
  await until(() => answers.includes('Killed Zombie'), '/kill @e[type=zombie,distance=..20]')
  await until(() => !Object.values(bot.entities).some((e) => e.name === 'zombie' && e.position.distanceTo(here) < 20), 'the zombie is gone')
  bot.chat('/time set night')
  await until(() => answers.includes('Set the time to 13000'), '/time set night')
  bot.chat('/time set day')
  await until(() => answers.includes('Set the time to 1000'), '/time set day')
  // Whatever came in the dark goes.
  bot.chat('/kill @e[type=zombie]')
  bot.chat('/tp @s ~ ~10 ~')
  await until(() => bot.entity.position.y > here.y + 9, '/tp @s ~ ~10 ~')
  bot.chat('/gamemode survival @s')
  await until(() => bot.game.gameMode === 'survival' && answers.includes('Set own game mode to Survival Mode'), '/gamemode survival @s')
  bot.chat('/xp add @s 5 levels')
  await until(() => bot.experience.level === 5, '/xp add @s 5 levels')
  await until(() => answers.includes('Gave 5 experience levels to outsider'), '/xp answers as vanilla')
  bot.chat('/tellraw @a {"text":"the gate is shut","color":"gold"}')
  await until(() => answers.includes('the gate is shut'), '/tellraw @a')
  bot.chat('/gamerule naturalRegeneration false')
  await until(() => answers.includes('Gamerule naturalRegeneration is now set to: false'), '/gamerule naturalRegeneration false')
  // keepInventory: a vanilla client respawns empty-handed, so the server sends what was kept
  // again (mineflayer keeps its own copy: the packets are watched).
  bot.chat('/gamerule keepInventory true')
  await until(() => answers.includes('Gamerule keepInventory is now set to: true'), '/gamerule keepInventory true')
  const resent = { revived: false, diamonds: false, level: false }
  bot.once('respawn', () => { resent.revived = true })
  const slot = (p) => { if (resent.revived && p.windowId === 0 && p.item && p.item.itemCount === 3) resent.diamonds = true }
  const bar = (p) => { if (resent.revived && p.level === 5) resent.level = true }
  bot._client.on('set_slot', slot)
  bot._client.on('experience', bar)
  bot.chat('/kill @s')
  await until(() => resent.diamonds && resent.level, 'after dying the kept diamonds and levels are sent again')
  bot._client.removeListener('set_slot', slot)
  bot._client.removeListener('experience', bar)
  bot.chat('/gamerule keepInventory false')
  await until(() => answers.includes('Gamerule keepInventory is now set to: false'), '/gamerule keepInventory false')
  // The world spawn where the operator stands: answered, and the client's compass told.
  const oldSpawn = bot.spawnPoint.clone()
  const feet = bot.entity.position.floored()
  bot.chat('/setworldspawn')
  await until(() => answers.includes(`Set the world spawn point to ${feet.x}, ${feet.y}, ${feet.z} [0.0]`), `/setworldspawn answers as vanilla: ${JSON.stringify(answers.slice(-2))}`)
  await until(() => bot.spawnPoint.equals(feet), '/setworldspawn: the compass points there')
  bot.chat(`/setworldspawn ${oldSpawn.x} ${oldSpawn.y} ${oldSpawn.z}`)
  await until(() => bot.spawnPoint.equals(oldSpawn), 'the spawn set back')
  // An effect the client shows and moves by, and off again.
  bot.chat('/effect give @s minecraft:speed 30 1')
  await until(() => bot.entity.effects[1] && bot.entity.effects[1].amplifier === 1, '/effect give: the client shows Speed II')
  await until(() => answers.some((a) => a.startsWith('Applied effect Speed to outsider')), `/effect answers as vanilla: ${JSON.stringify(answers.slice(-2))}`)
  bot.chat('/effect clear @s')
  await until(() => !bot.entity.effects[1], '/effect clear: the client shows none')
  // A sound and particles where the operator stands.
  const sounds = []
  bot.on('soundEffectHeard', (name) => sounds.push(name))
  bot.chat('/playsound minecraft:entity.zombie.ambient hostile @s')
  await until(() => sounds.some((n) => n.includes('entity.zombie.ambient')), `/playsound: the client hears it: ${JSON.stringify(sounds)}`)
  await until(() => answers.includes('Played sound minecraft:entity.zombie.ambient to outsider'), '/playsound answers as vanilla')
  const seen = []
  bot.on('particle', (p) => seen.push(p))
  bot.chat('/particle minecraft:flame ~ ~1 ~ 0.2 0.2 0.2 0 7')
  await until(() => seen.some((p) => p.count === 7), '/particle: the client is shown seven')
  // A boss bar, shown to the operator (its selector taken whole), then removed.
  const siegeBar = { created: null, deleted: false }
  bot.on('bossBarCreated', (b) => { siegeBar.created = b })
  bot.on('bossBarDeleted', () => { siegeBar.deleted = true })
  bot.chat('/bossbar add siege {"text":"The siege"}')
  bot.chat('/bossbar set siege value 50')
  bot.chat('/bossbar set siege players @a')
  await until(() => siegeBar.created && siegeBar.created.title.toString().includes('The siege') && Math.abs(siegeBar.created.health - 0.5) < 1e-6,
    '/bossbar: the bar appears half full')
  await until(() => answers.includes('Custom bossbar [minecraft:siege] now has 1 player(s): outsider'), `/bossbar answers as vanilla: ${JSON.stringify(answers.slice(-3))}`)
  bot.chat('/bossbar remove siege')
  await until(() => siegeBar.deleted, '/bossbar remove: the bar goes')
  await until(() => answers.includes('Displaying particle minecraft:flame'), `/particle answers as vanilla: ${JSON.stringify(answers.slice(-3))}`)
  await say('deop outsider')
  await until(() => !trees[trees.length - 1].includes('give'), 'deopped: the tree has no game commands')
  bot.chat('/give @s diamond 1')
  await until(() => answers.some((a) => a.startsWith('Unknown or incomplete command')), 'no longer an operator: the command is unknown')
  check(bot.inventory.items().filter((i) => i.name === 'diamond').reduce((n, i) => n + i.count, 0) === 3, 'and nothing given')

  // Commands refuse what vanilla refuses.
  const refusals = [
    ['tp outsider 1e308 64 0', 'Invalid position for teleport'],
    ['tp outsider 30000000 64 0', 'Invalid position for teleport'],
    ['summon zombie 1e9 64 1e9', 'Invalid position for summon'],
    ['fill 0 400 0 1 401 1 stone', 'out of this world'],
    ['give outsider stone 6401', "Can't give more than 6400 of stone"],
    ['give outsider diamond_sword 101', "Can't give more than 100 of diamond_sword"],
    ['damage outsider -1', 'Amount must not be less than 0.0'],
    ['damage outsider NaN', 'usage: damage'],
    ['tp nobody 0 64 0', 'no player named nobody'],
    ['kick nobody', 'no player named nobody']
  ]
  for (const [line, expected] of refusals) {
    const answer = await say(line)
    check(answer.includes(expected), `${line}: ${answer}`)
  }
  const lots = await say('give outsider stone 6400')
  check(lots.includes('given=stone count=6400') && !lots.includes('dropped=0'), `an inventory takes what fits, the rest falls: ${lots}`)

  // Chat between two players.
  const told = []
  bot.on('message', (m) => told.push(m.toString()))
  const listener = await connectBot('listener')
  await until(() => told.includes('listener joined the game'), 'outsider is told listener joined')
  const heard = []
  listener.on('message', (m) => heard.push({ json: JSON.stringify(m.json), text: m.toString() }))
  bot.chat('hello from outsider')
  await until(() => heard.some((h) => h.text === '<outsider> hello from outsider'), 'the listener reads the line')
  check(heard.some((h) => h.json.includes('chat.type.text')), `as vanilla's chat line: ${JSON.stringify(heard)}`)
  listener.chat('/msg outsider see you at dusk')
  await until(() => told.includes('listener whispers to you: see you at dusk'), 'a player who is no operator whispers')
  listener.quit()
  await until(() => told.includes('listener left the game'), 'outsider is told listener left')
  bot.quit()
  await rcon.end()
  return { refusals: refusals.length }
})

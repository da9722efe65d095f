// A real client sees the weather. Step `change`: `weather rain` makes the client report rain
// (vanilla's start-raining event and a rising rain level), `weather clear` ends it, and the
// rain is set again before the restart. Step `after-restart`: a client joining the restarted
// server is told it is raining. mineflayer 4.25 compares this packet's reason with numbers
// while its protocol data names them, so the script reads the packet itself.
'use strict'

const { connectBot, rconClient, until, check, log, scenario } = require('./lib')

function watchSky (bot) {
  const sky = { raining: false, rainLevel: 0, events: [] }
  bot._client.on('game_state_change', (packet) => {
    if (packet.reason === 'start_raining') sky.raining = true
    else if (packet.reason === 'stop_raining') sky.raining = false
    else if (packet.reason === 'rain_level_change') sky.rainLevel = packet.gameMode
    else return
    sky.events.push(packet.reason)
  })
  return sky
}

scenario(async () => {
  const rcon = await rconClient()
  let sky
  const bot = await connectBot('skywatcher', (b) => { sky = watchSky(b) })
  if (process.env.HORDE_STEP === 'after-restart') {
    await until(() => sky.raining && sky.rainLevel > 0.2, 'the joining client is told it rains')
    const answer = await rcon.send('weather')
    check(answer.startsWith('weather=rain'), `the server says so too: ${answer}`)
  } else {
    await until(() => bot.entity && bot.entity.onGround, 'the client stands')
    check(!sky.raining, 'a clear sky at first')
    log(await rcon.send('weather rain'))
    await until(() => sky.raining, 'the client reports rain')
    await until(() => sky.rainLevel >= 1, 'the rain reaches full strength')
    log(await rcon.send('weather clear'))
    await until(() => !sky.raining, 'the rain ends for the client')
    await until(() => sky.rainLevel === 0, 'the rain level falls to nothing')
    log(await rcon.send('weather rain 1000'))
    await until(() => sky.raining && sky.rainLevel >= 1, 'raining again')
  }
  bot.quit()
  await rcon.end()
  return { events: sky.events.filter((e) => e !== 'rain_level_change') }
})

// A real client sees the weather. Step `change`: `weather rain` makes the client report rain
// (vanilla's start-raining event and a rising rain level), `weather clear` ends it, and the
// rain is set again before the restart. Step `after-restart`: a client joining the restarted
// server is told it is raining. The script reads the game event packets' raw bytes, not a
// library's names for them: the ids are the 1.20.1 client's own (ClientboundGameEventPacket:
// START_RAINING = 1, STOP_RAINING = 2, RAIN_LEVEL_CHANGE = 7; its ClientPacketListener starts
// the rain on 1 and stops it on 2).
'use strict'

const { connectBot, rconClient, until, check, log, scenario } = require('./lib')

const START_RAINING = 1
const STOP_RAINING = 2
const RAIN_LEVEL_CHANGE = 7

function watchSky (bot) {
  const sky = { raining: false, rainLevel: 0, events: [] }
  bot._client.on('raw.game_state_change', (buffer) => {
    // The packet id (one byte of VarInt, 0x1f), the event as a byte, its value as a float.
    check(buffer[0] === 0x1f && buffer.length === 6, `a game event packet: ${buffer.toString('hex')}`)
    const [event, value] = [buffer[1], buffer.readFloatBE(2)]
    if (event === START_RAINING) sky.raining = true
    else if (event === STOP_RAINING) sky.raining = false
    else if (event === RAIN_LEVEL_CHANGE) sky.rainLevel = value
    else return
    sky.events.push(event)
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
  return { events: sky.events.filter((e) => e !== RAIN_LEVEL_CHANGE) }
})

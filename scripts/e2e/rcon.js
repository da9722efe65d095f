// RCON with a real client library: a wrong password is refused, the right one runs commands,
// and malformed commands get a usage line.
'use strict'

const { rconClient, check, scenario } = require('./lib')

scenario(async () => {
  let refused = false
  try {
    const wrong = await rconClient('not-the-password')
    await wrong.end()
  } catch (err) {
    refused = /Authentication failed/.test(err.message)
  }
  check(refused, 'a wrong password is refused')

  const rcon = await rconClient()
  const time = await rcon.send('time query')
  check(/^daytime=\d+ day=\d+ gametime=\d+/.test(time), `time query: ${time}`)
  const set = await rcon.send('time set midnight')
  check(/daytime=18000/.test(set), `time set: ${set}`)
  const tps = await rcon.send('tps')
  // Paper's wording, which operators' RCON tools read.
  check(/^TPS from last 1m, 5m, 15m: \*?\d+\.\d+, \*?\d+\.\d+, \*?\d+\.\d+$/.test(tps), `tps: ${tps}`)
  const mspt = await rcon.send('mspt')
  check(/^Server tick times \(avg\/min\/max\) from last 5s, 10s, 1m:\n◴ (\d+\.\d\/\d+\.\d\/\d+\.\d(, )?){3}$/.test(mspt), `mspt: ${mspt}`)
  const chunks = await rcon.send('chunks')
  check(/load_p50=\S+ load_p90=\S+ load_p99=\S+ load_max=\S+/.test(chunks), `chunks: ${chunks}`)
  const usage = await rcon.send('tp nobody 1 2')
  check(usage === 'usage: tp <location> | tp <targets> <location>', `malformed tp: ${usage}`)
  const unknown = await rcon.send('frobnicate')
  check(/^unknown command/.test(unknown), `unknown command: ${unknown}`)
  const missing = await rcon.send('kill nobody')
  check(/no player named nobody/.test(missing), `missing player: ${missing}`)
  const help = await rcon.send('help')
  check(help.includes('time set') && help.includes('chunks'), 'help lists the commands')
  await rcon.end()
  return { time, tps, chunks }
})

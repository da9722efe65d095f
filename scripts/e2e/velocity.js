// Behind Velocity (server.connection_mode = "velocity"): a client playing the proxy's part with
// the right secret joins under the forwarded UUID; a wrong secret and a direct client without
// forwarding are refused before they join, each told why.
'use strict'

const { LeanClient } = require('../load/lean-client')
const { scenario, check, log, WAIT_MS } = require('./lib')

const port = Number(process.env.HORDE_PORT)
const secret = process.env.HORDE_VELOCITY_SECRET
const uuid = '4f2a6c1e8b3d4e5fa1b2c3d4e5f60718'

// Resolves with the client once it has joined, or with the reason it never did.
function attempt (username, forwarding) {
  return new Promise((resolve) => {
    const client = new LeanClient({ host: '127.0.0.1', port, username, forwarding })
    const timer = setTimeout(() => { client.end(); resolve({ joined: false, why: 'timeout' }) }, WAIT_MS)
    client.once('spawn', () => { clearTimeout(timer); resolve({ joined: true, client }) })
    client.once('error', (err) => { clearTimeout(timer); client.end(); resolve({ joined: false, why: String(err.message) }) })
    client.once('end', () => { clearTimeout(timer); resolve({ joined: false, why: 'closed' }) })
  })
}

scenario(async () => {
  const proxied = await attempt('Proxied', { secret, uuid, address: '203.0.113.7' })
  check(proxied.joined, 'the proxy with the secret gets its player in')
  check(proxied.client.profile.uuid === uuid, `the forwarded UUID is used (${proxied.client.profile.uuid})`)
  check(proxied.client.profile.name === 'Proxied', 'under the forwarded name')

  const forged = await attempt('Forged', { secret: secret + 'x', uuid, address: '203.0.113.8' })
  log(`wrong secret: ${forged.why}`)
  check(!forged.joined, 'a wrong secret is refused')
  check(forged.why.includes('Unable to verify player details'), 'with the proxy\'s usual message')
  const direct = await attempt('Direct', null)
  log(`direct: ${direct.why}`)
  check(!direct.joined, 'a client that bypasses the proxy is refused')
  check(direct.why.includes('join through the network'), 'and told to join through the proxy')
  proxied.client.end()
  return {}
})

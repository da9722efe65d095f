// A lean Minecraft 1.20.1 client for load tests: it logs in offline, answers keep-alives and
// teleports, respawns, sends its moves, hits, digs and places as a player's client does, and
// counts what it receives. Of the compressed packets it inflates only the chunks near where
// it walks, once for every client in the process (see terrain.js), to know where the ground
// is; it reads the small packets, which carry every entity update, so one Node process holds
// a hundred of them. Packet ids are protocol 763's.
'use strict'

const crypto = require('crypto')
const net = require('net')
const zlib = require('zlib')
const { EventEmitter } = require('events')
const { Terrain } = require('./terrain')

const PROTOCOL = 763
const ZOMBIE_TYPE = 118

// Clientbound play packets read here.
const S2C = {
  spawnEntity: 0x01,
  animation: 0x04,
  blockChange: 0x0a,
  unloadChunk: 0x1e,
  damageEvent: 0x18,
  kick: 0x1a,
  entityStatus: 0x1c,
  hurtAnimation: 0x21,
  keepAlive: 0x23,
  moveRel: 0x2b,
  moveLook: 0x2c,
  look: 0x2d,
  position: 0x3c,
  destroy: 0x3e,
  respawn: 0x41,
  headRotation: 0x42,
  metadata: 0x52,
  velocity: 0x54,
  equipment: 0x55,
  health: 0x57,
  teleport: 0x68,
  attributes: 0x6a,
  effect: 0x6c,
  chunk: 0x24
}
// Serverbound play packets sent here.
const C2S = {
  confirmTeleport: 0x00,
  clientCommand: 0x07,
  settings: 0x08,
  interact: 0x10,
  keepAlive: 0x12,
  position: 0x14,
  playerAction: 0x1d,
  swing: 0x2f,
  useItemOn: 0x31
}
// Chunks within this many chunks of where a client is or is sent are read for their ground.
const GROUND_RADIUS = 5
// Zombie traffic is broken down by what it says.
const KIND = {
  [S2C.spawnEntity]: 'spawn',
  [S2C.destroy]: 'destroy',
  [S2C.moveRel]: 'move',
  [S2C.moveLook]: 'moveAndTurn',
  [S2C.teleport]: 'teleport',
  [S2C.look]: 'turn',
  [S2C.headRotation]: 'head',
  [S2C.metadata]: 'metadata',
  [S2C.equipment]: 'metadata'
}
// Packets about one entity whose first field is its id as a varint.
const ENTITY_VARINT = new Set([S2C.animation, S2C.damageEvent, S2C.hurtAnimation, S2C.moveRel,
  S2C.moveLook, S2C.look, S2C.headRotation, S2C.metadata, S2C.velocity, S2C.equipment,
  S2C.teleport, S2C.attributes, S2C.effect])

// Zombie traffic is also broken down by distance: these bands' upper bounds, in blocks.
const BANDS = [16, 32, 48, 64, 96]

function distanceBand (distance) {
  const upper = BANDS.find((b) => distance < b)
  return upper ? `<${upper}` : `>=${BANDS[BANDS.length - 1]}`
}

function varint (value) {
  const bytes = []
  let v = value >>> 0
  do {
    let b = v & 0x7f
    v >>>= 7
    if (v !== 0) b |= 0x80
    bytes.push(b)
  } while (v !== 0)
  return Buffer.from(bytes)
}

// Reads a varint at `offset`: [value, next offset], or null if the buffer ends first.
function readVarint (buf, offset) {
  let value = 0
  for (let i = 0; i < 5; i++) {
    if (offset + i >= buf.length) return null
    const b = buf[offset + i]
    value |= (b & 0x7f) << (7 * i)
    if ((b & 0x80) === 0) return [value, offset + i + 1]
  }
  throw new Error('varint longer than 5 bytes')
}

function string (s) {
  const bytes = Buffer.from(s, 'utf8')
  return Buffer.concat([varint(bytes.length), bytes])
}

function f64 (v) {
  const b = Buffer.alloc(8)
  b.writeDoubleBE(v)
  return b
}

function f32 (v) {
  const b = Buffer.alloc(4)
  b.writeFloatBE(v)
  return b
}

// A block position as the protocol packs it: x and z in 26 bits, y in 12.
function position ([x, y, z]) {
  const b = Buffer.alloc(8)
  b.writeBigUInt64BE(((BigInt(x) & 0x3ffffffn) << 38n) | ((BigInt(z) & 0x3ffffffn) << 12n) | (BigInt(y) & 0xfffn))
  return b
}

function readPosition (buf, at) {
  const v = buf.readBigInt64BE(at)
  return [Number(v >> 38n), Number(BigInt.asIntN(12, v)), Number(BigInt.asIntN(26, v >> 12n))]
}

// Velocity's modern forwarding answer (version 1): the player's address, UUID, name and no
// properties, signed with HMAC-SHA256 under the shared secret, as a proxy sends it.
function forwardingAnswer ({ secret, uuid, address }, username) {
  const payload = Buffer.concat([varint(1), string(address), Buffer.from(uuid.replace(/-/g, ''), 'hex'),
    string(username), varint(0)])
  const signature = crypto.createHmac('sha256', secret).update(payload).digest()
  return Buffer.concat([signature, payload])
}

class LeanClient extends EventEmitter {
  // `forwarding` ({ secret, uuid, address }) makes the client play a Velocity proxy's part.
  // `terrain` (a Terrain shared by the process's clients) has the client read the ground.
  constructor ({ host, port, username, viewDistance = 10, forwarding = null, terrain = null }) {
    super()
    this.username = username
    this.terrain = terrain
    this.sequence = 0
    this.forwarding = forwarding
    this.viewDistance = viewDistance
    this.state = 'login'
    this.compression = -1
    this.pending = Buffer.alloc(0)
    this.pos = null
    // Each zombie in view, by entity id, with where it stands ([x, y, z]).
    this.zombies = new Map()
    this.stats = { bytes: 0, zombieBytes: 0, packets: 0, compressed: 0, deaths: 0, teleports: 0, blockChanges: 0, zombieKinds: {}, zombieBands: {} }
    this.socket = net.connect({ host, port }, () => {
      this.send(0x00, Buffer.concat([varint(PROTOCOL), string(host), Buffer.from([port >> 8, port & 0xff]), varint(2)]))
      this.send(0x00, Buffer.concat([string(username), Buffer.from([0])]))
    })
    this.socket.setNoDelay(true)
    this.socket.on('data', (data) => this.receive(data))
    this.socket.on('error', (err) => this.emit('error', err))
    this.socket.on('close', () => this.emit('end'))
  }

  send (id, body) {
    if (this.socket.destroyed) return
    let payload = Buffer.concat([varint(id), body])
    // Below the threshold a packet goes uncompressed, marked by a data length of 0; ours
    // are all small.
    if (this.compression >= 0) payload = Buffer.concat([varint(0), payload])
    this.socket.write(Buffer.concat([varint(payload.length), payload]))
  }

  receive (data) {
    this.stats.bytes += data.length
    this.pending = this.pending.length ? Buffer.concat([this.pending, data]) : data
    let offset = 0
    for (;;) {
      const length = readVarint(this.pending, offset)
      if (!length || length[1] + length[0] > this.pending.length) break
      const [size, start] = length
      this.frame(this.pending.subarray(start, start + size), start + size - offset)
      offset = start + size
    }
    this.pending = this.pending.subarray(offset)
  }

  frame (payload, wireBytes) {
    let offset = 0
    if (this.compression >= 0) {
      const [dataLength, next] = readVarint(payload, 0)
      if (dataLength !== 0) {
        this.stats.compressed += wireBytes
        if (this.terrain && this.state === 'play') this.compressedFrame(payload.subarray(next))
        return
      }
      offset = next
    }
    const [id, body] = readVarint(payload, offset)
    this.stats.packets++
    if (this.state === 'login') this.login(id, payload.subarray(body))
    else this.play(id, payload.subarray(body), wireBytes)
  }

  // A chunk near where the client walks, not read yet: its ground for every client.
  compressedFrame (compressed) {
    const chunk = Terrain.peekChunk(compressed)
    if (!chunk || this.terrain.has(...chunk) || !this.near(chunk)) return
    const payload = zlib.inflateSync(compressed)
    this.terrain.read(payload.subarray(readVarint(payload, 0)[1]))
  }

  // Near the client (any chunk, before it knows where it is: the spawn's come first) or any
  // of the places the harness sends players (`terrain.anchors`).
  near ([cx, cz]) {
    const close = (p) => Math.abs((Math.floor(p[0]) >> 4) - cx) <= GROUND_RADIUS &&
      Math.abs((Math.floor(p[2]) >> 4) - cz) <= GROUND_RADIUS
    return !this.pos || close(this.pos) || this.terrain.anchors.some(close)
  }

  login (id, body) {
    if (id === 0x03) {
      this.compression = readVarint(body, 0)[0]
    } else if (id === 0x02) {
      // Login success: the profile the server settled on.
      const [nameLength, at] = readVarint(body, 16)
      this.profile = { uuid: body.subarray(0, 16).toString('hex'), name: body.toString('utf8', at, at + nameLength) }
      this.state = 'play'
    } else if (id === 0x00) {
      this.emit('error', new Error(`${this.username} refused: ${body.toString('utf8', 1)}`))
    } else if (id === 0x04) {
      // A login plugin request: only Velocity's is answered, and only when forwarding.
      const [messageId, at] = readVarint(body, 0)
      const [channelLength, channelAt] = readVarint(body, at)
      const channel = body.toString('utf8', channelAt, channelAt + channelLength)
      const answer = this.forwarding && channel === 'velocity:player_info'
        ? Buffer.concat([Buffer.from([1]), forwardingAnswer(this.forwarding, this.username)])
        : Buffer.from([0])
      this.send(0x02, Buffer.concat([varint(messageId), answer]))
    }
  }

  play (id, body, wireBytes) {
    if (id === S2C.keepAlive) {
      this.send(C2S.keepAlive, body.subarray(0, 8))
    } else if (id === S2C.unloadChunk) {
      // A client forgets the entities of a chunk it unloads.
      const [cx, cz] = [body.readInt32BE(0), body.readInt32BE(4)]
      for (const [entity, [x, , z]] of this.zombies) {
        if (Math.floor(x / 16) === cx && Math.floor(z / 16) === cz) this.zombies.delete(entity)
      }
    } else if (id === S2C.blockChange) {
      this.stats.blockChanges++
      if (this.terrain) this.terrain.changed(...readPosition(body, 0), readVarint(body, 8)[0])
    } else if (id === S2C.position) {
      this.teleported(body)
    } else if (id === S2C.health) {
      if (body.readFloatBE(0) <= 0) {
        this.stats.deaths++
        this.send(C2S.clientCommand, varint(0))
        this.emit('death')
      }
    } else if (id === S2C.respawn) {
      // The client forgets every entity on respawn; the server sends those in view again.
      this.zombies.clear()
    } else if (id === S2C.kick) {
      this.emit('error', new Error(`${this.username} kicked`))
    } else if (id === S2C.spawnEntity) {
      const [entity, next] = readVarint(body, 0)
      const [type, at] = readVarint(body, next + 16)
      if (type === ZOMBIE_TYPE) {
        this.zombies.set(entity, [body.readDoubleBE(at), body.readDoubleBE(at + 8), body.readDoubleBE(at + 16)])
        this.zombieTraffic(id, wireBytes, entity)
      }
    } else if (id === S2C.destroy) {
      let [count, at] = readVarint(body, 0)
      let zombie = false
      while (count-- > 0) {
        const [entity, next] = readVarint(body, at)
        at = next
        if (this.zombies.has(entity)) {
          if (!zombie) this.zombieTraffic(id, wireBytes, entity)
          zombie = true
          this.zombies.delete(entity)
        }
      }
    } else if (ENTITY_VARINT.has(id) || id === S2C.entityStatus) {
      const [entity, at] = id === S2C.entityStatus ? [body.readInt32BE(0), 4] : readVarint(body, 0)
      const where = this.zombies.get(entity)
      if (!where) return
      this.zombieTraffic(id, wireBytes, entity)
      if (id === S2C.moveRel || id === S2C.moveLook) {
        for (let axis = 0; axis < 3; axis++) where[axis] += body.readInt16BE(at + 2 * axis) / 4096
      } else if (id === S2C.teleport) {
        for (let axis = 0; axis < 3; axis++) where[axis] = body.readDoubleBE(at + 8 * axis)
      }
    }
  }

  // Counts a zombie's packet by its kind and by how far the zombie stands from this client.
  zombieTraffic (id, wireBytes, entity) {
    const kind = KIND[id] || 'other'
    this.stats.zombieBytes += wireBytes
    this.stats.zombieKinds[kind] = (this.stats.zombieKinds[kind] || 0) + wireBytes
    const where = this.zombies.get(entity)
    if (where && this.pos) {
      const band = distanceBand(Math.hypot(where[0] - this.pos[0], where[2] - this.pos[2]))
      this.stats.zombieBands[band] = (this.stats.zombieBands[band] || 0) + wireBytes
    }
  }

  // How many zombies in view stand in each distance band from this client.
  zombiesByBand () {
    const counts = {}
    if (!this.pos) return counts
    for (const [x, , z] of this.zombies.values()) {
      const band = distanceBand(Math.hypot(x - this.pos[0], z - this.pos[2]))
      counts[band] = (counts[band] || 0) + 1
    }
    return counts
  }

  teleported (body) {
    const flags = body.readInt8(32)
    const axis = (i, bit) => body.readDoubleBE(i * 8) + ((flags & bit) && this.pos ? this.pos[i] : 0)
    this.pos = [axis(0, 0x01), axis(1, 0x02), axis(2, 0x04)]
    this.send(C2S.confirmTeleport, varint(readVarint(body, 33)[0]))
    this.stats.teleports++
    if (this.stats.teleports === 1) {
      // Settings after the first position, as the vanilla client: locale, view distance, chat,
      // colours, skin parts, main hand, text filtering, server listing.
      this.send(C2S.settings, Buffer.concat([string('en_us'), Buffer.from([this.viewDistance]), varint(0),
        Buffer.from([1, 0x7f]), varint(1), Buffer.from([0, 1])]))
      this.emit('spawn')
    }
    this.emit('teleported')
  }

  // Moves to `pos` on the ground, as a client does every tick.
  moveTo (pos) {
    this.pos = pos
    this.send(C2S.position, Buffer.concat([f64(pos[0]), f64(pos[1]), f64(pos[2]), Buffer.from([1])]))
  }

  // The nearest zombie in view within `reach` blocks of the client's feet: [id, distance].
  nearestZombie (reach) {
    let best = null
    if (!this.pos) return best
    for (const [id, [x, y, z]] of this.zombies) {
      const d = Math.hypot(x - this.pos[0], y - this.pos[1], z - this.pos[2])
      if (d <= reach && (!best || d < best[1])) best = [id, d]
    }
    return best
  }

  // A blow at entity `id` with the main hand, and the arm's swing, as a click sends them.
  attack (id) {
    this.send(C2S.interact, Buffer.concat([varint(id), varint(1), Buffer.from([0])]))
    this.send(C2S.swing, varint(0))
  }

  // The held item used on the top face of block `at`: places a block on it.
  placeOnTop (at) {
    this.send(C2S.useItemOn, Buffer.concat([varint(0), position(at), varint(1), f32(0.5), f32(1), f32(0.5),
      Buffer.from([0]), varint(++this.sequence)]))
    this.send(C2S.swing, varint(0))
  }

  // Starts (status 0) or finishes (2) digging block `at` from its top face.
  dig (status, at) {
    this.send(C2S.playerAction, Buffer.concat([varint(status), position(at), Buffer.from([1]), varint(++this.sequence)]))
    this.send(C2S.swing, varint(0))
  }

  end () {
    this.socket.destroy()
  }
}

// Resolves with a client of the server on loopback `port` once it has spawned.
function connectLeanOnce (port, username, terrain) {
  return new Promise((resolve, reject) => {
    const client = new LeanClient({ host: '127.0.0.1', port, username, terrain })
    const timer = setTimeout(() => reject(new Error(`${username} did not spawn`)), 120000)
    client.once('spawn', () => { clearTimeout(timer); resolve(client) })
    client.once('error', (err) => { clearTimeout(timer); reject(err) })
  })
}

// The server logs its address before its network thread listens: retry a refused connection.
async function connectLean (port, username, terrain = null) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await connectLeanOnce(port, username, terrain)
    } catch (err) {
      if (err.code !== 'ECONNREFUSED' || attempt >= 50) throw err
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
}

module.exports = { LeanClient, connectLean, BANDS }

// Where the ground is, for the lean clients: the top of each column of the chunks the server
// sends, read from the chunk packets' block sections (protocol 763's paletted containers), so
// the clients walk on the ground as players do. One map is shared by every client in the
// process (they see the same world) and a chunk is read once, by the first client that gets it.
'use strict'

const zlib = require('zlib')
const blocks = require('minecraft-data')('1.20.1').blocksArray

// The overworld's floor: chunk sections are sent from here up.
const MIN_Y = -64
const PASSABLE = 0
const SOLID = 1
const LIQUID = 2
const UNKNOWN = -32768

// Each block state's kind, by state id: solid where a player stands (minecraft-data's bounding
// box), liquid for water and lava, passable for the rest (air, grass, flowers, torches).
const KIND = new Uint8Array(blocks.reduce((max, b) => Math.max(max, b.maxStateId), 0) + 1)
for (const b of blocks) {
  const kind = b.name === 'water' || b.name === 'lava' ? LIQUID : b.boundingBox === 'block' ? SOLID : PASSABLE
  KIND.fill(kind, b.minStateId, b.maxStateId + 1)
}

function kindOf (state) {
  return state < KIND.length ? KIND[state] : SOLID
}

// Reads a varint at `at`: [value, next offset].
function varint (buf, at) {
  let value = 0
  for (let i = 0; i < 5; i++) {
    const b = buf[at + i]
    value |= (b & 0x7f) << (7 * i)
    if ((b & 0x80) === 0) return [value >>> 0, at + i + 1]
  }
  throw new Error('varint longer than 5 bytes')
}

// Skips an NBT payload of tag `type` at `at`; returns the offset after it.
function skipNbt (buf, type, at) {
  switch (type) {
    case 0: return at
    case 1: return at + 1
    case 2: return at + 2
    case 3: case 5: return at + 4
    case 4: case 6: return at + 8
    case 7: return at + 4 + buf.readInt32BE(at)
    case 8: return at + 2 + buf.readUInt16BE(at)
    case 9: {
      const inner = buf[at]
      const count = buf.readInt32BE(at + 1)
      let p = at + 5
      for (let i = 0; i < count; i++) p = skipNbt(buf, inner, p)
      return p
    }
    case 10: {
      let p = at
      for (;;) {
        const inner = buf[p++]
        if (inner === 0) return p
        p += 2 + buf.readUInt16BE(p)
        p = skipNbt(buf, inner, p)
      }
    }
    case 11: return at + 4 + 4 * buf.readInt32BE(at)
    case 12: return at + 4 + 8 * buf.readInt32BE(at)
    default: throw new Error(`NBT tag ${type}`)
  }
}

// A paletted container at `at`: what is needed to read entry i, and the offset after it.
// `direct` is the bits an entry takes when the palette is left out (blocks 15, biomes 6).
function container (buf, at, maxIndirect) {
  const bits = buf[at++]
  let palette = null
  let single = null
  if (bits === 0) {
    ;[single, at] = varint(buf, at)
  } else if (bits <= maxIndirect) {
    let length
    ;[length, at] = varint(buf, at)
    palette = new Array(length)
    for (let i = 0; i < length; i++) [palette[i], at] = varint(buf, at)
  }
  let longs
  ;[longs, at] = varint(buf, at)
  const data = at
  return { bits, single, palette, data, next: at + 8 * longs }
}

// Entry `i` of a container with bits > 0: entries do not span longs (since 1.16).
function entry (buf, c, i) {
  const perLong = Math.floor(64 / c.bits)
  const long = c.data + 8 * Math.floor(i / perLong)
  const offset = (i % perLong) * c.bits
  const mask = (1 << c.bits) - 1
  const hi = buf.readUInt32BE(long)
  const lo = buf.readUInt32BE(long + 4)
  let value
  if (offset + c.bits <= 32) value = (lo >>> offset) & mask
  else if (offset >= 32) value = (hi >>> (offset - 32)) & mask
  else value = ((lo >>> offset) | (hi << (32 - offset))) & mask
  return c.palette ? c.palette[value] : value
}

class Terrain {
  constructor () {
    // By chunk key: the ground's y (one above the top solid or liquid block) per column,
    // z * 16 + x, and whether that top is a liquid.
    this.chunks = new Map()
    // Where players are sent: chunks near these are read whichever client gets them.
    this.anchors = []
  }

  static key (cx, cz) {
    return `${cx},${cz}`
  }

  has (cx, cz) {
    return this.chunks.has(Terrain.key(cx, cz))
  }

  // Reads the ground of a chunk packet's body (after its id): [cx, cz].
  read (body) {
    const cx = body.readInt32BE(0)
    const cz = body.readInt32BE(4)
    if (this.has(cx, cz)) return [cx, cz]
    let at = 8
    // Heightmaps: one named NBT compound (empty from Valence).
    const type = body[at++]
    if (type !== 0) at = skipNbt(body, type, at + 2 + body.readUInt16BE(at))
    let size
    ;[size, at] = varint(body, at)
    const end = at + size
    const sections = []
    while (at < end) {
      const blocks = container(body, at + 2, 8)
      const biomes = container(body, blocks.next, 3)
      sections.push(blocks)
      at = biomes.next
    }
    const ground = new Int16Array(256).fill(UNKNOWN)
    const liquid = new Uint8Array(256)
    let open = 256
    for (let s = sections.length - 1; s >= 0 && open > 0; s--) {
      const c = sections[s]
      const base = MIN_Y + 16 * s
      if (c.bits === 0) {
        const kind = kindOf(c.single)
        if (kind === PASSABLE) continue
        for (let col = 0; col < 256; col++) {
          if (ground[col] !== UNKNOWN) continue
          ground[col] = base + 16
          liquid[col] = kind === LIQUID ? 1 : 0
          open--
        }
        continue
      }
      for (let col = 0; col < 256; col++) {
        if (ground[col] !== UNKNOWN) continue
        for (let y = 15; y >= 0; y--) {
          const kind = kindOf(entry(body, c, y * 256 + col))
          if (kind === PASSABLE) continue
          ground[col] = base + y + 1
          liquid[col] = kind === LIQUID ? 1 : 0
          open--
          break
        }
      }
    }
    this.chunks.set(Terrain.key(cx, cz), { ground, liquid })
    return [cx, cz]
  }

  // A chunk packet's coordinates from the start of its compressed payload, without inflating
  // the rest: [id, cx, cz], or null if it is not a chunk packet.
  static peekChunk (compressed) {
    const head = zlib.inflateSync(compressed.subarray(0, 512), { finishFlush: zlib.constants.Z_SYNC_FLUSH })
    const [id, at] = varint(head, 0)
    if (id !== 0x24 || head.length < at + 8) return null
    return [head.readInt32BE(at), head.readInt32BE(at + 4)]
  }

  // The ground at block column (x, z): { y, liquid }, or null while its chunk is unread or the
  // column is empty to the void.
  ground (x, z) {
    const bx = Math.floor(x)
    const bz = Math.floor(z)
    const chunk = this.chunks.get(Terrain.key(bx >> 4, bz >> 4))
    if (!chunk) return null
    const col = (bz & 15) * 16 + (bx & 15)
    const y = chunk.ground[col]
    return y === UNKNOWN ? null : { y, liquid: chunk.liquid[col] === 1 }
  }

  // A block the server changed (digging, placing, a siege): the column's ground follows when
  // the change is at its top.
  changed (x, y, z, state) {
    const chunk = this.chunks.get(Terrain.key(x >> 4, z >> 4))
    if (!chunk) return
    const col = (z & 15) * 16 + (x & 15)
    const kind = kindOf(state)
    if (kind !== PASSABLE && y + 1 > chunk.ground[col]) {
      chunk.ground[col] = y + 1
      chunk.liquid[col] = kind === LIQUID ? 1 : 0
    } else if (kind === PASSABLE && y + 1 === chunk.ground[col]) {
      // The top is gone: what was under it is taken to be ground (a dug block stood on some).
      chunk.ground[col] = y
      chunk.liquid[col] = 0
    }
  }
}

module.exports = { Terrain }

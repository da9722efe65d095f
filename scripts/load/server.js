// One server process (horde or the floor) driven through its console, shared by the load and
// soak harnesses, and the child processes they start, killed if a harness fails half-way.
'use strict'

const fs = require('fs')
const path = require('path')
const { spawn } = require('child_process')

const ROOT = path.resolve(__dirname, '../..')

function unquote (quoted) {
  try {
    return JSON.parse(quoted)
  } catch {
    // A Rust escape JSON lacks (\u{..}): the text as it stands.
    return quoted.slice(1, -1)
  }
}

// logfmt `a=1 b=x` into an object, numbers as numbers.
function logfmt (line) {
  const out = {}
  // Quoted values are Rust's Debug strings: escapes inside are kept whole.
  for (const m of line.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const v = m[2].startsWith('"') ? unquote(m[2]) : m[2]
    out[m[1]] = v !== '' && !isNaN(Number(v)) ? Number(v) : v
  }
  return out
}

// Every process started here, killed if the harness fails half-way.
const children = new Set()
process.on('exit', () => { for (const child of children) child.kill('SIGKILL') })

function track (child) {
  children.add(child)
  child.on('exit', () => children.delete(child))
  return child
}

// One server process (horde or the floor) driven through its console on stdin/stdout.
class Server {
  constructor (command, args, label, options = {}) {
    this.label = label
    this.child = track(spawn(command, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], ...options }))
    this.lines = []
    this.waiters = []
    this.stderr = ''
    let out = ''
    this.child.stdout.on('data', (d) => {
      out += d
      let nl
      while ((nl = out.indexOf('\n')) >= 0) {
        this.lines.push(out.slice(0, nl))
        out = out.slice(nl + 1)
        this.wake()
      }
    })
    this.child.stderr.on('data', (d) => {
      // eslint-disable-next-line no-control-regex
      this.stderr += String(d).replace(/\x1b\[[0-9;]*m/g, '')
      this.wake()
    })
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => {
      this.done = true
      this.wake()
      resolve({ code, signal })
    }))
    // A server that exits mid-run closes its stdin: the next console line's write fails here,
    // and `until` then reports the exit with the server's last words (not an EPIPE crash).
    this.child.stdin.on('error', () => {})
    this.queue = Promise.resolve()
  }

  wake () {
    for (const w of this.waiters.splice(0)) w()
  }

  async until (what, test, ms = 180000) {
    const deadline = Date.now() + ms
    for (;;) {
      const found = test()
      if (found) return found
      if (this.done) throw new Error(`${this.label} exited while waiting for ${what}:\n${this.stderr.slice(-3000)}`)
      if (Date.now() > deadline) throw new Error(`${this.label}: timed out waiting for ${what}`)
      await new Promise((resolve) => {
        this.waiters.push(resolve)
        setTimeout(resolve, 500)
      })
    }
  }

  async port () {
    const m = await this.until('the listen address', () =>
      this.stderr.match(/listening for Minecraft 1\.20\.1 clients on [\d.]+:(\d+)/))
    return Number(m[1])
  }

  async queryPort () {
    const m = await this.until('the query port', () =>
      this.stderr.match(/query \(GameSpy4\) on udp [\d.]+:(\d+)/))
    return Number(m[1])
  }

  mapUrl () {
    const m = this.stderr.match(/map at (http:\/\/[\d.]+:\d+)\//)
    return m && m[1]
  }

  // Sends a console line; resolves with the answer's lines up to the first that starts with
  // `last` (the answer's final line).
  command (line, last) {
    const run = async () => {
      this.lines = []
      this.child.stdin.write(line + '\n')
      const answer = await this.until(`the answer to ${line}`, () => {
        const i = this.lines.findIndex((l) => l.startsWith(last))
        return i >= 0 && this.lines.slice(0, i + 1)
      })
      return answer
    }
    const result = this.queue.then(run)
    this.queue = result.catch(() => {})
    return result
  }

  async last (line, prefix) {
    const answer = await this.command(line, prefix)
    return logfmt(answer[answer.length - 1])
  }

  rss () {
    try {
      const status = fs.readFileSync(`/proc/${this.child.pid}/status`, 'utf8')
      return Number(status.match(/VmRSS:\s+(\d+)/)[1]) / 1024
    } catch {
      return null
    }
  }

  // Horde saves and exits on `stop`; the floor has nothing to save and is sent SIGTERM.
  async stop (floor) {
    if (floor) this.child.kill('SIGTERM')
    else this.child.stdin.write('stop\n')
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 60000)
    await this.exited
    clearTimeout(timer)
  }
}

module.exports = { Server, logfmt, track, ROOT }

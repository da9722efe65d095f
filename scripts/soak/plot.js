// Plots a soak's samples (run.js's OUT/samples.csv) as an SVG of stacked panels against the
// minutes of the run: resident memory, entities, loaded chunks, open file descriptors, and the
// web map's snapshot.
//   node scripts/soak/plot.js OUT/samples.csv docs/soak.svg [TITLE]
'use strict'

const fs = require('fs')

const PANELS = [
  { title: 'resident memory (MB)', series: ['rssMb'] },
  { title: 'entities (all, zombies)', series: ['entities', 'zombies'] },
  { title: 'loaded chunks', series: ['chunks'] },
  { title: 'open file descriptors (all, sockets)', series: ['fds', 'sockets'] },
  // Drawn when the samples have the map's parts (since 2026-12-04).
  { title: 'web map (snapshot kB, packs shown)', series: ['mapKb', 'mapPacks'] }
]
const COLOURS = ['#1f77b4', '#d62728']
const WIDTH = 720
const PANEL = 150
const MARGIN = { left: 60, right: 20, top: 40, gap: 40 }

function main () {
  const [file, out, title = 'horde soak'] = process.argv.slice(2)
  if (!file || !out) throw new Error('usage: plot.js SAMPLES.csv OUT.svg [TITLE]')
  const [head, ...lines] = fs.readFileSync(file, 'utf8').trim().split('\n')
  const keys = head.split(',')
  const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [keys[i], Number(v)])))
    .map((r) => ({ ...r, mapKb: r.mapStateBytes / 1000 }))
  if (rows.length < 2) throw new Error(`${file} has fewer than two samples`)
  const panels = PANELS.filter((p) => p.series.every((k) => k in rows[0] && !Number.isNaN(rows[0][k])))
  const minutes = rows.map((r) => r.minute)
  const x0 = Math.min(...minutes)
  const x1 = Math.max(...minutes)
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right
  const x = (m) => MARGIN.left + ((m - x0) / (x1 - x0)) * plotWidth
  const parts = []
  panels.forEach((panel, p) => {
    const top = MARGIN.top + p * (PANEL + MARGIN.gap)
    const values = panel.series.flatMap((k) => rows.map((r) => r[k]))
    const hi = niceCeil(Math.max(...values, 1))
    const y = (v) => top + PANEL - (v / hi) * PANEL
    parts.push(`<text x="${MARGIN.left}" y="${top - 8}" font-weight="bold">${panel.title}</text>`)
    parts.push(`<rect x="${MARGIN.left}" y="${top}" width="${plotWidth}" height="${PANEL}" fill="none" stroke="#999"/>`)
    for (const v of [0, hi / 2, hi]) {
      parts.push(`<text x="${MARGIN.left - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`)
    }
    panel.series.forEach((k, i) => {
      // A restart (a new life) breaks the line.
      let d = ''
      rows.forEach((r, j) => {
        const jump = j === 0 || rows[j - 1].life !== r.life
        d += `${jump ? 'M' : 'L'}${x(r.minute).toFixed(1)},${y(r[k]).toFixed(1)}`
      })
      parts.push(`<path d="${d}" fill="none" stroke="${COLOURS[i]}" stroke-width="1.5"/>`)
    })
  })
  const bottom = MARGIN.top + panels.length * (PANEL + MARGIN.gap) - MARGIN.gap
  for (const m of ticks(x0, x1)) {
    parts.push(`<text x="${x(m)}" y="${bottom + 16}" text-anchor="middle">${m}</text>`)
  }
  parts.push(`<text x="${MARGIN.left + plotWidth / 2}" y="${bottom + 34}" text-anchor="middle">minutes</text>`)
  const height = bottom + 44
  fs.writeFileSync(out, `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="14">${escape(title)}</text>
${parts.join('\n')}
</svg>
`)
}

// 1, 2 or 5 times a power of ten at or above v.
function niceCeil (v) {
  const power = 10 ** Math.floor(Math.log10(v))
  return [1, 2, 5, 10].map((m) => m * power).find((n) => n >= v)
}

function ticks (from, to) {
  const step = niceCeil((to - from) / 8)
  const out = []
  for (let m = Math.ceil(from / step) * step; m <= to; m += step) out.push(Math.round(m * 100) / 100)
  return out
}

function escape (text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;')
}

main()

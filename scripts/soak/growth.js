// What a leak would grow, and the checks that it did not: shared by the soak (run.js) and, on
// a finished run's samples, from the command line:
//   node scripts/soak/growth.js OUT/samples.csv [GOAL_PERCENT]
// prints each series' growth after warm-up and the leak checks for the longest life.
'use strict'

const fs = require('fs')

// Sampled once a minute. The map's snapshot is sampled whole and by part (packs, their trail
// points, merges, heat cells), so that a growth can be traced to its part.
const SAMPLED = ['rssMb', 'fds', 'sockets', 'threads', 'chunks', 'entities', 'players', 'zombies', 'items', 'orbs', 'entityLayers',
  'mapStateBytes', 'mapPacks', 'mapTrailPoints', 'mapMerges', 'mapHeatCells']
// Series that must not grow after warm-up. The map's snapshot follows the world (each pack,
// ghost or not, carries a night of trail; ghost packs gather towards the mob cap over the
// days), so its leak checks are per item and on the parts' bounds (see `leakChecks`).
const FLAT = ['rssMb', 'fds', 'threads', 'chunks', 'entities', 'entityLayers', 'mapBytesPerItem']
// A night of trail points a pack (`map.trail_interval_ticks` 200 over half of
// `time.day_length_ticks` 24,000, the defaults the soak keeps), and the merges the map shows
// (`MERGES_SHOWN` in src/map/mod.rs).
const TRAIL_KEEP = 24000 / 2 / 200
const MERGES_SHOWN = 64

function mapParts (state) {
  return {
    mapPacks: state.packs.length,
    mapTrailPoints: state.packs.reduce((n, p) => n + p.trail.length, 0),
    mapMerges: state.merges.length,
    mapHeatCells: state.heat.length
  }
}

// The snapshot's bytes for each thing it shows: flat unless something in it grows on its own.
function withDerived (sample) {
  const items = 1 + sample.players + sample.mapPacks + sample.mapTrailPoints + sample.mapMerges + sample.mapHeatCells
  return { ...sample, mapBytesPerItem: sample.mapStateBytes / items }
}

// A series' growth after warm-up (its first third: chunks, zombies and clients arriving): the
// slope per hour, and what it adds over the stretch in percent of the series' mean there. The
// slope is Theil-Sen's (the median of the slopes between every two samples): the series swing
// with day and night and with where the bots are (a dip of 500 chunks while both are home), and
// a least-squares line tilts with a dip near either end where a leak's steady rise does not
// hide. The least-squares slope is given beside it.
function growth (samples, key) {
  const s = samples.slice(Math.floor(samples.length / 3)).map((p) => [p.at, p[key]])
  if (s.length < 3) return null
  const n = s.length
  const mx = s.reduce((a, p) => a + p[0], 0) / n
  const my = s.reduce((a, p) => a + p[1], 0) / n
  const num = s.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0)
  const den = s.reduce((a, p) => a + (p[0] - mx) ** 2, 0)
  if (!den) return null
  const slopes = []
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (s[j][0] > s[i][0]) slopes.push((s[j][1] - s[i][1]) / (s[j][0] - s[i][0]))
    }
  }
  slopes.sort((a, b) => a - b)
  const perHour = slopes[Math.floor(slopes.length / 2)] * 3600000
  const hours = (s[n - 1][0] - s[0][0]) / 3600000
  return { perHour, leastSquaresPerHour: (num / den) * 3600000, mean: my, percent: my ? (perHour * hours / my) * 100 : 0 }
}

// Every series' growth, and the checks: the FLAT series under `goal` percent, and the map's
// parts within their bounds in every sample.
function leakChecks (raw, goal) {
  const samples = raw.map(withDerived)
  // Samples from before the map's parts were sampled have none to judge.
  const parts = samples.length > 0 && Number.isFinite(samples[0].mapPacks)
  const keys = [...SAMPLED, 'mapBytesPerItem'].filter((k) => samples.length && Number.isFinite(samples[0][k]))
  const growths = Object.fromEntries(keys.map((key) => [key, growth(samples, key)]))
  const checks = FLAT.filter((key) => key in growths).map((key) => {
    const g = growths[key]
    return {
      what: `no growth after warm-up (${key})`,
      ok: g !== null && g.percent < goal,
      detail: g === null ? 'too few samples' : `${g.perHour.toFixed(2)} an hour (least squares ${g.leastSquaresPerHour.toFixed(2)}), ${g.percent.toFixed(1)} % of the mean ${g.mean.toFixed(1)} (goal < ${goal} %)`
    }
  })
  if (!parts) return { growths, checks }
  const perPack = Math.max(...samples.map((s) => (s.mapPacks ? s.mapTrailPoints / s.mapPacks : 0)))
  checks.push({ what: 'map trails at most a night a pack', ok: perPack <= TRAIL_KEEP, detail: `at most ${perPack.toFixed(1)} points a pack (bound ${TRAIL_KEEP})` })
  const merges = Math.max(...samples.map((s) => s.mapMerges))
  checks.push({ what: 'map merges at most those shown', ok: merges <= MERGES_SHOWN, detail: `at most ${merges} (bound ${MERGES_SHOWN})` })
  return { growths, checks }
}

function main () {
  const [file, goal = '10'] = process.argv.slice(2)
  if (!file) throw new Error('usage: growth.js SAMPLES.csv [GOAL_PERCENT]')
  const [head, ...lines] = fs.readFileSync(file, 'utf8').trim().split('\n')
  const keys = head.split(',')
  const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [keys[i], Number(v)])))
  const lives = new Map()
  for (const r of rows) lives.set(r.life, [...(lives.get(r.life) || []), { ...r, at: r.minute * 60000 }])
  const longest = [...lives.values()].reduce((a, l) => (l.length > a.length ? l : a))
  const { growths, checks } = leakChecks(longest, Number(goal))
  console.log('| series | an hour after warm-up (Theil-Sen) | least squares | % of the mean | mean |\n|---|---|---|---|---|')
  for (const [key, g] of Object.entries(growths)) {
    if (g) console.log(`| ${key} | ${g.perHour.toFixed(2)} | ${g.leastSquaresPerHour.toFixed(2)} | ${g.percent.toFixed(1)} | ${g.mean.toFixed(1)} |`)
  }
  console.log(`\n| check | result | detail |\n|---|---|---|\n${checks.map((c) => `| ${c.what} | ${c.ok ? 'ok' : '**FAIL**'} | ${c.detail} |`).join('\n')}`)
}

if (require.main === module) main()

module.exports = { SAMPLED, mapParts, leakChecks }

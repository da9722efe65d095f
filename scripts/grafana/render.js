// Renders a Grafana dashboard JSON without Grafana: runs every panel's PromQL against a real
// Prometheus (/api/v1/query_range, as Grafana's Prometheus datasource does) and draws the panels
// at their gridPos (24 columns) with uPlot, Grafana's own chart library, in a dark page that
// imitates Grafana's, screenshotted by Debian's chromium through playwright-core.
//   node grafana/render.js --dashboard D.json --prometheus URL --start UNIX --end UNIX --out PNG
//     [--step 2] [--rate-interval 1m] [--width 1600] [--html PAGE.html]
// Supported from the JSON: row, stat and timeseries panels; targets' expr and legendFormat;
// fieldConfig unit, decimals, min, max, color (fixed / thresholds / palette-classic), thresholds,
// custom fillOpacity, lineWidth, lineInterpolation (stepAfter), stacking (normal), axisPlacement,
// axisLabel, axisSoftMin/Max, thresholdsStyle (line, dashed), byName overrides of those; legend
// list or table with calcs (mean, min, max, last, lastNotNull). Anything else is ignored.
'use strict'

const fs = require('fs')
const os = require('os')
const path = require('path')
const { chromium } = require('playwright-core')

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) =>
  a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs, []))
for (const need of ['dashboard', 'prometheus', 'start', 'end', 'out']) {
  if (!args[need]) { console.error(`missing --${need}`); process.exit(2) }
}
const step = Number(args.step || 2)
const start = Math.floor(Number(args.start) / step) * step
const end = Number(args.end)
const width = Number(args.width || 1600)

async function api (endpoint, params) {
  const url = `${args.prometheus}/api/v1/${endpoint}?${new URLSearchParams(params)}`
  const body = await (await fetch(url)).json()
  if (body.status !== 'success') throw new Error(`${url}: ${body.error}`)
  return body.data
}

// Dashboard variables, resolved as Grafana would on load: a query variable takes the first
// of its sorted values (label_values(metric, label) only); $__rate_interval is given.
async function variables (dashboard) {
  const values = { __rate_interval: args['rate-interval'] || '1m' }
  for (const v of dashboard.templating?.list ?? []) {
    const m = /^label_values\((.+),\s*(\w+)\)$/.exec(v.query?.query ?? v.query ?? '')
    if (!m) continue
    const found = await api(`label/${m[2]}/values`, { 'match[]': m[1], start, end })
    if (!found.length) throw new Error(`variable ${v.name}: no ${m[2]} in ${m[1]}`)
    values[v.name] = found.sort()[0]
  }
  return values
}

const substitute = (expr, vars) =>
  expr.replace(/\$\{(\w+)\}|\$(\w+)/g, (all, a, b) => vars[a || b] ?? all)

// One target's series on the shared time grid, named by its legendFormat.
async function query (target, vars) {
  const { result } = await api('query_range', { query: substitute(target.expr, vars), start, end, step })
  return result.map(({ metric, values }) => {
    const data = new Array(Math.floor((end - start) / step) + 1).fill(null)
    for (const [t, v] of values) {
      const n = Number(v)
      data[Math.round((t - start) / step)] = Number.isFinite(n) ? n : null
    }
    const name = target.legendFormat
      ? target.legendFormat.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, l) => metric[l] ?? '')
      : `${metric.__name__ ?? ''}{${Object.entries(metric).filter(([k]) => k !== '__name__').map(([k, v]) => `${k}="${v}"`).join(', ')}}`
    return { name, data }
  })
}

async function main () {
  const dashboard = JSON.parse(fs.readFileSync(args.dashboard, 'utf8'))
  const vars = await variables(dashboard)
  const panels = []
  for (const panel of dashboard.panels) {
    const series = []
    for (const target of panel.targets ?? []) series.push(...await query(target, vars))
    panels.push({ ...panel, series })
    console.error(`${panel.type} ${panel.title}: ${series.length} series`)
  }
  const x = Array.from({ length: Math.floor((end - start) / step) + 1 }, (_, i) => start + i * step)
  const page = {
    title: dashboard.title, width, x, panels,
    variables: (dashboard.templating?.list ?? []).map((v) => ({ label: v.label || v.name, value: vars[v.name] })),
    note: `Rendered from Prometheus by scripts/grafana-preview.sh (uPlot in chromium), not by Grafana itself; $__rate_interval = ${vars.__rate_interval}, step ${step}s`
  }
  const uplot = path.dirname(require.resolve('uplot'))
  const html = `<!doctype html><meta charset="utf-8"><title>${dashboard.title}</title>
<style>${fs.readFileSync(path.join(uplot, 'uPlot.min.css'), 'utf8')}</style>
<style>${fs.readFileSync(path.join(__dirname, 'page.css'), 'utf8')}</style>
<script>${fs.readFileSync(path.join(uplot, 'uPlot.iife.min.js'), 'utf8')}</script>
<script>const PAGE = ${JSON.stringify(page).replace(/</g, '\\u003c')}</script>
<body><script>${fs.readFileSync(path.join(__dirname, 'page.js'), 'utf8')}</script></body>`
  const file = args.html || path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'grafana-page-')), 'page.html')
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, html)

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync']
  })
  try {
    const tab = await browser.newPage({ viewport: { width, height: 900 } })
    const errors = []
    tab.on('pageerror', (err) => errors.push(err.message))
    await tab.goto(`file://${file}`)
    await tab.waitForFunction(() => window.rendered === true || window.renderError, null, { timeout: 60000 })
    const failed = await tab.evaluate(() => window.renderError)
    if (failed || errors.length) throw new Error(`the page failed: ${failed || errors.join('; ')}`)
    await tab.screenshot({ path: args.out, fullPage: true })
  } finally {
    await browser.close()
    if (!args.html) fs.rmSync(path.dirname(file), { recursive: true, force: true })
  }
  console.error(`wrote ${args.out}`)
}

main().catch((err) => { console.error(err.stack || String(err)); process.exit(1) })

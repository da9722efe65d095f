// Draws PAGE (written by render.js: the dashboard's panels with their series) as Grafana 10
// would: react-grid-layout's geometry (24 columns, 30 px rows, 8 px margins), Grafana's dark
// colours, its unit formats and its stat and time series panels, with uPlot.
/* global PAGE, uPlot */
'use strict'

// Grafana's named colours (dark theme) and its classic palette, in order.
const NAMED = {
  green: '#73BF69', 'dark-green': '#37872D', 'semi-dark-green': '#56A64B', 'light-green': '#96D98D',
  red: '#F2495C', 'dark-red': '#C4162A', 'semi-dark-red': '#E02F44', 'light-red': '#FF7383',
  orange: '#FF9830', 'dark-orange': '#FA6400', yellow: '#FADE2A', 'dark-yellow': '#E0B400',
  blue: '#5794F2', 'dark-blue': '#1F60C4', 'light-blue': '#8AB8FF', purple: '#B877D9',
  'dark-purple': '#8F3BB8', text: '#ccccdc', transparent: 'rgba(0,0,0,0)'
}
const PALETTE = ['#73BF69', '#F2CC0C', '#8AB8FF', '#FF780A', '#F2495C', '#5794F2', '#B877D9', '#705DA0', '#37872D', '#FADE2A']
const colour = (c) => NAMED[c] || c
const alpha = (hex, a) => {
  const n = parseInt(hex.slice(1), 16)
  return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${a})`
}
const AXIS = 'rgba(204, 204, 220, 0.65)'
const GRIDLINE = 'rgba(204, 204, 220, 0.07)'
const FONT = '12px "Inter", "Liberation Sans", "DejaVu Sans", sans-serif'

// Grafana's unit formats (packages/grafana-data/src/valueFormats): for a unit and a reference
// value, the divisor and suffix, so that an axis shares one scale.
function scaleFor (unit, ref) {
  ref = Math.abs(ref || 0)
  const steps = (factor, suffixes) => {
    let i = 0
    while (ref >= factor ** (i + 1) && i < suffixes.length - 1) i++
    return [factor ** i, suffixes[i]]
  }
  const si = (base) => {
    const prefixes = ['n', 'µ', 'm', '', 'k', 'M', 'G', 'T']
    const e = ref === 0 ? 0 : Math.max(-3, Math.min(4, Math.floor(Math.log10(ref) / 3)))
    return [1000 ** e, ` ${prefixes[e + 3]}${base}`]
  }
  switch (unit) {
    case 'ms':
      return ref < 1000 ? [1, ' ms'] : ref < 60000 ? [1000, ' s'] : ref < 3600000 ? [60000, ' min'] : [3600000, ' hour']
    case 's':
      return ref === 0 ? [1, ' s'] : ref < 1e-6 ? [1e-9, ' ns'] : ref < 1e-3 ? [1e-6, ' µs'] : ref < 1 ? [1e-3, ' ms']
        : ref < 60 ? [1, ' s'] : ref < 3600 ? [60, ' min'] : [3600, ' hour']
    case 'bytes': return steps(1024, [' B', ' KiB', ' MiB', ' GiB', ' TiB'])
    case 'Bps': return si('B/s')
    case 'pps': return si('pps')
    case 'cps': case 'ops': case 'reqps': {
      const [f, s] = steps(1000, ['', 'K', 'M', 'B'])
      return [f, ` ${s}${unit}`]
    }
    case 'short': return steps(1000, ['', ' K', ' Mil', ' Bil'])
    default: return [1, '']
  }
}

// Auto decimals as Grafana's: about three significant figures.
const autoDecimals = (v) => Number.isInteger(v) ? 0 : Math.max(0, Math.min(3, 2 - Math.floor(Math.log10(Math.abs(v)))))

function format (v, unit, decimals) {
  if (v == null || !Number.isFinite(v)) return '-'
  const [factor, suffix] = scaleFor(unit, v)
  const scaled = v / factor
  return scaled.toFixed(decimals ?? autoDecimals(scaled)) + suffix
}

// Tick labels share the scale of the largest tick; decimals follow the tick spacing.
function axisValues (unit, decimals) {
  return (u, splits) => {
    if (!splits.length) return splits
    const [factor, suffix] = scaleFor(unit, Math.max(...splits.map(Math.abs)))
    const incr = splits.length > 1 ? Math.abs(splits[1] - splits[0]) / factor : 1
    let dec = 0
    while (dec < autoDecimals(incr) && Math.abs(incr * 10 ** dec - Math.round(incr * 10 ** dec)) > 1e-6) dec++
    dec = decimals ?? dec
    return splits.map((v) => (v / factor).toFixed(dec) + suffix)
  }
}

const CALCS = {
  mean: ['Mean', (d) => d.length ? d.reduce((a, b) => a + b, 0) / d.length : null],
  min: ['Min', (d) => d.length ? Math.min(...d) : null],
  max: ['Max', (d) => d.length ? Math.max(...d) : null],
  last: ['Last', (d) => d.length ? d[d.length - 1] : null],
  lastNotNull: ['Last *', (d) => d.length ? d[d.length - 1] : null]
}

// A field's config: the defaults with the byName overrides for `name` applied.
function fieldConfig (panel, name) {
  const cfg = structuredClone(panel.fieldConfig?.defaults ?? {})
  cfg.custom ??= {}
  for (const o of panel.fieldConfig?.overrides ?? []) {
    if (o.matcher?.id !== 'byName' || o.matcher.options !== name) continue
    for (const { id, value } of o.properties) {
      if (id.startsWith('custom.')) cfg.custom[id.slice(7)] = value
      else cfg[id] = value
    }
  }
  return cfg
}

function thresholdColour (cfg, v) {
  let c = cfg.thresholds?.steps?.[0]?.color ?? 'green'
  for (const s of cfg.thresholds?.steps ?? []) if (s.value != null && v != null && v >= s.value) c = s.color
  return colour(c)
}

function seriesColour (cfg, i) {
  if (cfg.color?.mode === 'fixed') return colour(cfg.color.fixedColor)
  if (cfg.color?.mode === 'thresholds') return thresholdColour(cfg, null)
  return PALETTE[i % PALETTE.length]
}

function el (tag, cls, parent, text) {
  const e = document.createElement(tag)
  if (cls) e.className = cls
  if (text != null) e.textContent = text
  if (parent) parent.appendChild(e)
  return e
}

function header () {
  const fmt = (t) => new Date(t * 1000).toISOString().slice(11, 19)
  const top = el('div', 'topbar', document.body)
  const crumbs = el('div', 'crumbs', top, 'Home  ›  Dashboards  ›  ')
  el('b', null, crumbs, PAGE.title)
  el('div', 'range', top, `${fmt(PAGE.x[0])} to ${fmt(PAGE.x[PAGE.x.length - 1])} UTC`)
  const sub = el('div', 'submenu', document.body)
  for (const v of PAGE.variables) {
    const box = el('div', 'var', sub)
    el('span', null, box, v.label)
    el('span', null, box, v.value)
  }
  el('div', 'note', sub, PAGE.note)
}

// The legend below a time series: a list, or a table with the panel's calcs.
function legend (panel, fields, parent) {
  const opts = panel.options?.legend ?? {}
  if (opts.showLegend === false || opts.displayMode === 'hidden') return
  const calcs = (opts.calcs ?? []).filter((c) => CALCS[c])
  const value = (f, c) => format(CALCS[c][1](f.values.filter((v) => v != null)), f.cfg.unit, f.cfg.decimals)
  if (opts.displayMode === 'table') {
    const table = el('table', 'legend', parent)
    const head = el('tr', null, table)
    el('th', null, head, '')
    for (const c of calcs) el('th', null, head, CALCS[c][0])
    for (const f of fields) {
      const tr = el('tr', null, table)
      const name = el('td', null, tr)
      const item = el('span', 'item', name)
      el('i', null, item).style.background = f.colour
      el('span', null, item, f.name)
      for (const c of calcs) el('td', null, tr, value(f, c))
    }
    return
  }
  const list = el('div', 'legend', parent)
  for (const f of fields) {
    const item = el('div', 'item', list)
    el('i', null, item).style.background = f.colour
    el('span', null, item, f.name)
    for (const c of calcs) el('span', 'calc', item, `${CALCS[c][0]}: ${value(f, c)}`)
  }
}

// Tick spacings: whole numbers for integer fields (decimals 0), round binary sizes for bytes.
const INTEGER_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000]
const BYTES_INCRS = [0, 1, 2, 3, 4].flatMap((k) => [1, 2, 5, 10, 20, 50, 100, 200, 500].map((m) => m * 1024 ** k))

function timeseries (panel, box) {
  const body = el('div', 'body', box)
  const fields = panel.series.map((s, i) => {
    const cfg = fieldConfig(panel, s.name)
    return { name: s.name, values: s.data, cfg, colour: seriesColour(cfg, i) }
  })
  legend(panel, fields, box)
  if (!fields.some((f) => f.values.some((v) => v != null))) {
    el('div', 'nodata', body, 'No data')
    return
  }
  // Stacking (normal): each stacked field drawn on top of the ones before, filled in between.
  const base = new Array(PAGE.x.length).fill(0)
  const bands = []
  let below = null
  const drawn = fields.map((f, i) => {
    if (f.cfg.custom.stacking?.mode !== 'normal') return f.values
    const top = f.values.map((v, j) => v == null ? (base[j] || null) : (base[j] += v))
    if (below != null) bands.push({ series: [i + 1, below + 1], fill: alpha(f.colour, (f.cfg.custom.fillOpacity ?? 0) / 100) })
    below = i
    return top
  })
  const stackedAfterFirst = new Set(bands.map((b) => b.series[0]))
  // Scales: y, and y2 for fields placed on the right.
  const scaleOf = (f) => f.cfg.custom.axisPlacement === 'right' ? 'y2' : 'y'
  const range = (key) => (u, dmin, dmax) => {
    const cfgs = fields.filter((f) => scaleOf(f) === key).map((f) => f.cfg)
    const first = cfgs[0] ?? {}
    if (dmin == null) { dmin = 0; dmax = 1 }
    let lo = first.min ?? Math.min(dmin, first.custom?.axisSoftMin ?? dmin)
    let hi = first.max ?? Math.max(dmax, first.custom?.axisSoftMax ?? dmax)
    if (hi === lo) hi = lo + 1
    ;[lo, hi] = uPlot.rangeNum(lo, hi, 0.1, true)
    return [first.min ?? lo, first.max ?? hi]
  }
  const axis = (key, side, cfg) => ({
    scale: key,
    side,
    stroke: AXIS,
    font: FONT,
    label: cfg.custom.axisLabel || undefined,
    labelFont: FONT,
    labelSize: cfg.custom.axisLabel ? 18 : 0,
    grid: { show: side === 3, stroke: GRIDLINE, width: 1 },
    ticks: { show: false },
    incrs: cfg.unit === 'bytes' ? BYTES_INCRS : cfg.decimals === 0 ? INTEGER_INCRS : undefined,
    values: axisValues(cfg.unit, cfg.decimals),
    size: (u, values) => 14 + 7 * Math.max(2, ...(values ?? []).map((v) => String(v).length))
  })
  const axes = [{
    stroke: AXIS,
    font: FONT,
    grid: { stroke: GRIDLINE, width: 1 },
    ticks: { show: false },
    space: 70,
    size: 22,
    values: (u, splits) => splits.map((t) => new Date(t * 1000).toISOString().slice(11, 19))
  }, axis('y', 3, fields.find((f) => scaleOf(f) === 'y')?.cfg ?? fields[0].cfg)]
  const right = fields.find((f) => scaleOf(f) === 'y2')
  if (right) axes.push(axis('y2', 1, right.cfg))
  // Threshold lines (thresholdsStyle line or dashed) of the defaults.
  const defaults = fieldConfig(panel, null)
  const lines = ['line', 'dashed'].includes(defaults.custom.thresholdsStyle?.mode)
    ? (defaults.thresholds?.steps ?? []).filter((s) => s.value != null) : []
  const drawThresholds = (u) => {
    const ctx = u.ctx
    ctx.save()
    for (const s of lines) {
      const y = u.valToPos(s.value, 'y', true)
      ctx.strokeStyle = colour(s.color)
      ctx.lineWidth = 1
      ctx.setLineDash(defaults.custom.thresholdsStyle.mode === 'dashed' ? [10, 10] : [])
      ctx.beginPath()
      ctx.moveTo(u.bbox.left, y)
      ctx.lineTo(u.bbox.left + u.bbox.width, y)
      ctx.stroke()
    }
    ctx.restore()
  }
  const rect = body.getBoundingClientRect()
  const opts = {
    width: Math.floor(rect.width - 16),
    height: Math.floor(rect.height - 4),
    legend: { show: false },
    cursor: { show: false },
    padding: [10, 14, 0, 0],
    scales: { x: { time: true }, y: { range: range('y') }, y2: { range: range('y2') } },
    axes,
    bands,
    hooks: { draw: [drawThresholds] },
    series: [{}, ...fields.map((f, i) => ({
      label: f.name,
      scale: scaleOf(f),
      stroke: f.colour,
      width: f.cfg.custom.lineWidth ?? 1,
      fill: stackedAfterFirst.has(i + 1) ? undefined : alpha(f.colour, (f.cfg.custom.fillOpacity ?? 0) / 100),
      paths: f.cfg.custom.lineInterpolation === 'stepAfter' ? uPlot.paths.stepped({ align: 1 }) : undefined,
      points: { show: false },
      spanGaps: false
    }))]
  }
  new uPlot(opts, [PAGE.x, ...drawn], body) // eslint-disable-line no-new
}

function stat (panel, box) {
  box.classList.add('stat')
  const body = el('div', 'body', box)
  const s = panel.series[0]
  const values = s ? s.data.filter((v) => v != null) : []
  const cfg = fieldConfig(panel, s?.name)
  if (!values.length) { el('div', 'nodata', body, 'No data'); return }
  const last = values[values.length - 1]
  const c = cfg.color?.mode === 'fixed' ? colour(cfg.color.fixedColor) : thresholdColour(cfg, last)
  const rect = body.getBoundingClientRect()
  const value = el('div', 'value', body, format(last, cfg.unit, cfg.decimals))
  value.style.color = c
  value.style.fontSize = `${Math.min(rect.height * 0.45, rect.width / 6)}px`
  if (panel.options?.graphMode === 'none') return
  const spark = el('div', 'spark', body)
  new uPlot({ // eslint-disable-line no-new
    width: Math.floor(rect.width),
    height: Math.floor(rect.height * 0.55),
    legend: { show: false },
    cursor: { show: false },
    axes: [{ show: false }, { show: false }],
    scales: { x: { time: true }, y: { range: (u, lo, hi) => [Math.min(lo, 0), hi === 0 ? 1 : hi * 1.05] } },
    series: [{}, { stroke: c, width: 1, fill: alpha(c, 0.2), points: { show: false } }]
  }, [PAGE.x, s.data], spark)
}

function render () {
  header()
  const grid = el('div', 'grid', document.body)
  const W = PAGE.width - 32
  const margin = 8
  const col = (W - margin * 23) / 24
  const row = 30
  let bottom = 0
  for (const panel of PAGE.panels) {
    const g = panel.gridPos
    const box = el('div', panel.type === 'row' ? 'row' : 'panel', grid)
    Object.assign(box.style, {
      left: `${Math.round(g.x * (col + margin))}px`,
      top: `${Math.round(g.y * (row + margin))}px`,
      width: `${Math.round(g.w * col + (g.w - 1) * margin)}px`,
      height: `${Math.round(g.h * row + (g.h - 1) * margin)}px`
    })
    bottom = Math.max(bottom, g.y + g.h)
    if (panel.type === 'row') { box.textContent = panel.title; continue }
    el('div', 'title', box, panel.title)
    if (panel.type === 'stat') stat(panel, box)
    else if (panel.type === 'timeseries') timeseries(panel, box)
    else el('div', 'nodata', box, `${panel.type}: not drawn by this preview`)
  }
  grid.style.height = `${Math.round(bottom * (row + margin))}px`
}

try {
  render()
  window.rendered = true
} catch (err) {
  window.renderError = err.stack || String(err)
}

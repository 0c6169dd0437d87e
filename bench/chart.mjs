/**
 * Turns the last three-way results (`bench/results.json`, written by `npm run bench` or
 * `node bench/three-way.mjs`) into a bar chart, `bench/chart.svg`, for the README. Every number
 * in the chart comes from the results file; nothing is typed in by hand.
 *
 * `node bench/chart.mjs [results.json] [chart.svg]` (defaults: the two files beside this one).
 * The SVG is self-contained (no fonts, scripts or links to fetch) and readable without sight:
 * `role="img"` with a `<title>` and a `<desc>` that says every figure in words, and every bar
 * carries its figures as text, not only as a length or a colour.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const WIDTH = 980;
const MARGIN = 24;
const LABEL_WIDTH = 330;
const BAR_X = MARGIN + LABEL_WIDTH + 10;
const VALUE_ROOM = 250;
const BAR_MAX = WIDTH - BAR_X - VALUE_ROOM - MARGIN;
const ROW = 24;
const BAR = 16;

const COLOURS = {
  Gatehouse: "#0b7285",
  "@auth/core": "#6741d9",
  "Better Auth": "#c2410c",
};
const INFO_COLOUR = "#adb5bd";
const TEXT = "#212529";
const MUTED = "#495057";

/** Escapes text for an XML text node or a double-quoted attribute. */
export function escapeXml(value) {
  return String(value)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}

const perSecond = (n) => Math.round(n).toLocaleString("en-US");
const us = (value) => (value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US"));
const micros = (opsPerSec) => us(1e6 / opsPerSec);
const hasCpu = (c) => Number.isFinite(c.cpuUsPerOp) && c.cpuUsPerOp > 0;
const times = (ratio) => `${ratio < 10 ? ratio.toFixed(1) : Math.round(ratio)}×`;

/**
 * Throws an `Error` naming the first thing wrong with a results object: a chart must never be
 * drawn from a file that lacks a figure (a bar of length zero would look like a measurement).
 */
export function validateResults(results) {
  const where = (g, c) => `results.json: group ${g + 1}${c === undefined ? "" : `, bar ${c + 1}`}`;
  if (!results || !Array.isArray(results.groups) || results.groups.length === 0) {
    throw new Error("results.json: no groups to draw");
  }
  results.groups.forEach((group, g) => {
    if (typeof group?.title !== "string") throw new Error(`${where(g)} has no title`);
    if (!Array.isArray(group.contenders) || group.contenders.length === 0) {
      throw new Error(`${where(g)} has no bars`);
    }
    group.contenders.forEach((c, i) => {
      if (typeof c?.label !== "string") throw new Error(`${where(g, i)} has no label`);
      if (!Number.isFinite(c.opsPerSec) || c.opsPerSec <= 0) {
        throw new Error(`${where(g, i)} (${c.label}) has no positive opsPerSec`);
      }
    });
  });
}

const text = (x, y, content, attrs = "") =>
  `<text x="${x}" y="${y}"${attrs ? ` ${attrs}` : ""}>${escapeXml(content)}</text>`;

/** The ratios line under a group: Gatehouse against the two others, when both were measured. */
function ratioNote(group) {
  const gatehouse = group.contenders.find((c) => c.id === "gatehouse");
  if (!gatehouse) return null;
  const parts = [];
  if (Number.isFinite(gatehouse.vsAuthjs)) parts.push(`${times(gatehouse.vsAuthjs)} @auth/core`);
  if (Number.isFinite(gatehouse.vsBetterAuth)) {
    parts.push(`${times(gatehouse.vsBetterAuth)} Better Auth`);
  }
  return parts.length > 0
    ? `Gatehouse's rate: ${parts.join(", ")} (median of paired slices)`
    : null;
}

function describe(results) {
  const sentences = results.groups.map((group) => {
    const bars = group.contenders.map(
      (c) =>
        `${c.label}${c.info ? " (for information)" : ""}: ${perSecond(c.opsPerSec)} per second, ${micros(c.opsPerSec)} microseconds each${hasCpu(c) ? `, ${us(c.cpuUsPerOp)} of them on the CPU` : ""}`,
    );
    const note = ratioNote(group);
    return `${group.title}. ${bars.join("; ")}.${note ? ` ${note}.` : ""}`;
  });
  return `Session checks per second with a valid session cookie, higher is better. ${sentences.join(" ")}`;
}

function subtitle(meta = {}) {
  const when = typeof meta.generated === "string" ? meta.generated.slice(0, 10) : "undated";
  const parts = [`Measured ${when}`];
  if (meta.node) parts.push(`Node ${meta.node}`);
  if (meta.cpu) parts.push(`${meta.cpus ?? "?"} × ${meta.cpu}`);
  const load = meta.loadavg;
  if (Array.isArray(load?.before) && Array.isArray(load?.after)) {
    parts.push(`load average ${load.before[0].toFixed(1)} → ${load.after[0].toFixed(1)}`);
  }
  return parts.join(", ");
}

/** Renders the results as an SVG document (a string). Throws on an incomplete results object. */
export function renderChart(results) {
  validateResults(results);
  const meta = results.meta ?? {};
  const body = [];
  let y = MARGIN + 16;
  body.push(
    text(
      MARGIN,
      y,
      "Session check with a valid cookie: checks per second, one at a time (higher is better)",
      `font-size="17" font-weight="bold" fill="${TEXT}"`,
    ),
  );
  y += 22;
  body.push(text(MARGIN, y, subtitle(meta), `font-size="12" fill="${MUTED}"`));
  y += 14;

  for (const group of results.groups) {
    y += 26;
    body.push(text(MARGIN, y, group.title, `font-size="14" font-weight="bold" fill="${TEXT}"`));
    y += 8;
    const max = Math.max(...group.contenders.map((c) => c.opsPerSec));
    for (const c of group.contenders) {
      const colour = c.info ? INFO_COLOUR : (COLOURS[c.library] ?? INFO_COLOUR);
      const width = Math.max(1, (c.opsPerSec / max) * BAR_MAX);
      const mid = y + ROW / 2;
      const cpu = hasCpu(c) ? ` (CPU ${us(c.cpuUsPerOp)} µs)` : "";
      const value = `${perSecond(c.opsPerSec)}/s · ${micros(c.opsPerSec)} µs${cpu}`;
      const labelAttrs = `font-size="12" text-anchor="end" fill="${c.info ? MUTED : TEXT}"${c.info ? ' font-style="italic"' : ""}`;
      body.push(
        `<g><title>${escapeXml(`${c.label}: ${value}`)}</title>`,
        text(MARGIN + LABEL_WIDTH, mid + 4, c.label, labelAttrs),
        `<rect x="${BAR_X}" y="${(mid - BAR / 2).toFixed(1)}" width="${width.toFixed(1)}" height="${BAR}" fill="${colour}" rx="2"/>`,
        text((BAR_X + width + 6).toFixed(1), mid + 4, value, `font-size="12" fill="${TEXT}"`),
        "</g>",
      );
      y += ROW;
    }
    const note = ratioNote(group);
    if (note) {
      y += 14;
      body.push(text(BAR_X, y, note, `font-size="12" font-weight="bold" fill="${TEXT}"`));
    }
  }

  y += 30;
  const footer = [
    "Bars in one panel share a linear scale from zero; each panel has its own. Grey, italic: for information.",
    "µs: wall time per check, one at a time; CPU: the process's CPU time per check, all threads (moved less by the machine's load).",
    `Generated by bench/chart.mjs from bench/results.json (${meta.command ?? "the bench"}); see bench/RESULTS.md for the method.`,
  ];
  for (const line of footer) {
    body.push(text(MARGIN, y, line, `font-size="11" fill="${MUTED}"`));
    y += 16;
  }
  const height = y + MARGIN - 10;
  const title = "Gatehouse, @auth/core and Better Auth: session checks per second";
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="chart-title chart-desc" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif">`,
    `<title id="chart-title">${escapeXml(title)}</title>`,
    `<desc id="chart-desc">${escapeXml(describe(results))}</desc>`,
    // An opaque background: the README may be read on a dark page, where dark text would vanish.
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    ...body,
    "</svg>",
    "",
  ].join("\n");
}

/** Reads a results file and writes its chart. */
export function writeChart(resultsPath, chartPath) {
  let results;
  try {
    results = JSON.parse(readFileSync(resultsPath, "utf8"));
  } catch (error) {
    throw new Error(`cannot read ${resultsPath}: ${error.message}`);
  }
  writeFileSync(chartPath, renderChart(results));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const here = (name) => fileURLToPath(new URL(name, import.meta.url));
  const [input = here("./results.json"), output = here("./chart.svg")] = process.argv.slice(2);
  try {
    writeChart(input, output);
    console.log(`wrote ${output}`);
  } catch (error) {
    console.error(`bench/chart.mjs: ${error.message}`);
    process.exit(1);
  }
}

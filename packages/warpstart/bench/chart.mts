// A standalone SVG box plot of one metric per cell, for report.md. Hand-written SVG keeps the
// bench free of charting dependencies; the layout is fixed-width and simple on purpose.

import { percentile } from "../measure/stats.mts";
import { type BenchResults, cellLabel } from "./results.mts";

export interface ChartOptions {
  metric?: "initMs" | "e2eMs";
  title?: string;
}

const METRIC_LABELS = { initMs: "Init Duration", e2eMs: "Cold E2E" } as const;

const WIDTH = 900;
const TOP = 56; // below the title
const ROW = 34;
const BOX = 18;
const LABEL_RIGHT = 170; // cell labels end here (right-aligned)
const PLOT_LEFT = 180;
const PLOT_RIGHT = 640;
const NOTE_LEFT = 652; // "p50 … ms (n=…)" starts here
export const FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', sans-serif\"";

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c] as string);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** 1, 2 or 5 times a power of ten, giving about `target` ticks from 0 to at least max. */
export function niceTicks(max: number, target = 6): number[] {
  const top = max > 0 && Number.isFinite(max) ? max : 1;
  const raw = top / target;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const count = Math.ceil(top / step - 1e-9);
  return Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

const fmt = (value: number) => String(Math.round(value * 10) / 10);

/**
 * One horizontal box per cell: box = p25..p75, thick line = p50, whiskers = p5..p95 (not
 * min..max, so one outlier cold start does not squash every box; the caption says so).
 */
export function initChartSvg(results: BenchResults, options: ChartOptions = {}): string {
  const metric = options.metric ?? "initMs";
  const label = METRIC_LABELS[metric];
  const title = options.title ?? `${label} per cell (ms)`;

  const rows = results.cells.map((cell) => {
    const values = cell[metric];
    const failed = cell.failures.length;
    if (values.length === 0) return { name: cellLabel(results, cell), n: 0, failed, stats: null };
    const at = (p: number) => percentile(values, p);
    return { name: cellLabel(results, cell), n: values.length, failed, stats: { p5: at(5), p25: at(25), p50: at(50), p75: at(75), p95: at(95) } };
  });

  const ticks = niceTicks(Math.max(0, ...rows.map((row) => row.stats?.p95 ?? 0)));
  const axisMax = ticks[ticks.length - 1] as number;
  const x = (value: number) => fmt(PLOT_LEFT + (value / axisMax) * (PLOT_RIGHT - PLOT_LEFT));
  const plotBottom = TOP + Math.max(rows.length, 1) * ROW;
  const height = plotBottom + 78;

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="chart-title" style="background:#fff" ${FONT} font-size="13">`,
    `<title id="chart-title">${escapeXml(title)}</title>`,
    `<text x="${WIDTH / 2}" y="30" text-anchor="middle" font-size="16" font-weight="600">${escapeXml(title)}</text>`,
  );

  // Grid and axis first, so boxes draw over the grid lines.
  for (const tick of ticks) {
    const tx = x(tick);
    parts.push(
      `<line x1="${tx}" y1="${TOP}" x2="${tx}" y2="${plotBottom}" stroke="#e5e7eb"/>`,
      `<line x1="${tx}" y1="${plotBottom}" x2="${tx}" y2="${plotBottom + 5}" stroke="#374151"/>`,
      `<text x="${tx}" y="${plotBottom + 19}" text-anchor="middle" font-size="11" fill="#374151">${fmt(tick)}</text>`,
    );
  }
  parts.push(
    `<line x1="${PLOT_LEFT}" y1="${plotBottom}" x2="${PLOT_RIGHT}" y2="${plotBottom}" stroke="#374151"/>`,
    `<text x="${(PLOT_LEFT + PLOT_RIGHT) / 2}" y="${plotBottom + 38}" text-anchor="middle" fill="#374151">${escapeXml(label)} (ms)</text>`,
  );

  rows.forEach((row, i) => {
    const mid = TOP + i * ROW + ROW / 2;
    const textY = fmt(mid + 4.5);
    const failedNote = row.failed > 0 ? ` · ${row.failed} failed` : "";
    parts.push(`<text x="${LABEL_RIGHT}" y="${textY}" text-anchor="end">${escapeXml(truncate(row.name, 24))}</text>`);
    if (row.stats === null) {
      parts.push(`<text x="${PLOT_LEFT + 6}" y="${textY}" fill="#6b7280" font-style="italic">no samples${escapeXml(failedNote)}</text>`);
      return;
    }
    const s = row.stats;
    const top = fmt(mid - BOX / 2);
    const bottom = fmt(mid + BOX / 2);
    const capTop = fmt(mid - BOX / 4);
    const capBottom = fmt(mid + BOX / 4);
    parts.push(
      `<g>`,
      `<line x1="${x(s.p5)}" y1="${fmt(mid)}" x2="${x(s.p95)}" y2="${fmt(mid)}" stroke="#1f4e79"/>`,
      `<line x1="${x(s.p5)}" y1="${capTop}" x2="${x(s.p5)}" y2="${capBottom}" stroke="#1f4e79"/>`,
      `<line x1="${x(s.p95)}" y1="${capTop}" x2="${x(s.p95)}" y2="${capBottom}" stroke="#1f4e79"/>`,
      `<rect class="box" x="${x(s.p25)}" y="${top}" width="${fmt(Math.max(1, Number(x(s.p75)) - Number(x(s.p25))))}" height="${BOX}" fill="#9ecae1" stroke="#1f4e79"/>`,
      `<line x1="${x(s.p50)}" y1="${top}" x2="${x(s.p50)}" y2="${bottom}" stroke="#08306b" stroke-width="2.5"/>`,
      `</g>`,
      `<text x="${NOTE_LEFT}" y="${textY}">p50 ${s.p50.toFixed(1)} ms (n=${row.n})${escapeXml(failedNote)}</text>`,
    );
  });

  parts.push(
    `<text x="${PLOT_LEFT}" y="${plotBottom + 62}" font-size="11" fill="#6b7280">Box: p25–p75 · line: p50 · whiskers: p5–p95. Successful cold invokes only; failed invokes are not timed.</text>`,
    `</svg>`,
  );
  return `${parts.join("\n")}\n`;
}

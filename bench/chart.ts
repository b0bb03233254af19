/**
 * The peers chart: hand-built SVG (no dependency), one row per corpus shape and one panel per figure —
 * build time, then p50 and p99 of each query mix — with one labelled bar per engine. Each panel has its own
 * linear scale starting at zero, because the figures differ by orders of magnitude between panels but are
 * compared within one; every bar carries its value, so nothing has to be read off an axis.
 */

export interface ChartRow {
  shape: string;
  engine: string;
  buildMs: number;
  p50: number;
  p99: number;
  longP50: number;
  longP99: number;
}

const PANELS = [
  { key: "buildMs", label: "build → first answer (s)", scale: 1 / 1000 },
  { key: "p50", label: "1–6 words p50 (ms)", scale: 1 },
  { key: "p99", label: "1–6 words p99 (ms)", scale: 1 },
  { key: "longP50", label: "10–20 words p50 (ms)", scale: 1 },
  { key: "longP99", label: "10–20 words p99 (ms)", scale: 1 },
] as const;

/** Colour-blind-safe (Okabe–Ito), memoria first; engines past the list reuse it in order. */
const COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"];

const PANEL_WIDTH = 210;
const PANEL_HEIGHT = 190;
const BAR_AREA_TOP = 40;
const BAR_AREA_BOTTOM = 30;
const ROW_TITLE = 28;
const MARGIN = 20;
const LEGEND = 36;

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Two significant figures at most, so labels stay short: 0.037, 1.4, 23, 140. */
function label(value: number): string {
  if (!Number.isFinite(value)) return "–";
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  if (value >= 1) return value.toFixed(2);
  return value.toPrecision(2);
}

export function peersChart(rows: readonly ChartRow[], caption: string): string {
  const shapes = [...new Set(rows.map((r) => r.shape))];
  const engines = [...new Set(rows.map((r) => r.engine))];
  const colour = (engine: string) => COLOURS[engines.indexOf(engine) % COLOURS.length] as string;
  const width = MARGIN * 2 + PANEL_WIDTH * PANELS.length;
  const rowHeight = ROW_TITLE + PANEL_HEIGHT;
  const height = MARGIN + LEGEND + rowHeight * shapes.length + MARGIN;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
    // A title first, so a screen reader names the chart.
    `<title>${escapeXml(caption)}</title>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${MARGIN}" y="${MARGIN + 4}" font-size="14" font-weight="bold">${escapeXml(caption)}</text>`,
  ];
  engines.forEach((engine, i) => {
    const x = MARGIN + i * 130;
    const y = MARGIN + 18;
    out.push(
      `<rect x="${x}" y="${y}" width="12" height="12" fill="${colour(engine)}"/>`,
      `<text x="${x + 16}" y="${y + 10}">${escapeXml(engine)}</text>`,
    );
  });
  shapes.forEach((shape, s) => {
    const top = MARGIN + LEGEND + s * rowHeight;
    out.push(
      `<text x="${MARGIN}" y="${top + 18}" font-size="13" font-weight="bold">${escapeXml(shape)}</text>`,
    );
    PANELS.forEach((panel, p) => {
      const left = MARGIN + p * PANEL_WIDTH;
      const panelTop = top + ROW_TITLE;
      const values = engines.map((engine) => {
        const row = rows.find((r) => r.shape === shape && r.engine === engine);
        return row === undefined ? Number.NaN : row[panel.key] * panel.scale;
      });
      const max = Math.max(...values.filter(Number.isFinite), Number.MIN_VALUE);
      const barArea = PANEL_HEIGHT - BAR_AREA_TOP - BAR_AREA_BOTTOM;
      const baseline = panelTop + PANEL_HEIGHT - BAR_AREA_BOTTOM;
      const slot = (PANEL_WIDTH - 20) / engines.length;
      out.push(
        `<text x="${left + PANEL_WIDTH / 2}" y="${panelTop + 14}" text-anchor="middle" font-weight="bold">${escapeXml(panel.label)}</text>`,
        `<line x1="${left + 6}" y1="${baseline}" x2="${left + PANEL_WIDTH - 6}" y2="${baseline}" stroke="#888"/>`,
      );
      values.forEach((value, e) => {
        const engine = engines[e] as string;
        const h = Number.isFinite(value) ? Math.max(1, (value / max) * barArea) : 0;
        const x = left + 10 + e * slot + slot * 0.15;
        const w = slot * 0.7;
        out.push(
          `<rect x="${x.toFixed(1)}" y="${(baseline - h).toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}" fill="${colour(engine)}"><title>${escapeXml(`${engine}, ${shape}: ${label(value)}`)}</title></rect>`,
          `<text x="${(x + w / 2).toFixed(1)}" y="${(baseline - h - 4).toFixed(1)}" text-anchor="middle">${label(value)}</text>`,
        );
      });
    });
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

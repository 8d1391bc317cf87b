import { escapeHtml } from "./escape.ts";
import type { DailySeries } from "./usage.ts";

/**
 * Inline SVG charts, built on the server as strings. Security: labels are
 * skill names and search queries, so every text node and attribute goes
 * through escapeHtml; styling is by presentation attributes and classes
 * (the Content-Security-Policy allows no inline style).
 */

/** Colour-blind-safe palette (Okabe-Ito), each at least 3:1 against the white and the dark background. */
export const PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#7F7F7F"];

/** Width of a chart in SVG units: as wide as a desktop page's column. */
export const WIDE = 720;
/**
 * Width of the charts a phone shows instead (style.css swaps them): drawn at about its screen's width,
 * so that 12-unit labels read as 12 px, not the 5 px the wide chart's shrink to.
 */
export const NARROW = 360;

/** Stacked bars: loads per day, one colour per skill, with a legend. `W`: the chart's width (WIDE, NARROW). */
export function dailyLoadsSvg(
  days: readonly string[],
  series: readonly DailySeries[],
  title: string,
  W = WIDE,
): string {
  const H = 240;
  const left = 36;
  const bottom = 28;
  const top = 12;
  const plotW = W - left - 8;
  const plotH = H - top - bottom;
  const totals = days.map((_, i) => series.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const step = niceStep(max);
  const yMax = Math.ceil(max / step) * step;
  const barW = plotW / Math.max(1, days.length);
  const y = (v: number) => top + plotH - (v / yMax) * plotH;
  const parts: string[] = [];
  for (let v = 0; v <= yMax; v += step) {
    parts.push(
      `<line class="grid" x1="${left}" x2="${W - 8}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>`,
      `<text class="axis" x="${left - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${v}</text>`,
    );
  }
  days.forEach((day, i) => {
    let base = 0;
    series.forEach((s, k) => {
      const n = s.counts[i] ?? 0;
      if (n === 0) return;
      const y0 = y(base);
      const y1 = y(base + n);
      parts.push(
        `<rect x="${(left + i * barW + 1).toFixed(1)}" y="${y1.toFixed(1)}" width="${Math.max(1, barW - 2).toFixed(1)}" height="${(y0 - y1).toFixed(1)}" fill="${PALETTE[k % PALETTE.length]}"><title>${escapeHtml(`${day}: ${s.skill} ${n}`)}</title></rect>`,
      );
      base += n;
    });
    if (i % Math.ceil(days.length / 6) === 0)
      parts.push(
        `<text class="axis" x="${(left + i * barW + barW / 2).toFixed(1)}" y="${H - 10}" text-anchor="middle">${escapeHtml(day.slice(5))}</text>`,
      );
  });
  const total = totals.reduce((a, b) => a + b, 0);
  const desc = `${total} loads from ${days[0] ?? ""} to ${days[days.length - 1] ?? ""}: ${series.map((s) => `${s.skill} ${s.total}`).join(", ")}`;
  return svg(W, H, title, desc, parts.join(""));
}

/** Horizontal bars with a label and a value each, longest first as given. `W`: the chart's width (WIDE, NARROW). */
export function barsSvg(
  items: readonly { label: string; value: number }[],
  title: string,
  colour = PALETTE[0],
  W = WIDE,
): string {
  const row = 26;
  // A label's room: about 30 characters, 16 on a narrow chart (the full label is in its <title>).
  const labelW = W >= WIDE ? 260 : 130;
  const labelChars = W >= WIDE ? 30 : 16;
  const H = Math.max(1, items.length) * row + 8;
  const max = Math.max(1, ...items.map((i) => i.value));
  const parts = items.map((item, i) => {
    const width = ((W - labelW - 60) * item.value) / max;
    const y = 4 + i * row;
    return (
      `<text class="label" x="${labelW - 8}" y="${y + 17}" text-anchor="end">${escapeHtml(clip(item.label, labelChars))}<title>${escapeHtml(item.label)}</title></text>` +
      `<rect x="${labelW}" y="${y + 4}" width="${Math.max(1, width).toFixed(1)}" height="${row - 8}" fill="${colour}"/>` +
      `<text class="value" x="${(labelW + width + 6).toFixed(1)}" y="${y + 17}">${item.value}</text>`
    );
  });
  const desc = items.map((i) => `${i.label}: ${i.value}`).join(", ") || "nothing recorded";
  return svg(W, H, title, desc, parts.join(""));
}

function svg(width: number, height: number, title: string, desc: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" class="chart ${width >= WIDE ? "wide" : "narrow"}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(title)}"><title>${escapeHtml(title)}</title><desc>${escapeHtml(desc)}</desc>${body}</svg>`;
}

/** A round axis step for values up to `max` (1, 2, 5 × 10^n), about four grid lines. */
function niceStep(max: number): number {
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(Math.max(1, raw)));
  for (const m of [1, 2, 5, 10]) if (raw <= m * power) return Math.max(1, m * power);
  return 10 * power;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

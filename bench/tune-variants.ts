/**
 * The neighbourhood of the chosen scoring (src/search/scoring.ts): each line moves one parameter,
 * so `bun bench/tune.ts` shows how flat the optimum is.
 */
import { BM25, SCORING } from "../src/search/scoring.ts";
import type { Variant } from "./tune.ts";

const lead = SCORING.lead;
export default [
  ["chosen", {}],
  ["lead boost 1.5", { lead: { ...lead, boost: 1.5 } }],
  ["lead boost 2.5", { lead: { ...lead, boost: 2.5 } }],
  ["lead k 1.2 b 0.7", { lead: { ...lead, k: 1.2, b: 0.7 } }],
  ["lead k 3", { lead: { ...lead, k: 3 } }],
  ["lead k 8", { lead: { ...lead, k: 8 } }],
  ["lead d 0", { lead: { ...lead, d: 0 } }],
  ["rest boost 0", { rest: { ...SCORING.rest, boost: 0 } }],
  ["rest boost 0.5", { rest: { ...SCORING.rest, boost: 0.5 } }],
  ["headings 0", { headings: { ...SCORING.headings, boost: 0 } }],
  ["headings 1", { headings: { ...BM25, boost: 1 } }],
  ["metaPower 0.7", { metaPower: 0.7 }],
  ["metaPower 1", { metaPower: 1 }],
  ["coverage power 0", {}, 0],
  ["coverage power 1", {}, 1],
] satisfies Variant[];

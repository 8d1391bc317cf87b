import type { Skill } from "../skills/skill.ts";
import type { Catalog } from "./catalog.ts";

/**
 * What tells the catalog's files apart by stat: every served skill file's path, stamp and size, in any
 * order (sources/stamp.ts). A hash of the set of rows: each row's hash is summed in two independent
 * 32-bit lanes, so there is nothing to sort and no row is turned into a string (sorting 20,000 row
 * strings held the event loop 18–40 ms when the first search began).
 */
export function catalogStamps(catalog: Catalog): string {
  const known = computed.get(catalog);
  if (known !== undefined) return known;
  let low = 0;
  let high = 0;
  for (const skill of catalog.skills) {
    low = (low + rowHash(skill, 0x5eed1)) >>> 0;
    high = (high + rowHash(skill, 0x5eed2)) >>> 0;
  }
  const stamps = `${catalog.skills.length}\u0001${low}\u0001${high}`;
  computed.set(catalog, stamps);
  return stamps;
}

/** Each catalog's, once: a catalog never changes (a scan makes a new one), and a start asks for it twice. */
const computed = new WeakMap<Catalog, string>();

const numberBits = new Float64Array(1);
const numberWords = new Uint32Array(numberBits.buffer);

/** One row's 32-bit hash under `seed`: the path's, with the exact bits of its stamp and size mixed in. */
function rowHash(skill: Skill, seed: number): number {
  const h = Bun.hash.xxHash32(skill.file, seed);
  return mixNumber(mixNumber(mixNumber(mixNumber(h, skill.mtimeMs), skill.ctimeMs), skill.ino), skill.size) >>> 0;
}

/** `h` with a number's exact bits mixed in. */
function mixNumber(h: number, n: number): number {
  numberBits[0] = n;
  return mix(mix(h, numberWords[0] as number), numberWords[1] as number);
}

const mix = (h: number, word: number): number => {
  const m = Math.imul(h ^ word, 0x9e3779b1);
  return m ^ (m >>> 15);
};

import { HeadingLines } from "../skills/markdown.ts";
import type { Skill } from "../skills/skill.ts";
import { BodyZones } from "./body-zones.ts";
import type { FieldTerms } from "./field-terms.ts";
import { fieldTerms } from "./field-terms.ts";
import { META_FIELDS, metadata } from "./fields.ts";
import { MAX_HEADINGS } from "./index-settings.ts";

/**
 * A skill's body for indexing: returned whole (a string), or fed in chunks to `sink` (which answers
 * false once enough has been taken); any other return value is ignored.
 */
export type BodySource = (skill: Skill, sink: (chunk: string) => boolean) => unknown;

/**
 * What one skill puts in each field of the index: its metadata fields' terms, then its body's, read once
 * (its headings, which skills do not keep, and its two zones: the lead and the rest, up to `bodyChars`).
 */
export function skillTerms(skill: Skill, body: BodySource, bodyChars: number): [field: string, terms: FieldTerms][] {
  const doc = metadata(skill);
  const out: [string, FieldTerms][] = META_FIELDS.map((f) => [f, fieldTerms(doc[f])]);
  const zones = new BodyZones(bodyChars);
  const found = new HeadingLines(MAX_HEADINGS);
  const whole = body(skill, (chunk) => {
    found.push(chunk);
    return zones.push(chunk) || !found.full;
  });
  if (typeof whole === "string") {
    found.push(whole);
    zones.push(whole);
  }
  const { lead, rest } = zones.end();
  out.push(["headings", fieldTerms(found.end().join("\n"))], ["lead", lead], ["body", rest]);
  return out;
}

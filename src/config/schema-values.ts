import { z } from "zod";

/** Value shapes the configuration's schemas share (schema.ts, schema-search.ts). */

export const positiveInt = () => z.number().int().min(1);
export const nonNegativeInt = () => z.number().int().min(0);
export const fraction = () => z.number().min(0).max(1);
export const stringList = () => z.array(z.string());
// A URL the fetch would refuse (`https://exa mple.com`, `http://[::1`) fails at start-up, not at every send.
export const httpUrl = () =>
  z
    .string()
    .regex(/^https?:\/\/[^\s/]+/i, "expected an http:// or https:// URL")
    .refine((url) => URL.canParse(url), "expected an http:// or https:// URL");

import { z } from "zod";

/** Value shapes the configuration's schemas share (schema.ts, schema-search.ts). */

export const positiveInt = () => z.number().int().min(1);
export const nonNegativeInt = () => z.number().int().min(0);
export const fraction = () => z.number().min(0).max(1);
export const stringList = () => z.array(z.string());
export const httpUrl = () => z.string().regex(/^https?:\/\/[^\s/]+/i, "expected an http:// or https:// URL");

import type { z } from "zod";

/**
 * The first key named `__proto__` in a tool call's raw arguments, as an issue at its path; undefined when
 * there is none. Pure.
 *
 * Security: JSON text makes `__proto__` an own key like any other, but zod skips it when it builds a record
 * (a plain object would take it as its prototype), so run_script's `{"args": {"__proto__": "x"}}` would run
 * the script without that argument, and the model would never learn it was not passed. Checked on the raw
 * arguments: a refusal instead of a silent drop. `constructor` and `prototype`
 * stay keys of their own in a parsed record, so they need no check here.
 */
export function protoKeyIssue(args: unknown): z.core.$ZodIssue | undefined {
  // Iterative, each value's path kept as a link to its parent's: arguments parsed from JSON nest as deep as
  // their text does (and have no cycles), so neither recursion nor a copied path per value would do.
  const pending: Place[] = [{ value: args }];
  for (let place = pending.pop(); place; place = pending.pop()) {
    const { value } = place;
    if (typeof value !== "object" || value === null) continue;
    if (!Array.isArray(value) && Object.hasOwn(value, "__proto__")) {
      return {
        code: "custom",
        path: [...pathOf(place), "__proto__"],
        message: "a key named '__proto__' cannot be passed: leave it out",
        input: value,
      };
    }
    for (const [key, item] of Object.entries(value)) pending.push({ value: item, key, parent: place });
  }
  return undefined;
}

/** A value of the arguments, with the key it has in its parent. */
interface Place {
  value: unknown;
  key?: string;
  parent?: Place;
}

function pathOf(place: Place): string[] {
  const path: string[] = [];
  for (let at: Place | undefined = place; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

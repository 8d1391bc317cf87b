import type { z } from "zod";

/**
 * The first key named `__proto__` in a tool call's raw arguments `args`, as an issue at its path, looked for
 * in the objects the schema's parse kept: `kept` is the parsed arguments, walked alongside `args`; undefined
 * when there is none. Pure.
 *
 * Security: JSON text makes `__proto__` an own key like any other, but zod skips it when it builds a record
 * (a plain object would take it as its prototype), so run_script's `{"args": {"__proto__": "x"}}` would run
 * the script without that argument, and the model would never learn it was not passed. Checked on the raw
 * arguments: a refusal instead of a silent drop. `constructor` and `prototype` stay keys of their own in a
 * parsed record, so they need no check here.
 *
 * Only what the parse kept is walked: a key the schema drops unread (an unknown key of a non-strict object)
 * is never visited, whatever it holds, so a `__proto__` inside it is not refused and its size costs nothing
 * here; the walk's work is bounded by the arguments the schema took.
 */
export function protoKeyIssue(args: unknown, kept: unknown): z.core.$ZodIssue | undefined {
  if (!isObject(args) || !isObject(kept)) return undefined;
  // Iterative, each value's path kept as a link to its parent's: arguments parsed from JSON nest as deep as
  // their text does (and have no cycles), so neither recursion nor a copied path per value would do.
  const pending: Place[] = [{ raw: args, kept }];
  for (let place = pending.pop(); place; place = pending.pop()) {
    const { raw } = place;
    // An array's keys are its indexes only.
    if (!Array.isArray(raw) && Object.hasOwn(raw, "__proto__")) {
      return {
        code: "custom",
        path: [...pathOf(place), "__proto__"],
        message: "a key named '__proto__' cannot be passed: leave it out",
        input: raw,
      };
    }
    const visit = (key: string | number, value: unknown) => {
      // Values the parse kept as objects only: a primitive holds no key.
      if (!isObject(value) || !Object.hasOwn(raw, key)) return;
      const inner = (raw as Record<string | number, unknown>)[key];
      if (isObject(inner)) pending.push({ raw: inner, kept: value, key: String(key), parent: place });
    };
    if (Array.isArray(place.kept)) for (let i = 0; i < place.kept.length; i++) visit(i, place.kept[i]);
    else for (const [key, value] of Object.entries(place.kept)) visit(key, value);
  }
  return undefined;
}

/** An object of the raw arguments, the value the parse kept at its path, and the key it has in its parent. */
interface Place {
  raw: object;
  kept: object;
  key?: string;
  parent?: Place;
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function pathOf(place: Place): string[] {
  const path: string[] = [];
  for (let at: Place | undefined = place; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

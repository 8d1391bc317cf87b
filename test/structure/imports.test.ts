import { describe, expect, test } from "bun:test";
import { join, relative, resolve } from "node:path";
import { importGraph, sourceFiles } from "./import-graph.ts";

/**
 * The import structure STYLE.md asks for, checked on src/ as it is: no import
 * cycles (type imports included), and the layers import one way only
 * (sources → skills → catalog → search → tools → server → transports).
 */

const SRC = resolve(import.meta.dir, "../../src");
const LAYERS = ["sources", "skills", "catalog", "search", "tools", "server", "transports"];

const files = sourceFiles(SRC);
const imports = importGraph(files);
const shown = (file: string) => relative(SRC, file);

/** Strongly connected components of more than one file (Tarjan). */
function cycles(): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of imports.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(shown(w));
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

describe("import structure of src/", () => {
  test("the scan sees the tree", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(imports.get(join(SRC, "server/hub.ts"))?.length).toBeGreaterThan(10);
  });

  test("no import cycles", () => {
    expect(cycles()).toEqual([]);
  });

  test("layers import one way: sources → skills → catalog → search → tools → server → transports", () => {
    const layer = (file: string) => LAYERS.indexOf(shown(file).split("/")[0] as string);
    const against = [...imports].flatMap(([file, targets]) =>
      targets
        .filter((target) => layer(file) >= 0 && layer(target) > layer(file))
        .map((target) => `${shown(file)} → ${shown(target)}`),
    );
    expect(against).toEqual([]);
  });
});

import { describe, expect, test } from "bun:test";
import { parseArgs } from "node:util";
import { parseCommandLine } from "../../src/config/args.ts";
import { type OptionSpec, parseArgv } from "../../src/config/argv.ts";

const OPTIONS = {
  port: { type: "string" },
  "skills-dir": { type: "string", multiple: true },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const satisfies Record<string, OptionSpec>;

/** What node:util's strict parseArgs makes of `args`: the values and positionals, or its error text. */
function reference(args: string[]) {
  try {
    const r = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
    return { values: { ...r.values }, positionals: r.positionals };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function ours(args: string[]) {
  try {
    return parseArgv(args, OPTIONS);
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe("parseArgv does what node:util's strict parseArgs does", () => {
  const cases: string[][] = [
    [],
    ["list", "--json"],
    ["--port", "8000", "serve"],
    ["--port=8000"],
    ["--port="],
    ["--port=-5"],
    ["--port", "-"],
    ["--skills-dir", "a", "--skills-dir=b", "--skills-dir", "c"],
    ["-h"],
    ["-hv", "word"],
    ["-", "x"],
    ["--", "--json", "-h"],
    ["show", "--", "-21risk-automation"],
    ["--json", "--json"],
    ["--frobnicate"],
    ["--frobnicate=1"],
    ["-x"],
    ["--port"],
    ["--json=1"],
    ["--port", "--json"],
    ["--__proto__"],
    ["--toString"],
  ];
  for (const args of cases)
    test(JSON.stringify(args), () => {
      expect(ours(args)).toEqual(reference(args));
    });

  test("an unknown letter in a group is an unknown option too", () => {
    expect(ours(["-hx"])).toEqual({ error: expect.stringContaining("Unknown option '-x'") });
    expect(reference(["-hx"])).toEqual({ error: expect.stringContaining("Unknown option") });
  });

  test("unlike node:util, a negative number after a string option is its value (the option checks it)", () => {
    expect(ours(["--port", "-5"])).toEqual({ values: { port: "-5" }, positionals: [] });
    expect(reference(["--port", "-5"])).toEqual({ error: expect.stringContaining("ambiguous") });
    expect(ours(["--port", "-x"])).toEqual({ error: expect.stringContaining("ambiguous") });
  });

  test("the command line keeps its usage errors", () => {
    expect(() => parseCommandLine(["--port"])).toThrow("option --port needs a value.");
    expect(() => parseCommandLine(["--json=yes"])).toThrow("option --json takes no value (got --json=yes).");
    expect(() => parseCommandLine(["list", "--help="])).toThrow("option --help takes no value (got --help=).");
    expect(parseCommandLine(["list", "--skills-dir", "a", "--skills-dir=b", "--json"])).toMatchObject({
      command: "list",
      flags: { "skills-dir": ["a", "b"] },
      options: { json: true },
    });
  });
});

/**
 * The command line's words → option values and positionals: the subset of node:util's strict
 * `parseArgs` that SkillHub uses, with the same results and the same error texts (args.ts rewords
 * them), except that a negative number after a string option is its value. Hand-written because
 * loading node:util cost ~4 ms of every start, which the floor does not pay.
 */

/** One option: a string (with `multiple`, every occurrence is kept) or a boolean flag. */
export type OptionSpec =
  | { type: "string"; multiple?: boolean }
  | {
      type: "boolean";
      /** One letter: `-h`; letters combine (`-hv`). */
      short?: string;
    };

export interface ParsedArgv {
  /** Option name → string, string[] (multiple) or true. Absent when not given. */
  values: Record<string, unknown>;
  positionals: string[];
}

/**
 * Parse `args` strictly: an unknown option, a flag given a value, or a string option without one
 * throws. `--` ends the options; a lone `-` is a positional.
 */
export function parseArgv(args: readonly string[], options: Readonly<Record<string, OptionSpec>>): ParsedArgv {
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const shorts = new Map<string, string>();
  for (const [name, spec] of Object.entries(options))
    if (spec.type === "boolean" && spec.short) shorts.set(spec.short, name);
  const set = (name: string, value: unknown) => {
    const spec = options[name];
    const previous = values[name];
    values[name] = spec?.type === "string" && spec.multiple ? [...((previous as unknown[]) ?? []), value] : value;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const spec = Object.hasOwn(options, name) ? options[name] : undefined;
      if (!spec) throw unknownOption(`--${name}`);
      if (spec.type === "boolean") {
        if (eq >= 0) throw new Error(`Option '--${name}' does not take an argument`);
        set(name, true);
      } else if (eq >= 0) {
        set(name, arg.slice(eq + 1));
      } else {
        const next = args[i + 1];
        if (next === undefined) throw new Error(`Option '--${name} <value>' argument missing`);
        // A negative number is a value (`--limit -1`), for the option's own check to refuse or take.
        if (next.startsWith("-") && next !== "-" && !/^-\d/.test(next))
          throw new Error(
            `Option '--${name}' argument is ambiguous.\nDid you forget to specify the option argument for '--${name}'?\nTo specify an option argument starting with a dash use '--${name}=-XYZ'.`,
          );
        set(name, next);
        i++;
      }
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") {
      for (const letter of arg.slice(1)) {
        const name = shorts.get(letter);
        if (name === undefined) throw unknownOption(`-${letter}`);
        set(name, true);
      }
      continue;
    }
    positionals.push(arg);
  }
  return { values, positionals };
}

function unknownOption(word: string): Error {
  return new Error(
    `Unknown option '${word}'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- "${word}"`,
  );
}

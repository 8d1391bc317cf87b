import type * as Yaml from "yaml";

let loaded: typeof Yaml | undefined;

/**
 * The yaml module, evaluated on first use rather than when the binary starts: the server answers
 * `initialize` before it reads a config file or a SKILL.md, and evaluating yaml cost every start
 * several milliseconds.
 */
export function yaml(): typeof Yaml {
  loaded ??= require("yaml") as typeof Yaml;
  return loaded;
}

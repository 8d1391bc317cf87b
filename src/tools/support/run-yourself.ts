import { extname } from "node:path";
import { argVariable } from "../../exec/env.ts";
import type { ScriptDecl } from "../../skills/tree-types.ts";

/** What runs a script of each extension on a client's machine. */
const LOCAL_RUNNERS: Record<string, string> = { ".sh": "bash", ".py": "python3", ".js": "node", ".ts": "npx tsx" };

/**
 * How a model runs a skill's script by hand, its arguments as the environment variables run_script would
 * set: `SKILL_ARG_COMPONENT_NAME='<component_name>' bash scripts/new-form.sh`.
 */
export function commandLine(decl: Pick<ScriptDecl, "args">, path: string): string {
  const runner = LOCAL_RUNNERS[extname(path).toLowerCase()];
  // Quoted: pasted as it is, <name> would be a redirection, and a value with spaces needs the quotes.
  const args = decl.args.map((a) => `${argVariable(a.name)}='<${a.name}>'`);
  return [...args, runner ? `${runner} ${path}` : `./${path}`].join(" ");
}

/**
 * The one shell command that downloads a skill's archive and unpacks it into `dir`: curl and tar, which
 * Linux, macOS and Windows 10+ all ship (bsdtar there). `-f`: a refused link fails the command instead of
 * handing tar an error page. The URL is quoted: a public URL may hold characters a shell reads.
 */
export function downloadCommand(url: string, dir: string): string {
  return `mkdir -p ${dir} && curl -fsSL '${url.replaceAll("'", "%27")}' | tar -xzf - -C ${dir}`;
}

import { extname } from "node:path";
import { argVariable } from "../../exec/env.ts";
import type { ScriptDecl } from "../../skills/tree-types.ts";
import { shellWords } from "../../util/shell-words.ts";

/** What runs a script of each extension on a client's machine. */
const LOCAL_RUNNERS: Record<string, string[]> = {
  ".sh": ["bash"],
  ".py": ["python3"],
  ".js": ["node"],
  ".ts": ["npx", "tsx"],
};

/** The runner a client's machine has for `path` by its extension, or undefined. */
export function localRunner(path: string): string[] | undefined {
  return LOCAL_RUNNERS[extname(path).toLowerCase()];
}

/**
 * How a model runs a skill's script by hand, its arguments as the environment variables run_script would
 * set: `SKILL_ARG_COMPONENT_NAME='<component_name>' bash scripts/new-form.sh`. `path` is where the script
 * is from the folder the line runs in.
 * Security: the line is pasted into a shell, and the path and argument names are the skill author's text:
 * every word is quoted (shell-words.ts), POSIX-style, as the line's `NAME=value command` form is POSIX sh.
 */
export function commandLine(decl: Pick<ScriptDecl, "args">, path: string): string {
  const runner = localRunner(path);
  // Quoted: pasted as it is, <name> would be a redirection, and a value with spaces needs the quotes.
  const args = decl.args.map((a) => `${argVariable(a.name)}=${shellWords([`<${a.name}>`], "linux")}`);
  const command = runner ? shellWords([...runner, path], "linux") : shellWords([`./${path}`], "linux");
  return [...args, command].join(" ");
}

/**
 * The one shell command that downloads a skill's archive and unpacks it into `dir`: curl and tar, which
 * Linux, macOS and Windows 10+ all ship (bsdtar there). `-f`: a refused link fails the command instead of
 * handing tar an error page. The URL is quoted: a public URL may hold characters a shell reads.
 */
export function downloadCommand(url: string, dir: string): string {
  return `mkdir -p ${dir} && curl -fsSL '${url.replaceAll("'", "%27")}' | tar -xzf - -C ${dir}`;
}

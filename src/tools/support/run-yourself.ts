import { extname, posix } from "node:path";
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
 * set: `SKILL_ARG_COMPONENT_NAME='<component_name>' SKILL_ARG_TARGET_DIR=src/components bash
 * scripts/new-form.sh`. As run_script fills them in, an argument with a default has it, a required one
 * without a default is a placeholder to replace, and an optional one without a default is left out
 * (optionalArgs names the last two kinds). `path` is where the script is from the folder the line runs in.
 * Security: the line is pasted into a shell, and the path, argument names and defaults are the skill
 * author's text: every word is quoted (shell-words.ts), POSIX-style, as the line's `NAME=value command`
 * form is POSIX sh.
 */
export function commandLine(decl: Pick<ScriptDecl, "args">, path: string): string {
  const runner = localRunner(path);
  // Quoted: pasted as it is, <name> would be a redirection, and a value with spaces needs the quotes.
  const args = decl.args.flatMap((a) => {
    const value = a.default ?? (a.required ? `<${a.name}>` : undefined);
    return value === undefined ? [] : [`${argVariable(a.name)}=${shellWords([value], "linux")}`];
  });
  const command = runner ? shellWords([...runner, path], "linux") : shellWords([`./${path}`], "linux");
  return [...args, command].join(" ");
}

/**
 * The sentence that follows a command line (commandLine) and names its optional arguments, each with its
 * description: one with a default, which the line sets to it, and one without, which the line leaves out.
 * Starts with a space; "" when every argument is required.
 */
export function optionalArgs(decl: Pick<ScriptDecl, "args">): string {
  const optional = decl.args.filter((a) => a.default !== undefined || !a.required);
  if (optional.length === 0) return "";
  const named = optional.map(
    (a) =>
      `${argVariable(a.name)}${a.description ? ` (${a.description})` : ""}, ${a.default === undefined ? "left out of the line" : "set to its default in the line"}`,
  );
  return ` Optional: ${named.join("; ")}.`;
}

/**
 * The one shell command that downloads a skill's archive and puts its folder at `dir`
 * (`.skillhub-skills/<name>`), in POSIX sh with curl, tar and mktemp (Linux, macOS and Git Bash have them):
 * curl saves the archive into a fresh hidden folder beside `dir`, tar unpacks it into a folder made there
 * (mktemp's own is private, 0700), and only when both succeeded is the old `dir` removed (a newer version
 * replaces it, never lands inside it) and the new one moved in. A failed download (refused, cut off, not
 * gzip) removes the hidden folder and exits with the status of the tool that failed (curl's 22 for a refused
 * link, tar's for bytes that are no gzip: an agent tells them apart as it would running each itself), by a
 * subshell's `exit`, which ends no shell of the user's; `dir` is left as it was. The removal runs only once
 * mktemp has set `tmp` (a `tmp` of the user's shell is never removed). Saved, not piped: a pipe's status is
 * tar's alone, and a refused link must stop the command before anything moves. `-f`: a refused link fails
 * curl instead of saving its error page. Security: the URL is quoted (a public URL may hold characters a
 * shell reads); `dir` is archiveName's (letters, digits, `.`, `_`, `-` under `.skillhub-skills/`), so
 * `rm -rf` names that one folder; the temporary folder, a variable's value, is quoted. The command stops,
 * saying why, when `.skillhub-skills` is a symbolic link: in a checkout made by someone else it may lead
 * anywhere, and `rm -rf .skillhub-skills/<name>` would delete `<name>` there (a link at `dir` itself is
 * harmless: `rm -rf` removes the link, not what it leads to).
 */
export function downloadCommand(url: string, dir: string): string {
  const parent = posix.dirname(dir);
  return [
    `if test -L ${parent}; then echo '${parent} is a symbolic link; nothing was downloaded' >&2; false; fi`,
    `mkdir -p ${parent}`,
    `tmp=$(mktemp -d ${parent}/.${posix.basename(dir)}.XXXXXX)`,
    `{ ${[
      `curl -fsSL -o "$tmp/skill.tar.gz" '${url.replaceAll("'", "%27")}'`,
      `mkdir "$tmp/skill"`,
      `tar -xzf "$tmp/skill.tar.gz" -C "$tmp/skill"`,
    ].join(" && ")} || { rc=$?; rm -rf "$tmp"; (exit $rc); }; }`,
    `rm -rf ${dir}`,
    `mv "$tmp/skill" ${dir}`,
    `rm -rf "$tmp"`,
  ].join(" && ");
}

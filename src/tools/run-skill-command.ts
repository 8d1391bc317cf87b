import { z } from "zod";
import { argsTooLarge } from "../exec/arg-size.ts";
import { checkCommandName, checkCurlGlobs, checkLinkFlags, checkPathArgs } from "../exec/command-args.ts";
import { childEnv } from "../exec/env.ts";
import { runHolder, runOnHost } from "../exec/host.ts";
import { commandRunner } from "../exec/runners.ts";
import { realFolder } from "../skills/skill-read.ts";
import { SkillHubError } from "../util/errors.ts";
import { shownArg } from "../util/shown-arg.ts";
import { defineTool } from "./definition.ts";
import { errorResult, structuredResult } from "./results.ts";
import { filesBase } from "./support/asset-read.ts";
import { projectOwnedRefusal, projectOwnership } from "./support/project-owned.ts";
import { lookupSkill } from "./support/skill-lookup.ts";

const Input = () =>
  z
    .object({
      skill_name: z
        .string()
        .trim()
        .min(1, "skill_name cannot be empty")
        .describe("Name of the skill whose folder the command runs in (from search_skills or load_skill)"),
      command: z
        .string()
        .min(1, "command cannot be empty")
        .describe(
          "A bare command name from the server's allow-list (ALLOWED_COMMANDS), e.g. 'python' or 'ls'; never a path",
        ),
      args: z
        .array(z.string())
        .optional()
        .describe(
          "Arguments, each passed as it is (no shell: no globbing, pipes or variables); file paths must stay inside the skill's folder",
        ),
    })
    .strict();

const Output = () =>
  z.object({
    stdout: z.string().describe("Standard output, at most EXEC_MAX_OUTPUT_BYTES"),
    stderr: z.string().describe("Standard error, at most EXEC_MAX_OUTPUT_BYTES"),
    exit_code: z
      .number()
      .int()
      .describe("The command's exit code; 128 + signal number when a signal ended it; 137 after a timeout"),
    timeout: z.boolean().describe("true when the command was killed at EXEC_TIMEOUT_SECONDS"),
    truncated: z
      .object({ stdout: z.boolean(), stderr: z.boolean() })
      .describe("Which streams were cut at EXEC_MAX_OUTPUT_BYTES"),
  });

/**
 * Run an allow-listed command in a skill's folder. Offered
 * only when enabled explicitly (--enable-commands / SKILLHUB_ENABLE_COMMANDS=1);
 * src/tools/index.ts leaves it out otherwise.
 */
export const runSkillCommandTool = defineTool({
  name: "run_skill_command",
  title: "Run Command in Skill Folder",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  inputSchema: Input,
  outputSchema: Output,
  description: (_catalog, { deps }) =>
    "Run an allow-listed command with the skill's folder as working directory and return its output " +
    `(allowed: ${deps.config.commands.allowed.join(", ") || "none"}). python runs through 'uv run python' when uv is installed. ` +
    "No shell; paths in arguments must stay inside the skill's folder. Prefer running a skill's scripts yourself from the " +
    "path load_skill returns, so that their output lands in the user's project.",
  handler: async ({ skill_name, command, args = [] }, { deps, session, signal }) => {
    const config = deps.config.commands;
    // Security: never offered unless enabled; a direct call on a server that did not enable it is refused too.
    if (!config.enabled) {
      return errorResult(
        "COMMANDS_DISABLED",
        "run_skill_command is disabled on this server (start it with --enable-commands or SKILLHUB_ENABLE_COMMANDS=1).",
      );
    }
    // Frozen: every file of the skill must match the lock before a command runs in its folder.
    const found = await lookupSkill(skill_name, deps, undefined, { runs: "command" });
    if (found.error) return found.error;
    const skill = found.skill;
    // Security: a project's skill is the project's code, which the user merely opened: a command run in its
    // folder runs it (Python puts the working folder first on its module path, so `python -m json.tool`
    // imports the skill's `json/`). As for run_script, only scripts.allow_project lets it.
    if (!deps.config.scripts.allow_project && projectOwnership(deps.config)(skill)) {
      return errorResult(
        "COMMANDS_DISABLED",
        `${projectOwnedRefusal(`Skill '${skill.name}' is`, "commands in its folder")} Read its files with read_skill_file and run them yourself if the user agrees.`,
        { skill: skill.name, location: "project" },
      );
    }
    const name = checkCommandName(command);
    if (!name.ok) {
      return errorResult(
        "COMMAND_NOT_ALLOWED",
        `Command '${shownArg(command)}' ${name.reason}. Allowed commands: ${config.allowed.join(", ") || "none"}.`,
        { command: shownArg(command), allowed: config.allowed },
      );
    }
    // Security: exact names only (ALLOWED_COMMANDS); "python3" is not "python".
    if (!config.allowed.includes(command)) {
      return errorResult(
        "COMMAND_NOT_ALLOWED",
        `Command '${shownArg(command)}' is not allowed on this server. Allowed commands: ${config.allowed.join(", ") || "none"} (ALLOWED_COMMANDS).`,
        { command: shownArg(command), allowed: config.allowed },
      );
    }
    const dir = filesBase(skill);
    if (dir === undefined) {
      return errorResult(
        "FILE_NOT_FOUND",
        `Skill '${skill.name}' has no folder to run a command in (its resource folder does not exist).`,
        { skill: skill.name },
      );
    }
    // Security: the folder every read of the skill is confined to, or none (a tree node's resource folder
    // that is a link out of the folder of the node's file). Its real path is what the arguments are checked
    // against and where the command runs: `dir` may hold a link, swapped for one to elsewhere after the check.
    const folder = realFolder(dir, skill);
    if (!folder.ok) {
      return errorResult(
        folder.code === "PATH_OUTSIDE_SKILL" ? "PATH_OUTSIDE_SKILL" : "FILE_NOT_FOUND",
        `Skill '${skill.name}' has no folder to run a command in: ${folder.reason}`,
        { skill: skill.name },
      );
    }
    const size = argsTooLarge(
      args.map((arg, index) => [String(index + 1), arg]),
      "command",
      { one: "Pass a file inside the skill's folder instead of its text.", all: "Split the work into several calls." },
    );
    if (size) return errorResult("INVALID_ARGUMENT", size, { skill: skill.name });
    // Security: options that follow symlinks (grep -R, find -L) are refused like paths that leave the skill.
    const quote = (arg: string) => `'${shownArg(arg)}'`;
    const links = checkLinkFlags(command, args, quote);
    const globs = links.ok ? checkCurlGlobs(command, args, quote) : links;
    const paths = globs.ok ? checkPathArgs(args, folder.root, { quote }) : globs;
    if (!paths.ok) {
      return errorResult(
        "PATH_OUTSIDE_SKILL",
        `${capitalise(paths.reason)}. Commands run in the skill's folder; give paths relative to it, without '..'.`,
        { skill: skill.name },
      );
    }
    const host = deps.exec;
    const runner = commandRunner(command, host, host.env.PATH);
    if (!runner.ok) {
      return errorResult(
        "NO_RUNNER",
        `Command '${command}' is allowed but not installed on this machine ('${runner.executable}' is not on PATH).`,
        { command },
      );
    }
    let result: Awaited<ReturnType<typeof runOnHost>>;
    try {
      result = await runOnHost(
        host,
        {
          argv: [...runner.runner.argv, ...args],
          cwd: folder.root,
          env: childEnv(host.env, deps.config),
          timeoutMs: config.timeout_seconds * 1000,
          maxOutputBytes: config.max_output_bytes,
          signal,
        },
        // Over HTTP one client holds at most its share of the server's runs (exec/host.ts clientShare).
        runHolder(session),
      );
    } catch (error) {
      if (!(error instanceof SkillHubError)) throw error;
      if (error.code === "TOO_MANY_RUNS") return errorResult("TOO_MANY_RUNS", `${error.message}.`, error.details);
      // The program's path is the server's: a remote client's answer names it `<program '…'>` (server/server-paths.ts).
      return errorResult(
        "NO_RUNNER",
        `Command '${command}' could not start: ${error.message}. Install a working '${command}' on the server's PATH, or take it off ALLOWED_COMMANDS.`,
        { command },
      );
    }
    deps.track(
      "script_executed",
      {
        skill_path: skill.name,
        file: command,
        execution_mode: "command",
        success: result.exitCode === 0 && !result.timedOut,
        exit_code: result.exitCode,
        duration_ms: result.durationMs,
        // Privacy: the count only; argument values can hold file names, queries or tokens (analytics records names only).
        args_count: args.length,
      },
      session.address,
    );
    return structuredResult({
      stdout: result.stdout.text,
      stderr: result.stderr.text,
      exit_code: result.exitCode,
      timeout: result.timedOut,
      truncated: { stdout: result.stdout.truncated, stderr: result.stderr.truncated },
    });
  },
});

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

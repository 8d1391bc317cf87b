import { extname, isAbsolute } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import { chainFiles, findFileInChain } from "../catalog/tree-chain.ts";
import { argsTooLarge } from "../exec/arg-size.ts";
import { argVariable, childEnv } from "../exec/env.ts";
import { runHolder, runOnHost } from "../exec/host.ts";
import { scriptRunner } from "../exec/runners.ts";
import { scriptOutcome } from "../exec/script-result.ts";
import { resolveWorkingDir } from "../exec/working-dir.ts";
import type { ScriptDecl } from "../skills/tree-node.ts";
import { SkillHubError } from "../util/errors.ts";
import { checkRelativePath } from "../util/safe-path.ts";
import { shownArg } from "../util/shown-arg.ts";
import { statOf } from "../util/stat.ts";
import { defineTool } from "./definition.ts";
import { errorResult, jsonTextHandler, structuredResult } from "./results.ts";
import { locateFile } from "./support/asset-read.ts";
import { projectOwnedRefusal, projectOwnership } from "./support/project-owned.ts";
import { commandLine, optionalArgs } from "./support/run-yourself.ts";
import { downloadAdvice } from "./support/skill-archive.ts";
import { skillPathArg } from "./support/skill-path-arg.ts";
import { skillPlace } from "./support/skill-place.ts";
import { lookupSkillPath } from "./support/tree-lookup.ts";

const Input = () =>
  z
    .object({
      skill_path: skillPathArg().describe("Skill path from get_skill or list_skills, e.g. 'ui/react/auth'"),
      file: z
        .string()
        .min(1, "file cannot be empty")
        .describe(
          "Script path exactly as get_skill lists it in scripts or inherited_scripts, e.g. 'scripts/validate-auth-config.ts'",
        ),
      args: z
        .record(z.string(), z.string())
        .default({})
        .describe(
          'The script\'s named arguments as get_skill lists them, e.g. {"config_path": "config/app.yaml"}; leave out when it takes none. Passed as SKILL_ARG_<NAME> environment variables; a path names a file on the server',
        ),
      cwd: z
        .string()
        .optional()
        .describe(
          "Working folder for the script, absolute or relative to the project root (over HTTP: relative, inside it); it must exist. Default: the project root",
        ),
    })
    .strict();

const Output = () =>
  z.object({
    success: z.boolean().describe("true when the script exited with code 0 within its timeout"),
    exit_code: z
      .number()
      .int()
      .describe("The script's exit code; 128 + signal number when a signal ended it; 137 after a timeout"),
    stdout: z.string().describe("Standard output, at most scripts.max_output_bytes"),
    stderr: z
      .string()
      .describe(
        "Standard error, at most scripts.max_output_bytes, followed by [skills-mcp] notes on truncation or timeout",
      ),
    duration_ms: z.number().int(),
    script: z.string().describe("The script that ran"),
    uri: z
      .string()
      .optional()
      .describe(
        "For a client on another machine: the script's skill:// URI (read_skill_file and resources/read take it)",
      ),
  });

/** Run a script a tree node declares with `execution: server`, after its whole validation cascade. */
export const runScriptTool = defineTool({
  name: "run_script",
  title: "Run Skill Script",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "Run a script of a skill on the server and return its exit code and output. Only scripts that get_skill lists with " +
    "execution 'server' can run here; scripts with execution 'claude' must be fetched with get_asset and run by you with bash. " +
    "Pass the script's arguments by name in `args` (required ones must be given). The script runs without a shell, " +
    "with no input, a timeout and an output cap; nothing it starts outlives it.",
  handler: jsonTextHandler(async ({ skill_path, file, args, cwd }, ctx) => {
    const { deps, session, signal } = ctx;
    const config = deps.config.scripts;
    // Security: the global kill switch comes before anything else is looked at.
    if (!config.enabled) {
      return errorResult(
        "SCRIPTS_DISABLED",
        "Script execution is disabled on this server (scripts.enabled: false). Fetch the script with get_asset and run it yourself if appropriate.",
      );
    }
    // Frozen: every file of the skill (and of the nodes it inherits from) must match the lock before code runs.
    const found = await lookupSkillPath(skill_path, deps, { runs: "script" });
    if (found.error) return found.error;
    const skill = found.skill;
    const checked = checkRelativePath(file);
    if (!checked.ok) {
      return errorResult(
        "PATH_OUTSIDE_SKILL",
        `Script path '${shownArg(file)}' ${checked.reason}. Give the path exactly as get_skill lists it.`,
        { skill_path: skill.name, file: shownArg(file) },
      );
    }
    const path = checked.path;
    const catalog = deps.store.catalog;
    // For a client on another machine told to run a script itself: the command that downloads the skill's folder.
    const yourself = (run?: Pick<ScriptDecl, "args" | "file">) => {
      const advice = downloadAdvice(skill, ctx, run);
      return advice ? ` ${advice.text}` : "";
    };
    // Security: only a file the skill's frontmatter declares as a script can run; a file merely present in the folder cannot.
    const hit = skill.kind === "tree-node" ? findFileInChain(catalog, skill, path) : undefined;
    if (hit?.kind !== "script") {
      const declared = skill.kind === "tree-node" ? declaredScripts(chainFiles(catalog, skill)) : [];
      const listing =
        declared.length > 0
          ? `Declared scripts: ${declared.map((s) => `${s.file} (execution: ${s.execution})`).join(", ")}.`
          : skill.kind === "tree-node"
            ? "It declares no scripts."
            : "It is an Agent Skill, whose scripts run_script does not run: fetch the script with read_skill_file and run it yourself.";
      return errorResult(
        "SCRIPT_NOT_DECLARED",
        `Script '${shownArg(path)}' not found for skill '${skill.name}'. ${listing} Only scripts declared in the skill's frontmatter can run.${skill.kind === "agent-skill" ? yourself() : ""}`,
        {
          skill_path: skill.name,
          file: shownArg(path),
          available: declared.map((s) => s.file),
        },
      );
    }
    const decl = hit.decl as ScriptDecl;
    // Security: `execution: server` is the skill author's explicit opt-in to server-side execution.
    if (decl.execution !== "server") {
      const advice = downloadAdvice(skill, ctx, { args: decl.args, file: path });
      const line = `${commandLine(decl, path)}.${optionalArgs(decl)}`;
      return errorResult(
        "SCRIPT_NOT_SERVER",
        `Script '${path}' is declared with execution: '${decl.execution}', so run_script does not run it. ${
          advice?.offered
            ? `Run it yourself, each argument as an environment variable. ${advice.text}`
            : advice
              ? `Run it yourself, each argument as an environment variable: ${line} ${advice.text}`
              : `Fetch it with get_asset, with any file it reads, and run it yourself from the skill's folder, each argument as an environment variable: ${line}`
        }`,
        { skill_path: skill.name, file: path, execution: decl.execution },
      );
    }
    // Security: a repository the user merely opened could declare server scripts in its .agents/.claude
    // folders; those run only when the user says so. Skills the user installed or syncs are trusted.
    if (!config.allow_project && projectOwnership(deps.config)(hit.owner)) {
      return errorResult(
        "SCRIPTS_DISABLED",
        `${projectOwnedRefusal(`Script '${path}' belongs to '${hit.owner.name}'`, "server scripts from the project")} Fetch it with get_asset and run it yourself if the user agrees.${yourself({ args: decl.args, file: path })}`,
        { skill_path: skill.name, file: path, location: "project" },
      );
    }
    const argCheck = checkArgs(decl, args);
    if (argCheck) return argCheck(skill.name, path);
    const values = withDefaults(decl, args);
    // Security: exec refuses a longer one (E2BIG), which would read as a runner that cannot start.
    const size = argsTooLarge(
      Object.entries(values).map(([name, value]) => [`'${name}'`, value, Buffer.byteLength(`${argVariable(name)}=`)]),
      "script",
      {
        one: "Give a shorter value (a file's path instead of its text, if the script takes one).",
        all: "Give shorter values.",
      },
    );
    if (size) return errorResult("INVALID_ARGUMENT", size, { skill_path: skill.name, file: path });
    const extension = extname(path).toLowerCase();
    const allowed = config.allowed_extensions.map((e) => (e.startsWith(".") ? e : `.${e}`).toLowerCase());
    // Security: an operator's extension allow-list, whatever a skill declares.
    if (!allowed.includes(extension)) {
      return errorResult(
        "EXTENSION_NOT_ALLOWED",
        `Script '${path}' has the extension '${extension || "(none)"}', which this server does not run. Allowed extensions: ${allowed.join(", ")} (scripts.allowed_extensions).`,
        { skill_path: skill.name, file: path, extension, allowed },
      );
    }
    const owner = hit.owner;
    const located = locateFile(owner, path);
    if (!located.ok || !statOf(located.real)?.isFile()) {
      const code = located.ok ? "FILE_NOT_FOUND" : located.code;
      const reason = located.ok ? `'${path}' is not a file` : located.reason;
      const message =
        code === "PATH_OUTSIDE_SKILL"
          ? `Script '${path}' ${"folder" in located ? `of '${owner.name}' does not run: ${located.reason}` : `resolves outside the resource folder of '${owner.name}' and does not run`}.`
          : `Script '${path}' is declared by '${owner.name}' but missing on disk (${reason}).`;
      return errorResult(code, message, { skill_path: skill.name, file: path });
    }
    const host = deps.exec;
    const runner = scriptRunner(extension, config.runners, host, host.env.PATH);
    // A runner's path in these messages is the server's: a remote client's answer names it `<program '…'>` instead
    // (server/server-paths.ts), as every folder of the server.
    const advice = `Give '${extension}' a runner that works in scripts.runners, or fetch the script with get_asset and run it yourself.`;
    if (!runner.ok) {
      const message =
        runner.reason === "none"
          ? `No runner is configured for '${extension}' scripts (scripts.runners). Fetch the script with get_asset and run it yourself.`
          : runner.reason === "no-config"
            ? `The runner '${runner.configured}' for '${extension}' scripts cannot start: its empty config file cannot be written in SkillHub's home (${runner.why}). Fetch the script with get_asset and run it yourself.`
            : `The runner '${runner.configured}' for '${extension}' scripts is not installed on this machine (${isAbsolute(runner.executable ?? "") ? "no executable file there" : `'${runner.executable}' is not on PATH`}). ${advice}`;
      return errorResult("NO_RUNNER", message + yourself({ args: decl.args, file: path }), {
        skill_path: skill.name,
        file: path,
        extension,
      });
    }
    const workDir = resolveWorkingDir(
      cwd,
      deps.projectRoot.dir ?? host.cwd,
      // A root of / or a home (or a link to one) is no project to confine a client to (a server started there by hand).
      session.remote ? { project: deps.projectRoot.dir !== null, home: deps.homeDir } : undefined,
      (text) => `'${shownArg(text)}'`,
    );
    if (!workDir.ok)
      return errorResult(
        "INVALID_ARGUMENT",
        `${workDir.reason}. ${
          workDir.unconfined
            ? "Leave cwd out: a client on another machine runs scripts in the server's default folder only."
            : "Give an existing folder as cwd, or leave it out to run in the project root."
        }`,
        { cwd: shownArg(cwd ?? "") },
      );
    const maxBytes = config.max_output_bytes;
    let result: Awaited<ReturnType<typeof runOnHost>>;
    try {
      result = await runOnHost(
        host,
        {
          argv: [...runner.runner.argv, located.real],
          cwd: workDir.dir,
          env: childEnv(host.env, deps.config, values, runner.runner.env),
          timeoutMs: config.timeout_seconds * 1000,
          maxOutputBytes: maxBytes,
          signal,
        },
        // Over HTTP one client holds at most its share of the server's runs (exec/host.ts clientShare).
        runHolder(session),
      );
    } catch (error) {
      if (!(error instanceof SkillHubError)) throw error;
      if (error.code === "TOO_MANY_RUNS") return errorResult("TOO_MANY_RUNS", `${error.message}.`, error.details);
      return errorResult(
        "NO_RUNNER",
        `The runner '${runner.runner.configured}' for '${extension}' scripts could not start: ${error.message}. ${advice}${yourself({ args: decl.args, file: path })}`,
        { skill_path: skill.name, file: path, extension },
      );
    }
    const outcome = scriptOutcome(result, maxBytes);
    deps.track(
      "script_executed",
      {
        skill_path: skill.name,
        file: path,
        execution_mode: "server",
        success: outcome.success,
        exit_code: outcome.exit_code,
        duration_ms: outcome.duration_ms,
        args_provided: Object.keys(args),
      },
      session.address,
    );
    return structuredResult({
      ...outcome,
      script: path,
      ...(session.remote ? { uri: skillPlace(skill, ctx).uri(path) } : {}),
    });
  }),
});

function declaredScripts(files: ReturnType<typeof chainFiles>): ScriptDecl[] {
  return [...files.scripts, ...files.inheritedScripts].sort((a, b) => a.file.localeCompare(b.file));
}

type ArgRefusal = (skillPath: string, file: string) => CallToolResult;

/**
 * The "required args present?" step: MISSING_ARGS lists every missing
 * argument with its description. Then (stricter than that step) arguments the script
 * does not declare, or values with a NUL byte, are refused rather than
 * silently dropped or mangled.
 */
function checkArgs(decl: ScriptDecl, args: Readonly<Record<string, string>>): ArgRefusal | undefined {
  const missing = decl.args.filter((a) => a.required && a.default === undefined && !Object.hasOwn(args, a.name));
  if (missing.length > 0) {
    return (skillPath, file) =>
      errorResult(
        "MISSING_ARGS",
        `Script '${file}' needs ${missing.length === 1 ? "this argument" : "these arguments"}: ${missing.map((a) => `${a.name} (${a.description || "no description"})`).join("; ")}. Pass ${missing.length === 1 ? "it" : "them"} by name in args.`,
        { skill_path: skillPath, file, missing: missing.map((a) => ({ name: a.name, description: a.description })) },
      );
  }
  const known = new Set(decl.args.map((a) => a.name));
  const unknown = Object.keys(args).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    const accepted = decl.args.map((a) => a.name);
    return (skillPath, file) =>
      errorResult(
        "INVALID_ARGUMENT",
        `Script '${file}' does not declare ${unknown.map((n) => `'${n}'`).join(", ")}. ${accepted.length > 0 ? `It accepts: ${accepted.join(", ")}.` : "It takes no arguments: pass {}."}`,
        { skill_path: skillPath, file, unknown, accepted },
      );
  }
  // Security: an environment value cannot hold a NUL byte; refusing beats passing a cut value.
  const withNul = Object.keys(args).filter((name) => args[name]?.includes("\0"));
  if (withNul.length > 0) {
    return (skillPath, file) =>
      errorResult("INVALID_ARGUMENT", `Argument ${withNul.map((n) => `'${n}'`).join(", ")} contains a NUL byte.`, {
        skill_path: skillPath,
        file,
      });
  }
  return undefined;
}

/** The given arguments, plus the defaults of optional ones left out. */
function withDefaults(decl: ScriptDecl, args: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of decl.args) {
    const value = Object.hasOwn(args, a.name) ? args[a.name] : a.default;
    if (value !== undefined) out[a.name] = value;
  }
  return out;
}

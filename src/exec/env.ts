import type { Config } from "../config/schema.ts";
import { ENV_SETTINGS } from "../config/settings.ts";
import { keepAbsoluteEntries } from "../util/path-env.ts";
import { type SecretSpec, withoutSecrets } from "../util/secret-env.ts";

/**
 * The environment of a script or command: the server's environment without
 * its secrets, plus the script's arguments as SKILL_ARG_<NAME> variables.
 */

/**
 * SkillHub's own settings that are URLs (ANALYTICS_ENDPOINT, EMBEDDING_BASE_URL, OPENAI_BASE_URL,
 * SKILLHUB_PUBLIC_URL, SKILLS_REPO): no script or command needs them. Security: a URL can carry a
 * credential that no name says is one (`?api_key=…`, a webhook's token in its path).
 */
export const SERVER_URL_ENV: readonly string[] = Object.entries(ENV_SETTINGS)
  .filter(([, setting]) => setting.url)
  .map(([name]) => name);

/**
 * The secrets a configuration holds: names from `secrets`, values of the tokens and of every `*api_key`,
 * and every variable whose name looks like a credential's except those `pass_env` lets through; and the
 * server's own URLs (SERVER_URL_ENV), dropped by name unless `pass_env` names one.
 */
export function configSecrets(config: Config): SecretSpec & { names: readonly string[] } {
  const keys = Object.entries(config.embedding as Record<string, unknown>)
    .filter(([key, value]) => key.endsWith("api_key") && typeof value === "string")
    .map(([, value]) => value as string);
  const passed = new Set(config.pass_env.map((n) => n.toUpperCase()));
  return {
    names: config.secrets,
    values: [config.git.token, config.server.token, config.server.admin_token, ...keys],
    credentialNames: { except: config.pass_env },
    dropped: SERVER_URL_ENV.filter((name) => !passed.has(name)),
  };
}

/**
 * Variables that make a shell, an interpreter or the dynamic loader run code of their own naming before the
 * script's (a file to source, a module to preload, options to prepend, a library to inject). Security: the
 * server's environment is the user's client's, and one set there for another purpose would reach every
 * script: a relative `BASH_ENV=./env.sh` is sourced from the working folder (a skill's, or any `cwd` a model
 * names) by every bash started, a pyenv shim included; `BUN_OPTIONS=--preload ./x.js` runs before each .ts
 * and .js script; `SHELLOPTS=xtrace` with a `PS4` holding `$(…)` runs that command; a `PYTHONWARNINGS`
 * category imports a module. A frozen server runs reviewed files only. `pass_env` lets a named one through.
 */
export const STARTUP_HOOK_ENV = [
  "BASH_ENV",
  "ENV",
  "NODE_OPTIONS",
  "BUN_OPTIONS",
  "PYTHONSTARTUP",
  "PERL5OPT",
  "RUBYOPT",
  "JAVA_TOOL_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "_JAVA_OPTIONS",
  "LD_PRELOAD",
  "LD_AUDIT",
  "DYLD_INSERT_LIBRARIES",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "PYTHONWARNINGS",
  "LUA_INIT",
  "LUA_INIT_5_1",
  "LUA_INIT_5_2",
  "LUA_INIT_5_3",
  "LUA_INIT_5_4",
] as const;

/** bash's exported functions (`BASH_FUNC_ls%%`): each replaces a command of that name in every bash script. */
const BASH_FUNCTION = /^BASH_FUNC_.*%%$/;

/**
 * Variables holding a folder, or a list of folders, an interpreter or the loader searches for modules or
 * libraries. Security: an empty or relative entry is searched from the working folder (a skill's, or any
 * `cwd` a model names): `PYTHONPATH=:lib`, set in the client's environment for another purpose, puts that
 * folder first on Python's module path, and a `json.py` planted there would shadow the standard library for
 * every script and allowed command; a relative `PYTHONUSERBASE` has Python run the `.pth` files of a
 * site-packages folder below it, `PYTHONHOME` load its standard library from there, and a relative
 * `GCONV_PATH` has glibc's iconv load a converter library from it. Such entries are dropped (the variable
 * too when none is left); absolute ones are kept; `pass_env` keeps a named one whole.
 */
export const LIBRARY_PATH_ENV = [
  "PYTHONPATH",
  "NODE_PATH",
  "PERL5LIB",
  "PERLLIB",
  "RUBYLIB",
  "GEM_PATH",
  "CLASSPATH",
  "LD_LIBRARY_PATH",
  "DYLD_LIBRARY_PATH",
  "DYLD_FALLBACK_LIBRARY_PATH",
  "PYTHONUSERBASE",
  "PYTHONHOME",
  "GCONV_PATH",
] as const;

/** `config_path` → `SKILL_ARG_CONFIG_PATH`; characters outside [A-Z0-9_] become `_`. Pure. */
export function argVariable(name: string): string {
  return `SKILL_ARG_${name.toUpperCase().replace(/[^A-Z0-9_]/g, "_")}`;
}

/**
 * The child's whole environment. `base` is the server's environment; `args`
 * are passed as SKILL_ARG_* variables, `extra` (BUN_BE_BUN=1) last. Pure.
 *
 * Security: variables already named SKILL_ARG_* in the server's environment are dropped, so a script
 * only ever sees the arguments of this call; the server's secrets are removed, and so is every variable
 * named like a credential (`*_KEY`, `*_TOKEN`, `TOKEN`, `*_SECRET`, `*_PASSWORD`, `AWS_SECRET*`, …), handing
 * one over by reference (`SSH_AUTH_SOCK`, `*_ASKPASS`, …) or in a header of git's configuration
 * (`GIT_CONFIG_PARAMETERS`), and the value of every field named like one is hidden in the others
 * (`Password=***;` in a connection string), unless `pass_env` names the variable (util/secret-env.ts);
 * so are the interpreters' start-up hooks (STARTUP_HOOK_ENV), which `pass_env` may
 * let through too; PATH keeps its absolute entries only, and so do the library search paths
 * (LIBRARY_PATH_ENV) unless `pass_env` names them. Python writes no bytecode (`PYTHONDONTWRITEBYTECODE`):
 * a `__pycache__` left in a skill's folder would be a file its lock does not record, and a frozen server
 * would then refuse to run the skill again. `PYTHONSAFEPATH` is not set: it would keep a script's own
 * folder off its module path too, and skills' scripts import their sibling modules; the folders Python
 * would put first are the skill's own, and a project's skills run nothing without scripts.allow_project.
 */
export function childEnv(
  base: Readonly<Record<string, string | undefined>>,
  config: Config,
  args: Readonly<Record<string, string>> = {},
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env = withoutSecrets(base, configSecrets(config));
  const passed = new Set(config.pass_env.map((n) => n.toUpperCase()));
  const hooks = new Set<string>(STARTUP_HOOK_ENV.filter((n) => !passed.has(n)));
  for (const name of Object.keys(env)) {
    const upper = name.toUpperCase();
    const hook = hooks.has(upper) || (BASH_FUNCTION.test(upper) && !passed.has(upper));
    if (upper.startsWith("SKILL_ARG_") || hook) delete env[name];
  }
  // Security: an empty or relative PATH entry (a trailing ':' is one) is searched from the working folder, a
  // project the user merely opened or any folder a model names as cwd: a script calling `git` would run its `./git`.
  keepAbsoluteEntries(env, new Set(["PATH", ...LIBRARY_PATH_ENV.filter((n) => !passed.has(n))]));
  for (const [name, value] of Object.entries(args)) env[argVariable(name)] = value;
  env.PYTHONDONTWRITEBYTECODE = "1";
  return Object.assign(env, extra);
}

import { realOr } from "./safe-path.ts";
import { shellWords } from "./shell-words.ts";

/** How this process was started, as programName reads it. Each defaults to this process's own. */
export interface Invocation {
  /** The program's name as the user typed it (`skillhub`, `dist/skillhub`, `./skillhub`). Default process.argv0. */
  argv0?: string;
  /** The running executable, absolute. Default process.execPath. */
  execPath?: string;
  /** The entry module: `/$bunfs/…` in the compiled binary. Default Bun.main. */
  main?: string;
  /** Where `skillhub` is looked up. Default process.env.PATH. */
  path?: string;
  platform?: NodeJS.Platform;
}

/** Whether `main` is the entry of a compiled binary (Bun's embedded file system), not a source file. */
export function isCompiled(main: string): boolean {
  return main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(main);
}

/** Whether `path` is inside npm's npx cache (`~/.npm/_npx/<hash>/node_modules/…`). */
export function inNpxCache(path: string): boolean {
  return /[\\/]_npx[\\/][^\\/]+[\\/]node_modules[\\/]/.test(path);
}

/**
 * How to spell this program in a command the CLI tells the user to run: the name the user typed when the
 * shell found it on PATH (`skillhub`); `skillhub` too when that name on PATH is this very binary (or npm's
 * launcher for it); else the path as typed (`dist/skillhub`, `./skillhub`: a relative path is kept, as the
 * hint is read in the folder it was typed in), quoted for the shell where it needs to be; the executable's
 * own path when the name it was started under is not a command (`exec -a`). `npx skillhub` for
 * a binary npx runs from its cache; `skillhub` run from source.
 */
export function programName(given: Invocation = {}): string {
  const argv0 = given.argv0 ?? process.argv0;
  const execPath = given.execPath ?? process.execPath;
  const platform = given.platform ?? process.platform;
  if (!isCompiled(given.main ?? Bun.main)) return "skillhub";
  if (inNpxCache(execPath)) return "npx skillhub";
  const typedAsPath = (platform === "win32" ? /[\\/]/ : /\//).test(argv0);
  // A bare name the shell found on PATH is a plain word; any other (`exec -a '-bash'`, an empty one) says nothing.
  if (!typedAsPath && /^[\w.+][\w.+-]*$/.test(argv0)) return argv0;
  const installed = Bun.which("skillhub", { PATH: given.path ?? process.env.PATH ?? "" });
  const self = realOr(execPath);
  // npm installs a Node launcher as `skillhub`, which starts the binary inside node_modules.
  if (installed && (realOr(installed) === self || /[\\/]node_modules[\\/]/.test(self))) return "skillhub";
  return shellWords([typedAsPath ? argv0 : execPath], platform);
}

let spelled: string | undefined;

/**
 * programName() of this process, worked out the first time a hint needs it and kept: how it was started
 * does not change while it runs. Nothing calls it unless a hint is built, so a server that prints none
 * never looks PATH up.
 */
export function program(): string {
  spelled ??= programName();
  return spelled;
}

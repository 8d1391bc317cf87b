import { join } from "node:path";

/** `path` with a leading `~`, `~/` or `~\` (a config file written on Windows) read as the home folder `home`. */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  return /^~[\\/]/.test(path) ? join(home, path.slice(2)) : path;
}

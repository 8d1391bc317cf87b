import { run } from "../../src/cli.ts";
import { tempDir } from "./fs.ts";

/**
 * The CLI in process, its output captured. Runs from the home folder (HOME, else a new temp one): not a
 * project, so only explicit folders and global ones count.
 */
export async function runCli(argv: string[], env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const home = env.HOME ?? tempDir("skillhub-cli-home-");
  const code = await run(
    argv,
    { HOME: home, ...env },
    { out: (t) => void (out += t), err: (t) => void (err += t), cwd: home },
  );
  return { code, out, err, home };
}

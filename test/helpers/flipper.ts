import { basename, join } from "node:path";
import { tempDir, write } from "./fs.ts";

/**
 * A child process that swaps `target` between `reviewed` and `evil` by atomic renames until stopped;
 * resolves once it is running. `stop()` ends it and waits (the reviewed content is left in place).
 */
export async function startFlipper(target: string, reviewed: string | Uint8Array, evil: string | Uint8Array) {
  const scratch = tempDir("skillhub-flip-");
  const first = write(join(scratch, `${basename(target)}.reviewed`), reviewed);
  const second = write(join(scratch, `${basename(target)}.evil`), evil);
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "flip-file.ts"), target, first, second], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  await reader.read();
  reader.releaseLock();
  return {
    async stop() {
      proc.stdin.end();
      await proc.exited;
    },
  };
}

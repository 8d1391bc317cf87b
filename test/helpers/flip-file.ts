/**
 * Swap a file between two contents by atomic renames, as fast as it can, until stdin ends: the
 * attacker of a check-then-read race. Usage: bun flip-file.ts <target> <first> <second>, where
 * <first> and <second> are files whose bytes are written in turn. Prints one line once running.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const [target, first, second] = process.argv.slice(2) as [string, string, string];
const contents = [readFileSync(first), readFileSync(second)];
const tmp = join(dirname(target), `.flip-${process.pid}`);
let running = true;
process.stdin.on("end", () => {
  running = false;
});
process.stdin.on("close", () => {
  running = false;
});
process.stdin.resume();
process.stdout.write("flipping\n");
let n = 0;
while (running) {
  // A few hundred renames, then a turn of the event loop so that stdin's end is seen.
  for (let i = 0; i < 200; i++) {
    writeFileSync(tmp, contents[n++ % 2] as Buffer);
    renameSync(tmp, target);
  }
  await new Promise((resolve) => setImmediate(resolve));
}
// Leave the first content in place.
writeFileSync(tmp, contents[0] as Buffer);
renameSync(tmp, target);

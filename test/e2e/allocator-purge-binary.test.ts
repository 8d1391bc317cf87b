import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, readSync, realpathSync } from "node:fs";
import { findAllocatorOption, stringsInFile } from "../../src/util/allocator-purge.ts";
import { elfSection, fileIdOf, fileOffsets, mappedRanges } from "../../src/util/binary-maps.ts";
import { binary, binaryClient } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** mimalloc's purge_delay as the running server `pid` holds it, read through /proc/PID/mem. */
function purgeDelayIn(pid: number, bin: string) {
  const section = elfSection(bin, ".data");
  const maps = readFileSync(`/proc/${pid}/maps`, "latin1");
  const file = fileIdOf(bin);
  const [range] = mappedRanges(maps, file, section?.offset ?? 0, section?.size ?? 0, 8, "rw");
  if (!range) throw new Error("the server does not map the binary's .data");
  const memory = Buffer.alloc(range[1] - range[0]);
  const mem = openSync(`/proc/${pid}/mem`, "r");
  const exe = openSync(bin, "r");
  try {
    readSync(mem, memory, 0, memory.length, range[0]);
    const nameAt = stringsInFile(exe, fileOffsets(maps, file));
    return findAllocatorOption(new DataView(memory.buffer, memory.byteOffset, memory.length), "purge_delay", nameAt);
  } finally {
    closeSync(mem);
    closeSync(exe);
  }
}

async function serverWith(
  env: Record<string, string>,
  skills = tempDir("skillhub-e2e-skills-"),
  home = tempDir("skillhub-e2e-home-"),
) {
  writeSkill(skills, "pdf-tools", { description: "Fills PDF forms.", body: "# PDF\n\nquokka\n" });
  const served = await binaryClient(skills, home, env);
  for (const end = Date.now() + 10_000; Date.now() < end && !served.log().includes("purge delay"); )
    await Bun.sleep(50);
  return served;
}

describe.if(process.platform === "linux")("the server gives freed allocator pages back at once", () => {
  test("mimalloc's purge_delay is 0 in the running server (it was Bun's default), and it still answers", async () => {
    const bin = realpathSync(binary());
    const { client, transport, log } = await serverWith({});
    // Bun's default: 1000 ms in 1.3.14, 100 ms in 1.4.5.
    expect(log()).toMatch(/memory: the allocator now gives freed pages back at once \(purge delay [1-9]\d* → 0 ms\)/);
    expect(purgeDelayIn(transport.pid as number, bin)).toMatchObject({ value: 0, fromEnvironment: false });
    const loaded = await client.callTool({ name: "skill", arguments: { name: "pdf-tools" } });
    expect(JSON.stringify(loaded.content)).toContain("quokka");
    await client.close();
  });

  test("a first start sets it before its first scan; a start from the catalog snapshot, a turn after", async () => {
    const [skills, home] = [tempDir("skillhub-e2e-skills-"), tempDir("skillhub-e2e-home-")];
    const order = (log: string): [number, number] => [
      log.search(/purge delay [1-9]\d* → 0 ms/),
      log.indexOf("scan (startup)"),
    ];
    const first = await serverWith({}, skills, home);
    const [purgedFirst, scannedFirst] = order(first.log());
    expect(purgedFirst).toBeGreaterThan(-1);
    expect(purgedFirst).toBeLessThan(scannedFirst);
    await first.client.close();
    const again = await serverWith({}, skills, home);
    expect(again.log()).toContain("catalog snapshot: 1 skills listed");
    const [purgedAgain, scannedAgain] = order(again.log());
    expect(scannedAgain).toBeGreaterThan(-1);
    expect(purgedAgain).toBeGreaterThan(scannedAgain);
    await again.client.close();
  });

  test("a MIMALLOC_PURGE_DELAY the user set is left as it is", async () => {
    const bin = realpathSync(binary());
    const { client, transport, log } = await serverWith({ MIMALLOC_PURGE_DELAY: "25" });
    expect(log()).toContain("the allocator's purge delay is MIMALLOC_PURGE_DELAY's 25 ms");
    expect(purgeDelayIn(transport.pid as number, bin)).toMatchObject({ value: 25, fromEnvironment: true });
    await client.close();
  });
});

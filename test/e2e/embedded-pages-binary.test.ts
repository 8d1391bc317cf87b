import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, realpathSync } from "node:fs";
import { elfSection, fileIdOf, mappedRanges } from "../../src/util/binary-maps.ts";
import { binary, binaryClient } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** Resident bytes of process `pid` in [low, high), from its smaps (mappings wholly inside the range count whole). */
function residentIn(pid: number, low: number, high: number): number {
  let resident = 0;
  let inside = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "latin1").split("\n")) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (range) inside = Number.parseInt(range[1] ?? "", 16) < high && Number.parseInt(range[2] ?? "", 16) > low;
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && inside) resident += Number(rss[1]) * 1024;
  }
  return resident;
}

describe.if(process.platform === "linux")(
  "the binary hands back its embedded modules' pages once start-up is over",
  () => {
    test("after the first big job's release the .bun section is mostly not resident, and the server still answers", async () => {
      const bin = realpathSync(binary());
      const section = elfSection(bin, ".bun");
      expect(section?.size).toBeGreaterThan(4 * 1048576);
      const home = tempDir("skillhub-e2e-home-");
      const skills = tempDir("skillhub-e2e-skills-");
      writeSkill(skills, "pdf-tools", { description: "Fills PDF forms.", body: "# PDF\n\nquokka\n" });
      const { client, transport, log } = await binaryClient(skills, home);
      // The index build is a big job: the release follows RELEASE_DELAY_MS after it, then the pages go.
      const found = await client.callTool({ name: "search_skills", arguments: { query: "quokka" } });
      expect(JSON.stringify(found.structuredContent)).toContain("pdf-tools");
      for (const end = Date.now() + 15_000; Date.now() < end && !log().includes("embedded modules"); )
        await Bun.sleep(100);
      expect(log()).toMatch(/memory: gave back \d+\.\d MB of the binary's embedded modules/);
      const pid = transport.pid as number;
      const maps = readFileSync(`/proc/${pid}/maps`, "latin1");
      const ranges = mappedRanges(maps, fileIdOf(bin), section!.offset, section!.size, 4096);
      expect(ranges.length).toBeGreaterThan(0);
      const resident = ranges.reduce((sum, [low, high]) => sum + residentIn(pid, low, high), 0);
      // The mapping also holds the binary's data and bss (about 2 MB); the section alone is 13 MB.
      expect(resident).toBeLessThan(section!.size / 2);
      // What a call needs again comes back from the page cache: it still answers the same.
      const loaded = await client.callTool({ name: "skill", arguments: { name: "pdf-tools" } });
      expect(JSON.stringify(loaded.content)).toContain("quokka");
      await client.close();
    });
  },
);

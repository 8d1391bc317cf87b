import { expect } from "bun:test";
import { join } from "node:path";
import { binary } from "../helpers/binary.ts";
import { tempDir, write, writeSkill } from "../helpers/fs.ts";
import { type Balancer, startHaproxy } from "../helpers/haproxy.ts";
import { type HttpBinary, startHttpBinary } from "../helpers/http-binary.ts";

/**
 * The shared hub as a team deploys it, for test/e2e/shared-hub.test.ts and the MCP Inspector through it
 * (test/e2e/inspector.test.ts): two replicas of the compiled binary over one skills folder (pdf-invoice
 * with a script, git-helper) behind haproxy. Needs haproxy (test/helpers/haproxy.ts haproxyBinary).
 */
export interface Hub {
  balancer: Balancer;
  replicas: HttpBinary[];
  /** MCP requests each replica has answered so far (from its debug log). */
  hits(): number[];
  stop(): Promise<void>;
}

/** Two replicas over one skills folder (sessions, or --stateless) behind haproxy. */
export async function sharedHub(mode: "sticky sessions" | "stateless"): Promise<Hub> {
  const home = tempDir("skillhub-shared-home-");
  const skills = tempDir("skillhub-shared-skills-");
  writeSkill(skills, "pdf-invoice", {
    description: "Extract invoice fields from PDF files",
    body: "# PDF invoices\n\nRun `python3 scripts/extract.py` and fill **totals**.\n",
  });
  write(join(skills, "pdf-invoice/scripts/extract.py"), 'print("totals: 42")\n');
  writeSkill(skills, "git-helper", { description: "Git workflow helper" });
  const env = { PATH: process.env.PATH ?? "", HOME: home };
  const args = ["--skills-dir", skills, "--no-watch", ...(mode === "stateless" ? ["--stateless"] : [])];
  const replicas = await Promise.all(
    [0, 1].map(() => startHttpBinary(binary(), args, { env, cwd: home, logLevel: "DEBUG" })),
  );
  const balancer = await startHaproxy(
    replicas.map((r) => r.base),
    { sticky: mode === "sticky sessions" },
  );
  return {
    balancer,
    replicas,
    hits: () => replicas.map((r) => r.stderr().split("http: POST /mcp →").length - 1),
    async stop() {
      await balancer.stop();
      for (const r of replicas) expect(await r.stop()).toBe(0);
    },
  };
}

/**
 * make fuzz: the adversarial suite against the compiled binary (dist/skillhub),
 * over stdio and Streamable HTTP, loopback only, bounded by FUZZ_SECONDS
 * (default 240). Hostile trees (symlink swaps during calls, FIFOs, devices,
 * huge and pathological YAML), protocol garbage and oversized messages,
 * hostile paths in every tool. Asserts: no crash, no hang (every request
 * answered within a deadline), no non-JSON stdout, no byte from outside a
 * skill (a canary file), no secret in any output (canary secrets in the
 * server's environment). Prints `N passed, N failed`; exits 1 on a failure.
 */
import { join } from "node:path";
import { frozenCases } from "./frozen-cases.ts";
import { freePort, halfSentBody, httpCases, malformedHost } from "./http-cases.ts";
import { namedFileCases } from "./named-file-cases.ts";
import { pageCases } from "./page-cases.ts";
import { RawStdio } from "./raw-client.ts";
import { stdioCases } from "./stdio-cases.ts";
import { must, Suite } from "./suite.ts";
import { trustCases } from "./trust-cases.ts";
import { buildWorld } from "./world.ts";

const BINARY = process.env.SKILLHUB_BINARY ?? join(import.meta.dir, "..", "..", "dist", "skillhub");
const suite = new Suite(Number(process.env.FUZZ_SECONDS ?? 240));
const world = buildWorld();
const answers: string[] = [];
const serverArgs = ["--skills-dir", world.skills];

try {
  // stdio: one long session through everything, then stdin's end must stop it.
  const stdio = new RawStdio([BINARY, ...serverArgs], world.env, world.env.HOME as string);
  await stdioCases(suite, stdio, world, answers);
  await suite.check("stdio: no crash, and stdin's end exits within 5 s", async () => {
    must(stdio.proc.exitCode === null, `exited early with ${stdio.proc.exitCode}`);
    const code = await stdio.end();
    must(code !== "hang", "still running 5 s after stdin ended");
    return true;
  });
  answers.push(stdio.stdoutText, stdio.stderrText);

  // stdio: one message over 10 MiB on a fresh server.
  const big = new RawStdio([BINARY, ...serverArgs], world.env, world.env.HOME as string);
  await suite.check(
    "stdio: a message over 10 MiB gets an error or a clear exit, and the next message is served",
    async () => {
      must(await big.initialize(), "initialize not answered");
      big.send(`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"${"x".repeat(11 * 1_048_576)}"}}`);
      return big.alive(15_000);
    },
  );
  big.proc.kill("SIGKILL");
  answers.push(big.stdoutText, big.stderrText);

  // Frozen mode: races, special files and unlocked files against a locked project.
  await frozenCases(suite, BINARY, answers);

  // HTTP.
  const port = freePort();
  const http = Bun.spawn([BINARY, "serve", "--transport", "http", "--port", String(port), ...serverArgs], {
    env: world.env,
    cwd: world.env.HOME,
    stdout: "pipe",
    stderr: "pipe",
  });
  const httpStdout = new Response(http.stdout).text();
  const httpStderr = new Response(http.stderr).text();
  const base = `http://127.0.0.1:${port}`;
  const up = Date.now() + 30_000;
  while (Date.now() < up) {
    if ((await fetch(`${base}/healthz`).catch(() => undefined))?.ok) break;
    await Bun.sleep(100);
  }
  await httpCases(suite, base, answers);
  await suite.check("http: a malformed Host header at DEBUG level gets a 4xx", async () => {
    const status = await malformedHost(port);
    return status >= 400 && status < 500;
  });
  await suite.check("http: SIGTERM exits within 5 s while a request body is half sent", async () => {
    const half = await halfSentBody(port);
    await Bun.sleep(200);
    http.kill("SIGTERM");
    const code = await Promise.race([http.exited, Bun.sleep(5_000).then(() => "hang" as const)]);
    half.end();
    return code !== "hang";
  });
  http.kill("SIGKILL");
  await http.exited;
  answers.push(await httpStdout, await httpStderr);

  // Named files (devices and FIFOs behind each), hostile pages with /healthz meanwhile, signed commits.
  await namedFileCases(suite, BINARY, world, answers);
  await pageCases(suite, BINARY, world, answers);
  await trustCases(suite, BINARY, world, answers);

  // What every output must not hold.
  const all = answers.join("\n");
  await suite.check("no byte from outside a skill in any output (canary file)", () => {
    must(!all.includes(world.canaryFile), "the canary file's text was served");
    return true;
  });
  await suite.check("no secret in any output, stdout, stderr or HTTP body (canary secrets)", () => {
    const leaked = world.secrets.filter((s) => all.includes(s));
    must(leaked.length === 0, `leaked: ${leaked.join(", ")}`);
    return true;
  });
} finally {
  world.cleanup();
}

const { text, failed } = suite.summary();
process.stdout.write(`${text}\n`);
process.exit(failed === 0 ? 0 : 1);

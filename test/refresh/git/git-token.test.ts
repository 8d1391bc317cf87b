import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { GitRunner, type SpawnFn } from "../../../src/refresh/git/git-runner.ts";
import { closeAfterEach } from "../../helpers/closers.ts";
import { cleanupTemp } from "../../helpers/fs.ts";
import { closedPort, GIT_ENV, git, remoteRepo, selfSignedCert, skillText } from "../../helpers/git.ts";
import { type GitHttpServer, projectRoot, serveGitHttps } from "../../helpers/git-http.ts";
import { connect, textOf } from "../../helpers/hub.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

const TOKEN = "ghp_FAKEtoken0123456789abcdefSECRET";
const basic = (token: string) => `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
const forms = (token: string) => [token, Buffer.from(`x-access-token:${token}`).toString("base64")];

async function session(env: Record<string, string>, gitEnv: Record<string, string | undefined> = GIT_ENV) {
  const s = await connect({ env, hub: { git: { runner: { env: gitEnv }, intervalMs: 0 } } });
  closers.push(s.close);
  return s;
}

/** Every file under `dir`, concatenated (the whole local copy, .git included). */
function everything(dir: string): string {
  let text = "";
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    text += statSync(path).isDirectory() ? everything(path) : readFileSync(path, "latin1");
  }
  return text;
}

function expectNoSecret(texts: string[], token: string): void {
  for (const text of texts) for (const form of forms(token)) expect(text).not.toContain(form);
}

describe("GITHUB_TOKEN handling", () => {
  test("an https remote on a closed port: the error and the logs never show the token", async () => {
    const port = closedPort();
    const url = `https://127.0.0.1:${port}/org/team.git`;
    const { call, logger } = await session({ SKILLS_REPO: url, GITHUB_TOKEN: TOKEN });
    const result = await call("refresh_skills");
    expect(result.structuredContent).toMatchObject({ success: false, error: { code: "GIT_UNREACHABLE" } });
    expect(textOf(result)).toContain(url);
    expectNoSecret([JSON.stringify(result), ...logger.lines], TOKEN);
  });

  test("credentials written in the URL are taken out of it everywhere", async () => {
    const port = closedPort();
    const { call, logger, hub } = await session({
      SKILLS_REPO: `https://x-access-token:${TOKEN}@127.0.0.1:${port}/org/team.git`,
    });
    const result = await call("refresh_skills");
    expect((result.structuredContent?.repos as { url: string }[])[0]?.url).toBe(
      `https://127.0.0.1:${port}/org/team.git`,
    );
    expectNoSecret([JSON.stringify(result), ...logger.lines, JSON.stringify(hub.sources())], TOKEN);
  });

  test("git's stderr is scrubbed, and old git gets the header through -c instead of the environment", async () => {
    const calls: { cmd: string[]; env: Record<string, string | undefined> }[] = [];
    const stream = (text: string) => new Response(text).body as ReadableStream<Uint8Array>;
    const fake =
      (version: string): SpawnFn =>
      (cmd, options) => {
        calls.push({ cmd, env: options.env });
        const out = cmd.includes("--version") ? `git version ${version}\n` : "";
        const err = `fatal: unable to access 'https://user:${TOKEN}@host/x.git/': header ${basic(TOKEN)} token ${TOKEN}\n`;
        const code = cmd.includes("--version") ? 0 : 128;
        return {
          pid: 999_999,
          exited: Promise.resolve(code),
          exitCode: code,
          signalCode: null,
          stdout: stream(out),
          stderr: stream(err),
        };
      };
    // The fake has no process group: signalling it finds none (ESRCH), and no real process is touched.
    const kill = () => {
      throw Object.assign(new Error("kill ESRCH"), { code: "ESRCH" });
    };
    const config = [{ key: "http.https://host/.extraHeader", value: `Authorization: ${basic(TOKEN)}` }];
    const secrets = [...forms(TOKEN)];
    const modern = await new GitRunner({ spawn: fake("2.39.5"), kill, env: {} }).run(["fetch"], { config, secrets });
    expectNoSecret([modern.stderr], TOKEN);
    expect(modern.stderr).toContain("https://***@host");
    const fetch = calls.at(-1);
    expect(fetch?.cmd).toEqual(["git", "fetch"]);
    // The header first, then the config every git command runs with (hooks and fsmonitor off, HEAD a file).
    expect(fetch?.env).toMatchObject({
      GIT_CONFIG_COUNT: "4",
      GIT_CONFIG_KEY_0: config[0]?.key,
      GIT_CONFIG_KEY_1: "core.fsmonitor",
      GIT_CONFIG_KEY_2: "core.hooksPath",
      GIT_CONFIG_KEY_3: "core.preferSymlinkRefs",
      GIT_TERMINAL_PROMPT: "0",
    });
    calls.length = 0;
    await new GitRunner({ spawn: fake("2.25.1"), kill, env: { GITHUB_TOKEN: TOKEN } }).run(["fetch"], {
      config,
      secrets,
    });
    expect(calls.at(-1)?.cmd).toEqual([
      "git",
      "-c",
      `${config[0]?.key}=${config[0]?.value}`,
      "-c",
      "core.fsmonitor=false",
      "-c",
      "core.hooksPath=/dev/null",
      "-c",
      "core.preferSymlinkRefs=false",
      "fetch",
    ]);
    // SkillHub's own secrets are not passed on to git.
    expect(calls.at(-1)?.env.GITHUB_TOKEN).toBeUndefined();
  });

  describe("against a real HTTPS git server", () => {
    const tls = selfSignedCert();
    const gitEnv = { ...GIT_ENV, GIT_SSL_NO_VERIFY: "1" };

    function server(): { remote: ReturnType<typeof remoteRepo>; http: GitHttpServer; url: string } {
      const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
      const http = serveGitHttps(
        projectRoot(remote.bare),
        tls as { cert: string; key: string },
        (header) => header === basic(TOKEN),
      );
      closers.push(() => http.stop());
      return { remote, http, url: `${http.base}team.git` };
    }

    test.skipIf(!tls)("the token is sent as a header, and is stored nowhere in the copy", async () => {
      const { http, url, remote } = server();
      const { hub, logger, call } = await session({ SKILLS_REPO: url, GITHUB_TOKEN: TOKEN }, gitEnv);
      expect(hub.catalog.get("alpha")?.source).toBe("team");
      expect(http.authorizations).toContain(basic(TOKEN));
      const copy = join(hub.sources().at(-1)?.dir ?? "", "..");
      expect(git(["config", "--get", "remote.origin.url"], copy)).toBe(url);
      expectNoSecret([everything(copy), ...logger.lines], TOKEN);
      // Later fetches authenticate the same way.
      remote.write("skills/beta/SKILL.md", skillText("beta"));
      remote.push();
      expect((await call("refresh_skills")).structuredContent).toMatchObject({ success: true, files_changed: 1 });
      expectNoSecret([everything(copy)], TOKEN);
    });

    test.skipIf(!tls)("the token-in-URL form works and is not stored either", async () => {
      const { url } = server();
      const withToken = url.replace("https://", `https://x-access-token:${TOKEN}@`);
      const { hub } = await session({ SKILLS_REPO: withToken }, gitEnv);
      expect(hub.catalog.get("alpha")).toBeDefined();
      const copy = join(hub.sources().at(-1)?.dir ?? "", "..");
      expect(git(["config", "--get", "remote.origin.url"], copy)).toBe(url);
      expectNoSecret([everything(copy)], TOKEN);
    });

    test.skipIf(!tls)("a rejected token: an explicit error that says how to fix it, without the token", async () => {
      const { url } = server();
      const wrong = "ghp_EXPIREDtoken9876543210zyxwvu";
      const { call, logger } = await session({ SKILLS_REPO: url, GITHUB_TOKEN: wrong }, gitEnv);
      expect(logger.lines.some((l) => l.includes("ERROR") && l.includes("GITHUB_TOKEN"))).toBe(true);
      const result = await call("refresh_skills");
      expect(result.structuredContent).toMatchObject({ success: false, error: { code: "GIT_AUTH_FAILED" } });
      const text = textOf(result);
      expect(text).toContain("expired");
      expect(text).toContain("put it in GITHUB_TOKEN");
      expectNoSecret([text, JSON.stringify(result), ...logger.lines], wrong);
    });
  });
});

import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Tracker } from "../../src/analytics/tracker.ts";
import { checkLinkFlags } from "../../src/exec/command-args.ts";
import { parseRepo, scrub } from "../../src/refresh/git/git-url.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { knownSecretValues, secretVariables, withoutSecrets } from "../../src/util/secret-env.ts";
import { scrubUrlCredentials } from "../../src/util/url-credentials.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { sessions } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

describe("credentials in URLs, every form", () => {
  test.each([
    ["https://x-access-token:TOKEN1234@github.com/o/r.git", "https://***@github.com/o/r.git"],
    ["https://TOKEN1234@github.com/o/r", "https://***@github.com/o/r"],
    ["http://user:pass@host/x", "http://***@host/x"],
    ["ssh://deploy:PASS1234@git.example.com/r.git", "ssh://deploy:***@git.example.com/r.git"],
    ["git+https://u:PASS1234@h/r", "git+https://***@h/r"],
    ["git://u:PASS1234@h/r", "git://u:***@h/r"],
    [
      "fatal: could not read from 'ssh://a:b@h/r' (exit 128)",
      "fatal: could not read from 'ssh://a:***@h/r' (exit 128)",
    ],
    ["ssh://git@github.com/o/r", "ssh://git@github.com/o/r"],
    ["git@github.com:o/r.git", "git@github.com:o/r.git"],
  ])("%s", (input, expected) => {
    expect(scrubUrlCredentials(input)).toBe(expected);
    expect(scrub(input, [])).toBe(expected);
  });

  test("a configured ssh:// URL keeps its user name and loses its password", () => {
    expect(parseRepo("ssh://deploy:PASS1234@git.example.com/team/skills.git").url).toBe(
      "ssh://deploy@git.example.com/team/skills.git",
    );
  });

  test("the logger never writes a URL's credentials", () => {
    const logger = createMemoryLogger();
    logger.warn("cannot fetch ssh://deploy:PASS1234@h/r.git: timeout");
    expect(logger.lines.join("\n")).not.toContain("PASS1234");
  });
});

describe("children's environment", () => {
  test("secret names, secret values (whole or inside) and URL credentials in any variable are gone", () => {
    const env = {
      PATH: "/usr/bin",
      GITHUB_TOKEN: "ghp_abcdefgh12345",
      GH_COPY: "ghp_abcdefgh12345",
      AUTH_HEADER: "Bearer ghp_abcdefgh12345",
      SKILLS_REPO: "https://x-access-token:ghp_other999@github.com/o/r.git",
      PIP_INDEX_URL: "https://user:pipsecret1@pypi.example.com/simple",
      DATABASE_URL: "postgres://app:dbpass123@db/x",
      https_proxy: "http://me:proxypass1@proxy:3128",
      http_proxy: "me:proxypass2@proxy:3128",
    };
    const child = withoutSecrets(env);
    expect(child).toEqual({
      PATH: "/usr/bin",
      SKILLS_REPO: "https://***@github.com/o/r.git",
      PIP_INDEX_URL: "https://***@pypi.example.com/simple",
      DATABASE_URL: "postgres://app:***@db/x",
      https_proxy: "http://***@proxy:3128",
      http_proxy: "***@proxy:3128",
    });
    // git keeps its proxy's credentials; nothing else.
    expect(withoutSecrets(env, { keepProxyCredentials: true }).https_proxy).toBe(env.https_proxy);
    expect(withoutSecrets(env, { keepProxyCredentials: true }).http_proxy).toBe(env.http_proxy);
    expect(secretVariables(env).sort()).toEqual(
      [
        "AUTH_HEADER",
        "DATABASE_URL",
        "GH_COPY",
        "GITHUB_TOKEN",
        "PIP_INDEX_URL",
        "SKILLS_REPO",
        "https_proxy",
        "http_proxy",
      ].sort(),
    );
  });

  test("a URL's password is hidden and counted as a secret however long, and with quotes in it", () => {
    const token = `eyJ${"DECOYjwt".repeat(160)}`;
    const env = {
      DATABASE_URL: `postgres://app:${token}@h.postgres.database.azure.com/app`,
      PG_URL: "postgres://app:it'sDECOY1@db/app",
    };
    expect(withoutSecrets(env)).toEqual({
      DATABASE_URL: "postgres://app:***@h.postgres.database.azure.com/app",
      PG_URL: "postgres://app:***@db/app",
    });
    expect(secretVariables(env).sort()).toEqual(["DATABASE_URL", "PG_URL"]);
  });

  test("run_skill_command options that follow symlinks are refused", () => {
    for (const [command, args] of [
      ["grep", ["-R", "x", "."]],
      ["grep", ["-rnR", "x"]],
      ["grep", ["--dereference-recursive", "x"]],
      ["ls", ["-L", "link"]],
      ["ls", ["-laH"]],
      ["ls", ["--dereference"]],
      ["find", [".", "-follow"]],
      ["find", ["-L", "."]],
      ["rg", ["--follow", "x"]],
      ["cat", ["--dereference"]],
    ] as const)
      expect(checkLinkFlags(command, args)).toMatchObject({ ok: false });
    for (const [command, args] of [
      ["grep", ["-rn", "x", "."]],
      ["ls", ["-la"]],
      ["python", ["-R", "x.py"]],
      ["grep", ["--", "-R"]],
    ] as const)
      expect(checkLinkFlags(command, args)).toEqual({ ok: true });
  });

  test("run_skill_command answers grep -R with PATH_OUTSIDE_SKILL", async () => {
    const skills = tempDir();
    writeSkill(skills, "tool");
    const { call } = await open({
      flags: { "skills-dir": [skills] },
      env: { SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "grep,ls" },
    });
    const result = await call("run_skill_command", { skill_name: "tool", command: "grep", args: ["-R", "x", "."] });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe("PATH_OUTSIDE_SKILL");
    // A FIFO argument would make the command wait on another process until its timeout: refused at once.
    expect(Bun.spawnSync(["mkfifo", join(skills, "tool/pipe")]).exitCode).toBe(0);
    const fifo = await call("run_skill_command", { skill_name: "tool", command: "grep", args: ["x", "pipe"] });
    expect((fifo.structuredContent as { error: { code: string } }).error.code).toBe("PATH_OUTSIDE_SKILL");
  });
});

describe("feedback is scrubbed of known secrets", () => {
  test("the tracker's events carry no secret value and no URL credential", () => {
    const tracker = new Tracker({
      enabled: true,
      maxQueue: 10,
      serverId: "dev-t",
      logger: createMemoryLogger(),
      secrets: knownSecretValues({ GITHUB_TOKEN: "ghp_abcdefgh12345" }),
    });
    tracker.track("skill_feedback", {
      skill_path: "x",
      useful: false,
      comment: "token ghp_abcdefgh12345 and https://u:p4ssw0rd9@h/r",
    });
    expect(tracker.drain()[0]?.data.comment).toBe("token *** and https://***@h/r");
  });

  test("report_usage writes the comment to the analytics file without the server's token", async () => {
    const skills = tempDir();
    writeSkill(skills, "fb");
    const home = tempDir("skillhub-home-");
    const file = join(home, "events.jsonl");
    const token = "ghp_feedbacksecret42";
    const { call, hub, logger } = await open({
      home,
      flags: { "skills-dir": [skills] },
      env: { SKILLHUB_ANALYTICS_FILE: file, GITHUB_TOKEN: token, SKILLHUB_TOOLS: "all" },
    });
    const result = await call("report_usage", { skill_path: "fb", useful: false, comment: `it printed ${token}` });
    expect(result.isError).toBeFalsy();
    await hub.shutdown();
    const written = readFileSync(file, "utf8");
    expect(written).toContain("it printed ***");
    expect(written).not.toContain(token);
    expect(logger.lines.join("\n")).not.toContain(token);
  });
});

describe("credentials in URLs the URL parser refuses", () => {
  test.each([
    ["https://u:PASS1234@[bad/x", "https://***@[bad/x"],
    ["https://u:p@ss1234@host/x", "https://***@host/x"],
    ["ssh://git:PASS1234@[x/y", "ssh://git:***@[x/y"],
    ["see https://u:PASS1234@host:99999/x?q=1 now", "see https://***@host:99999/x?q=1 now"],
  ])("%s is shown without them", (input, expected) => {
    expect(scrubUrlCredentials(input)).toBe(expected);
  });

  test("a configured malformed URL keeps no credential in what is shown, stored or logged", () => {
    for (const [raw, shown] of [
      ["https://u:PASS1234@[bad/team.git", "https://[bad/team.git"],
      ["https://u:pa/ss1234@host/team.git", "https://host/team.git"],
      ["ssh://deploy:PASS1234@[bad/team.git", "ssh://deploy@[bad/team.git"],
      ["deploy:PASS1234@host:team.git", "deploy@host:team.git"],
    ] as const) {
      const spec = parseRepo(raw);
      expect(spec.url).toBe(shown);
      expect(JSON.stringify({ url: spec.url, slug: spec.slug, name: spec.name })).not.toMatch(/PASS1234|pa\/ss1234/);
    }
    expect(parseRepo("https://u:PASS1234@[bad/team.git").credentials).toEqual({ username: "u", password: "PASS1234" });
  });

  test("`sync` and `doctor` print no password of a malformed repository URL", async () => {
    const { run } = await import("../../src/cli.ts");
    const home = tempDir("skillhub-badurl-");
    for (const argv of [["sync"], ["sync", "--json"], ["doctor"], ["doctor", "--json"]]) {
      let all = "";
      const io = { out: (t: string) => void (all += t), err: (t: string) => void (all += t), cwd: home };
      await run(argv, { HOME: home, SKILLS_REPO: "https://u:PASS1234@[bad/team.git", PATH: process.env.PATH }, io);
      expect(all).toContain("[bad/team.git");
      expect(all).not.toContain("PASS1234");
    }
  });
});

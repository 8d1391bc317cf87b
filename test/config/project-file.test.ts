import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { run } from "../../src/cli.ts";
import { projectSourcesAt, readProjectFile, withProject } from "../../src/config/project-file.ts";
import { resolveConfig } from "../../src/config/resolve.ts";
import { GitSync } from "../../src/refresh/git/git-sync.ts";
import { createServer } from "../../src/server/create-server.ts";
import { Hub } from "../../src/server/hub.ts";
import { ConfigError } from "../../src/util/errors.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { GIT_ENV, remoteRepo, selfSignedCert, skillText } from "../helpers/git.ts";
import { projectRoot, serveGitHttps } from "../helpers/git-http.ts";
import { writeScriptTree } from "../helpers/scripts.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

const TOKEN = "ghp_FAKEtoken0123456789abcdefSECRET";
const basic = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`;

/** A hub for a project, with the configuration the CLI builds (the project's skillhub.yaml included). */
async function projectSession(project: string, env: Record<string, string> = {}) {
  const home = tempDir("skillhub-project-home-");
  const allEnv = { SKILLHUB_RESCAN_SECONDS: "0", SKILLHUB_WATCH: "0", ...env };
  const resolved = withProject(
    resolveConfig({ env: allEnv, flags: { project }, homeDir: home, cwd: project }),
    projectSourcesAt(project),
  );
  const logger = createMemoryLogger();
  const hub = new Hub({
    config: resolved.config,
    logger,
    env: allEnv,
    homeDir: home,
    cwd: project,
    git: { runner: { env: GIT_ENV }, intervalMs: 0 },
  });
  const server = createServer(hub, { version: "test" });
  const client = new Client({ name: "test", version: "1.0.0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  void hub.start();
  await client.connect(a);
  await hub.ready;
  closers.push(async () => {
    hub.close();
    await client.close();
  });
  return { hub, client, logger };
}

describe("a project's skillhub.yaml", () => {
  test("may set git.repos and sources.dirs only (ignored otherwise, with a warning); its repositories come first", () => {
    const project = tempDir("skillhub-project-");
    const file = write(
      join(project, "skillhub.yaml"),
      "server:\n  port: 9\ngit:\n  branch: evil\n  repos:\n    - https://example.com/a.git\n    - url: https://example.com/b.git\n      ref: v1\nsources:\n  dirs: [kit]\n",
    );
    const sources = readProjectFile(file, project);
    expect(sources.repos).toEqual([
      { url: "https://example.com/a.git", scope: "project" },
      { url: "https://example.com/b.git", ref: "v1", scope: "project" },
    ]);
    expect(sources.dirs).toEqual([join(project, "kit")]);
    expect(sources.warnings).toHaveLength(2);
    expect(sources.warnings[0]).toContain('key "server.port" ignored');
    expect(sources.warnings[1]).toContain('key "git.branch" ignored');
    const user = resolveConfig({
      env: { SKILLS_REPO: "https://example.com/mine.git" },
      homeDir: project,
      cwd: project,
    });
    expect(withProject(user, sources).config.git.repos).toEqual([...sources.repos, "https://example.com/mine.git"]);
  });

  test("a misspelt key is named with the key meant, not sent to another file", () => {
    const project = tempDir("skillhub-project-");
    const file = write(
      join(project, "skillhub.yaml"),
      "git:\n  repo:\n    - https://example.com/a.git\nsources:\n  dir: [kit]\n",
    );
    const sources = readProjectFile(file, project);
    expect(sources.repos).toEqual([]);
    expect(sources.warnings).toEqual([
      `${file}: unknown key "git.repo" ignored. Did you mean "git.repos"? (a project's skillhub.yaml may set git.repos and sources.dirs)`,
      `${file}: unknown key "sources.dir" ignored. Did you mean "sources.dirs"? (a project's skillhub.yaml may set git.repos and sources.dirs)`,
    ]);
  });

  test("a folder outside the project, or a file that is not a mapping, stops start-up naming the file and key", async () => {
    const project = tempDir("skillhub-project-");
    const file = write(join(project, "skillhub.yaml"), "sources:\n  dirs: [../elsewhere]\n");
    expect(() => readProjectFile(file, project)).toThrow(ConfigError);
    expect(() => readProjectFile(file, project)).toThrow(`${file}: sources.dirs = "../elsewhere"`);
    write(file, "- a\n- b\n");
    expect(() => readProjectFile(file, project)).toThrow("expected a mapping");
    let err = "";
    const code = await run(["list"], { HOME: tempDir() }, { out: () => {}, err: (t) => void (err += t), cwd: project });
    expect(code).toBe(2);
    expect(err).toContain(file);
  });

  test("a link leaving the project is refused unread, naming the link; one inside the project is read", () => {
    const project = tempDir("skillhub-project-");
    const secrets = write(join(tempDir("skillhub-secrets-"), "creds.yml"), "prod:\n  SECRETKEY_decoy_abc123: x\n");
    const file = join(project, "skillhub.yaml");
    symlinkSync(secrets, file);
    expect(() => readProjectFile(file, project)).toThrow(ConfigError);
    expect(() => readProjectFile(file, project)).toThrow(
      `Invalid configuration: '${file}' links outside ${project} (to ${secrets}); it is not read.`,
    );
    const inside = write(join(project, "config", "skillhub.yaml"), "sources:\n  dirs: [kit]\n");
    rmSync(file);
    symlinkSync(inside, file);
    expect(readProjectFile(file, project).dirs).toEqual([join(project, "kit")]);
  });

  test("a repository given as a relative path is the project's neighbour, whatever folder git runs in", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
    remote.push();
    const project = join(remote.bare, "..", "project");
    write(join(project, "skillhub.yaml"), "git:\n  repos: [../team.git]\n");
    expect(projectSourcesAt(project)?.repos).toEqual([{ url: remote.bare, scope: "project" }]);
    const { client } = await projectSession(project);
    const result = await client.callTool({ name: "skill", arguments: { name: "alpha" } });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain("Loading: alpha");
  });

  test("its repositories never receive GITHUB_TOKEN (the user's do)", async () => {
    const tls = selfSignedCert();
    if (!tls) return;
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
    const http = serveGitHttps(projectRoot(remote.bare), tls, () => true);
    closers.push(() => http.stop());
    const url = `${http.base}team.git`;
    const gitEnv = { ...GIT_ENV, GIT_SSL_NO_VERIFY: "1" };
    const base = { branch: "main", token: TOKEN, logger: createMemoryLogger(), intervalMs: 0, runner: { env: gitEnv } };
    const project = new GitSync({ ...base, home: tempDir(), repos: [{ url, scope: "project" }] });
    expect((await project.refresh("test")).success).toBe(true);
    expect(http.authorizations.length).toBeGreaterThan(0);
    expect(http.authorizations.every((h) => h === null)).toBe(true);
    const user = new GitSync({ ...base, home: tempDir(), repos: [url] });
    expect((await user.refresh("test")).success).toBe(true);
    expect(http.authorizations).toContain(basic);
  });

  test("server scripts of a repository the project added run only with scripts.allow_project", async () => {
    const remote = remoteRepo("tools-repo", {});
    writeScriptTree(join(remote.work, "skills"));
    remote.push("scripts");
    const project = tempDir("skillhub-project-");
    write(join(project, "skillhub.yaml"), `git:\n  repos:\n    - ${remote.url}\n`);
    const { client, hub } = await projectSession(project, { SKILLHUB_TOOLS: "all" });
    const call = () =>
      client.callTool({
        name: "run_script",
        arguments: { skill_path: "tools/echo", file: "scripts/args.sh", args: { name: "x" } },
      });
    const refused = (await call()) as { structuredContent?: { error?: { code: string; message: string } } };
    expect(refused.structuredContent?.error?.code).toBe("SCRIPTS_DISABLED");
    expect(refused.structuredContent?.error?.message).toContain("a repository its skillhub.yaml adds");
    hub.config.scripts.allow_project = true;
    expect(((await call()) as { structuredContent?: { success?: boolean } }).structuredContent?.success).toBe(true);
    // The same repository as the user's own runs them.
    const user = tempDir("skillhub-project-");
    const own = await projectSession(user, { SKILLHUB_TOOLS: "all", SKILLS_REPO: remote.url });
    const ran = await own.client.callTool({
      name: "run_script",
      arguments: { skill_path: "tools/echo", file: "scripts/args.sh", args: { name: "x" } },
    });
    expect((ran as { structuredContent?: { success?: boolean } }).structuredContent?.success).toBe(true);
  });

  test("a repository folder that is a link out of the copy is not served", async () => {
    const outside = tempDir("skillhub-outside-");
    write(join(outside, "secret", "SKILL.md"), skillText("secret"));
    const remote = remoteRepo("linky", { "README.md": "x\n" });
    symlinkSync(outside, join(remote.work, "skills"));
    remote.push("link");
    const logger = createMemoryLogger();
    const sync = new GitSync({
      branch: "main",
      logger,
      intervalMs: 0,
      home: tempDir(),
      repos: [{ url: remote.url, path: "skills" }],
      runner: { env: GIT_ENV },
    });
    expect((await sync.refresh("test")).success).toBe(true);
    expect(sync.sources()).toEqual([]);
    expect(logger.lines.join("\n")).toContain("skills leads outside the repository through a link; not served");
  });
});

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { loadSettings } from "../../src/commands/load-settings.ts";
import { parseCommandLine } from "../../src/config/args.ts";
import { createHttpHandler } from "../../src/transports/http-handler.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { GIT_ENV, git, remoteRepo } from "../helpers/git.ts";
import { pageFile } from "../helpers/http.ts";
import { sessions, testHub, textOf } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const open = sessions();

/** What actions/checkout leaves in a checkout's .git/config: a decoy of a remote's token. */
const TOKEN = "AUTHORIZATION: basic DECOY-c2VjcmV0LXRva2Vu";

/** A node declaring `.git`'s files by their names in it, as the attacker's does. */
function gitNode(root: string, rel: string, keyword: string, files = ["config"]) {
  const assets = files.map((file) => `  - file: ${file}\n    description: ${file}`).join("\n");
  writeNode(root, rel, { keywords: [keyword], extra: `assets:\n${assets}` });
}

/**
 * A checkout whose .git/config holds a token, serving its own root (`skillhub.yaml` `sources: {dirs: ["."]}`)
 * and a root file `.git.md` declaring `config`; `ok.md` beside it has a real resource folder.
 */
function checkout(): string {
  const project = tempDir("skillhub-checkout-");
  git(["init", "--quiet", "-b", "main"], project);
  git(["config", "http.https://github.com/.extraheader", TOKEN], project);
  write(join(project, "skillhub.yaml"), 'sources:\n  dirs: ["."]\n');
  gitNode(project, ".git.md", "projgit");
  writeNode(project, "ok.md", { keywords: ["release"], extra: "assets:\n  - file: notes.txt\n    description: Notes" });
  write(join(project, "ok", "notes.txt"), "release notes\n");
  return project;
}

/** An in-memory client of a server started in `project`, its skillhub.yaml read as `skillhub serve` reads it. */
async function serveProject(project: string) {
  const home = tempDir("skillhub-home-");
  const env = { SKILLHUB_RESCAN_SECONDS: "0", SKILLHUB_WATCH: "0", SKILLHUB_TOOLS: "all" };
  const args = parseCommandLine(["serve", "--project", project]);
  const { config } = await loadSettings({ args, env, homeDir: home, cwd: project, projectFile: "skip" });
  return open({ home, cwd: project, env, hub: { config } });
}

const refusal = (skill_path: string, file: string) => ({
  error: {
    code: "PATH_OUTSIDE_SKILL",
    message: `'${file}' of '${skill_path}' is not served: its resource folder is version-control metadata (.git, or a folder in one), whose files are no skill's (its config can hold a remote's credentials). Go on without it.`,
    skill_path,
    file,
  },
});

describe("a tree node named .git serves no file of the checkout's .git", () => {
  test("a project serving its root: get_asset and get_skill give no token, the catalog says why", async () => {
    const project = checkout();
    const { call, client, hub } = await serveProject(project);
    const asset = await call("get_asset", { skill_path: ".git", file: "config" });
    expect(asset.structuredContent).toEqual(refusal(".git", "config"));
    expect(textOf(asset)).not.toContain("DECOY");
    const routed = await call("get_skill", { context: "projgit" });
    expect(routed.structuredContent).toMatchObject({ skill_path: ".git", assets: [] });
    expect(textOf(routed)).not.toContain("DECOY");
    const file = await call("read_skill_file", { skill_name: ".git", file_path: "config" });
    expect(file.isError).toBe(true);
    expect(textOf(file)).not.toContain("DECOY");
    const read = client.readResource({ uri: "skill://.git/config" });
    await expect(read).rejects.toThrow(/version-control metadata/);
    await read.catch((error: Error) => expect(error.message).not.toContain("DECOY"));
    // A real resource folder beside it is served as ever.
    expect((await call("get_asset", { skill_path: "ok", file: "notes.txt" })).structuredContent).toMatchObject({
      content: "release notes\n",
    });
    const named = hub.catalog.diagnostics.filter((d) => d.code === "unsafe-path").map((d) => [d.file, d.message]);
    expect(named).toEqual([
      [
        join(project, ".git.md"),
        "its resource folder .git/ is version-control metadata (.git, or a folder in one); none of its assets or scripts are served.",
      ],
    ]);
  });

  test("a synced repository served from its root: get_skill inlines none of its sync state, origin or logs", async () => {
    const remote = remoteRepo("team-skills", {});
    gitNode(remote.work, ".git.md", "projgit", ["config", "skillhub-sync.json", "logs/HEAD"]);
    remote.push("a node named .git");
    const { call } = await open({
      env: { SKILLS_REPO: remote.url, SKILLHUB_TOOLS: "all" },
      hub: { git: { runner: { env: GIT_ENV }, intervalMs: 0 } },
    });
    const routed = await call("get_skill", { context: "projgit" });
    expect(routed.structuredContent).toMatchObject({ skill_path: ".git", assets: [] });
    expect(textOf(routed)).not.toContain(remote.bare);
    expect(textOf(routed)).not.toContain("commit");
    for (const file of ["config", "skillhub-sync.json", "logs/HEAD"])
      expect((await call("get_asset", { skill_path: ".git", file })).structuredContent).toEqual(refusal(".git", file));
  });

  test("any spelling, a folder inside one, a node's .md inside one; scripts, commands and the web page too", async () => {
    const skills = tempDir("skillhub-spellings-");
    // Folders only another file system takes for `.git` (names that ignore case, Windows' short name).
    for (const name of [".GIT", "GIT~1"]) {
      write(join(skills, name, "config"), `[http]\n\textraheader = ${TOKEN}\n`);
      gitNode(skills, `${name}.md`, `spelt${name === ".GIT" ? "upper" : "short"}`);
    }
    // A folder inside a checkout's .git reached through a link (a user's folder's links are followed).
    const other = tempDir("skillhub-other-checkout-");
    git(["init", "--quiet", "-b", "main"], other);
    write(join(other, ".git", "hooks", "notes.txt"), `${TOKEN}\n`);
    gitNode(join(other, ".git"), "hooks.md", "hooked", ["notes.txt"]);
    mkdirSync(join(skills, "linked"));
    symlinkSync(join(other, ".git"), join(skills, "linked", "meta"));
    // A node with a server script in `.git/`: it does not run, nor does a command there.
    const ran = join(tempDir("skillhub-ran-"), "ran");
    write(join(skills, "ops", ".git", "run.sh"), `touch '${ran}'\n`);
    writeNode(join(skills, "ops"), ".git.md", {
      keywords: ["ops"],
      extra: "scripts:\n  - file: run.sh\n    description: Runs\n    execution: server",
    });
    const env = { SKILLHUB_TOOLS: "all", SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "sh,cat" };
    const { call } = await open({ flags: { "skills-dir": [skills] }, env });
    for (const [skill_path, file] of [
      [".GIT", "config"],
      ["GIT~1", "config"],
      ["linked/meta/hooks", "notes.txt"],
    ] as const) {
      const asset = await call("get_asset", { skill_path, file });
      expect(asset.structuredContent).toEqual(refusal(skill_path, file));
      const command = await call("run_skill_command", { skill_name: skill_path, command: "cat", args: [file] });
      expect(textOf(command)).toStartWith("PATH_OUTSIDE_SKILL");
      expect(textOf(command)).not.toContain("DECOY");
    }
    const script = await call("run_script", { skill_path: "ops/.git", file: "run.sh" });
    expect(script.structuredContent).toMatchObject({ error: { code: "PATH_OUTSIDE_SKILL" } });
    const command = await call("run_skill_command", { skill_name: "ops/.git", command: "sh", args: ["run.sh"] });
    expect(textOf(command)).toStartWith("PATH_OUTSIDE_SKILL");
    expect(existsSync(ran)).toBe(false);

    const { hub } = testHub({ flags: { "skills-dir": [skills] }, hub: { acceptRoots: false } });
    const handler = createHttpHandler(hub, { host: "127.0.0.1", version: "test" });
    void hub.start();
    await hub.ready;
    try {
      const response = await pageFile(handler)(hub.catalog.get(".GIT")?.id as string, "config");
      const text = await response.text();
      expect(response.status).toBe(403);
      expect(text).toContain("PATH_OUTSIDE_SKILL");
      expect(text).not.toContain("DECOY");
    } finally {
      await hub.close();
    }
  });
});

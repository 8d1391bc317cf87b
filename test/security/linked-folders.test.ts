import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { createHttpHandler } from "../../src/transports/http-handler.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { pageFile } from "../helpers/http.ts";
import { sessions, testHub, textOf } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const open = sessions();

const KEY = "-----BEGIN DECOY PRIVATE KEY-----\n";
const ENVIRON = "DECOY_TOKEN=canary\0PATH=/bin\0";

/** Decoys outside every skills folder: a key in a folder, and a folder shaped like /proc/self. */
function decoys() {
  const outside = tempDir("skillhub-decoy-");
  const secret = join(outside, "secret");
  write(join(secret, "id_rsa"), KEY);
  const proc = join(outside, "proc-self");
  write(join(proc, "environ"), ENVIRON);
  return { secret, proc };
}

/**
 * A tree at `tree` whose nodes' resource folders are links to the decoys: `x/` → the key's folder,
 * `z/` → the /proc-like folder; `ok/` is a real folder (its asset is served).
 */
function linkedTree(tree: string) {
  const { secret, proc } = decoys();
  writeNode(tree, "_root.md", { keywords: ["global", "rules"], description: "Rules" });
  writeNode(tree, "x.md", {
    keywords: ["deploy", "keys"],
    extra: "assets:\n  - file: id_rsa\n    description: The deploy key",
  });
  symlinkSync(secret, join(tree, "x"));
  writeNode(tree, "z.md", {
    keywords: ["environment", "variables"],
    extra: "assets:\n  - file: environ\n    description: Environment",
  });
  symlinkSync(proc, join(tree, "z"));
  writeNode(tree, "ok.md", {
    keywords: ["release", "notes"],
    extra: "assets:\n  - file: notes.txt\n    description: Notes",
  });
  write(join(tree, "ok", "notes.txt"), "release notes\n");
  return tree;
}

/** A project whose own skills folder holds the tree under `.agents/skills/tree/`, the tools all offered. */
function projectWithTree() {
  const project = tempDir("skillhub-project-");
  linkedTree(join(project, ".agents", "skills", "tree"));
  return { cwd: project, flags: {}, env: { SKILLHUB_PROJECT_DIR: project, SKILLHUB_TOOLS: "all" } };
}

describe("a tree node's resource folder that links outside its tree serves nothing", () => {
  test("get_skill inlines no file of it, get_asset refuses them, the catalog says why", async () => {
    const { call, hub } = await open(projectWithTree());
    for (const [context, path] of [
      ["deploy keys", "tree/x"],
      ["environment variables", "tree/z"],
    ] as const) {
      const routed = await call("get_skill", { context });
      expect(routed.structuredContent).toMatchObject({ skill_path: path, assets: [] });
      expect(textOf(routed)).not.toContain("DECOY");
    }
    for (const [skill_path, file] of [
      ["tree/x", "id_rsa"],
      ["tree/z", "environ"],
    ] as const) {
      const asset = await call("get_asset", { skill_path, file });
      expect(asset.structuredContent).toEqual({
        error: {
          code: "PATH_OUTSIDE_SKILL",
          message: `'${file}' of '${skill_path}' is not served: its resource folder is a link to a folder outside the one its .md file is in (its author must put the files there). Go on without it.`,
          skill_path,
          file,
        },
      });
      expect(textOf(asset)).not.toContain("DECOY");
    }
    // A real resource folder beside it is served as ever.
    expect((await call("get_asset", { skill_path: "tree/ok", file: "notes.txt" })).structuredContent).toMatchObject({
      content: "release notes\n",
    });
    const named = hub.catalog.diagnostics.filter((d) => d.code === "unsafe-path").map((d) => [d.file, d.message]);
    expect(named).toEqual([
      [
        expect.stringMatching(/tree\/x\.md$/),
        "its resource folder x/ is a link to a folder outside the one x.md is in; none of its assets or scripts are served.",
      ],
      [
        expect.stringMatching(/tree\/z\.md$/),
        "its resource folder z/ is a link to a folder outside the one z.md is in; none of its assets or scripts are served.",
      ],
    ]);
  });

  test("resources/read and read_skill_file refuse its files by URI and by path", async () => {
    const { client, call } = await open(projectWithTree());
    for (const uri of ["skill://tree%2Fx/id_rsa", "skill://tree%2Fz/environ"]) {
      const read = client.readResource({ uri });
      await expect(read).rejects.toThrow(
        /its resource folder is a link to a folder outside the one its .md file is in/,
      );
      await read.catch((error: Error) => expect(error.message).not.toContain("DECOY"));
    }
    const file = await call("read_skill_file", { skill_name: "tree/x", file_path: "id_rsa" });
    expect(file.isError).toBe(true);
    expect(textOf(file)).toContain("PATH_OUTSIDE_SKILL");
    expect(textOf(file)).not.toContain("DECOY");
  });

  test("an explicit folder's tree too, and the web page's file view", async () => {
    const skills = linkedTree(tempDir("skillhub-explicit-"));
    const { hub } = testHub({ flags: { "skills-dir": [skills] }, hub: { acceptRoots: false } });
    const handler = createHttpHandler(hub, { host: "127.0.0.1", version: "test" });
    void hub.start();
    await hub.ready;
    try {
      const get = pageFile(handler);
      for (const [node, file] of [
        ["x", "id_rsa"],
        ["z", "environ"],
      ] as const) {
        const response = await get(hub.catalog.get(node)?.id as string, file);
        const text = await response.text();
        expect(response.status).toBe(403);
        expect(text).toContain("PATH_OUTSIDE_SKILL");
        expect(text).not.toContain("DECOY");
      }
      expect(await (await get(hub.catalog.get("ok")?.id as string, "notes.txt")).text()).toContain("release notes");
    } finally {
      await hub.close();
    }
  });
});

describe("what runs in a resource folder that links outside its tree: nothing", () => {
  test("run_script and run_skill_command refuse, and nothing runs", async () => {
    const outside = tempDir("skillhub-decoy-");
    const ran = join(outside, "ran");
    write(join(outside, "bin", "run.sh"), `touch '${ran}'\necho DECOY-RAN\n`);
    const skills = tempDir("skillhub-scripts-");
    writeNode(skills, "ops.md", {
      keywords: ["ops"],
      extra: "scripts:\n  - file: run.sh\n    description: Runs\n    execution: server",
    });
    symlinkSync(join(outside, "bin"), join(skills, "ops"));
    const { call } = await open({
      flags: { "skills-dir": [skills] },
      env: { SKILLHUB_TOOLS: "all", SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "sh" },
    });
    const script = await call("run_script", { skill_path: "ops", file: "run.sh" });
    expect(script.structuredContent).toMatchObject({ error: { code: "PATH_OUTSIDE_SKILL" } });
    const command = await call("run_skill_command", { skill_name: "ops", command: "sh", args: ["run.sh"] });
    expect(command.isError).toBe(true);
    expect(textOf(command)).toStartWith("PATH_OUTSIDE_SKILL");
    expect(existsSync(ran)).toBe(false);
  });

  test("a resource folder swapped for a link after the scan is refused at the read", async () => {
    const { secret } = decoys();
    const skills = tempDir("skillhub-swapped-");
    writeNode(skills, "x.md", { keywords: ["deploy"], extra: "assets:\n  - file: id_rsa\n    description: Key" });
    write(join(skills, "x", "id_rsa"), "the tree's own file\n");
    const { call } = await open({ flags: { "skills-dir": [skills] }, env: { SKILLHUB_TOOLS: "all" } });
    expect((await call("get_asset", { skill_path: "x", file: "id_rsa" })).structuredContent).toMatchObject({
      content: "the tree's own file\n",
    });
    rmSync(join(skills, "x"), { recursive: true });
    symlinkSync(secret, join(skills, "x"));
    const asset = await call("get_asset", { skill_path: "x", file: "id_rsa" });
    expect(asset.structuredContent).toMatchObject({ error: { code: "PATH_OUTSIDE_SKILL" } });
    expect(textOf(asset)).not.toContain("DECOY");
  });
});

describe("an Agent Skill's subfolder that links outside its folder serves nothing", () => {
  test("read_skill_file and resources/read refuse scripts/ → a folder elsewhere", async () => {
    const { secret } = decoys();
    const skills = tempDir("skillhub-agent-");
    writeSkill(skills, "deploy", { description: "Deploys the app" });
    write(join(skills, "deploy", "notes.md"), "notes\n");
    symlinkSync(secret, join(skills, "deploy", "scripts"));
    const { client, call } = await open({ flags: { "skills-dir": [skills] } });
    expect(textOf(await call("read_skill_file", { skill_name: "deploy", file_path: "notes.md" }))).toContain("notes");
    const file = await call("read_skill_file", { skill_name: "deploy", file_path: "scripts/id_rsa" });
    expect(file.isError).toBe(true);
    expect(textOf(file)).toStartWith("PATH_OUTSIDE_SKILL");
    expect(textOf(file)).not.toContain("DECOY");
    const read = client.readResource({ uri: "skill://deploy/scripts/id_rsa" });
    await expect(read).rejects.toThrow();
    await read.catch((error: Error) => expect(error.message).not.toContain("DECOY"));
  });
});

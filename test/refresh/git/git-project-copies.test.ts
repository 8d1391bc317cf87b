import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../src/cli.ts";
import { repoTargets } from "../../../src/refresh/repo-targets.ts";
import { cleanupTemp, tempDir } from "../../helpers/fs.ts";
import { GIT_ENV, git, remoteRepo, skillText } from "../../helpers/git.ts";
import { connect, eventually } from "../../helpers/hub.ts";

afterAll(cleanupTemp);

/** One person's machine (one home) with two projects, each a git checkout. */
function machine() {
  const home = tempDir("skillhub-copies-home-");
  const root = tempDir("skillhub-copies-projects-");
  const pa = join(root, "pa");
  const pb = join(root, "pb");
  for (const dir of [pa, pb]) {
    mkdirSync(dir);
    git(["init", "--quiet"], dir);
  }
  return { home, pa, pb };
}

/** The CLI as a person runs it in `project`. */
async function cli(home: string, project: string, argv: string[], env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const code = await run(
    argv,
    { ...GIT_ENV, HOME: home, SKILLHUB_WATCH: "0", ...env },
    { out: (t) => void (out += t), err: (t) => void (err += t), cwd: project },
  );
  return { code, out, err };
}

const lockedCommit = (project: string) =>
  JSON.parse(readFileSync(join(project, "skillhub.lock"), "utf8")).sources["team-skills"].commit as string;

describe("each project keeps its own copies of the repositories it pins", () => {
  test("a tag pinned in one project stays served there while another project pins and syncs another tag", async () => {
    const m = machine();
    const team = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha", "Version one.") });
    git(["tag", "v1"], team.work);
    team.write("skills/beta/SKILL.md", skillText("beta", "Only in version two."));
    team.push("two");
    git(["tag", "v2"], team.work);
    git(["push", "--quiet", "origin", "v1", "v2"], team.work);

    expect((await cli(m.home, m.pa, ["add", `${team.url}#v1`])).code).toBe(0);
    expect((await cli(m.home, m.pb, ["add", `${team.url}#v2`])).code).toBe(0);
    const copies = readdirSync(join(m.home, ".skillhub", "repos")).filter((n) => !n.startsWith("."));
    expect(copies).toHaveLength(2);

    const verified = await cli(m.home, m.pa, ["verify"]);
    expect(verified.code, verified.out + verified.err).toBe(0);
    expect((await cli(m.home, m.pb, ["sync"])).code).toBe(0);
    expect((await cli(m.home, m.pa, ["verify"])).code).toBe(0);
    const listed = await cli(m.home, m.pa, ["list"]);
    expect(listed.out).toContain("alpha");
    expect(listed.out).not.toContain("beta");
    expect((await cli(m.home, m.pb, ["list"])).out).toContain("beta");
  });

  test("frozen syncs of two projects locked at different commits of one branch leave each other's copy alone", async () => {
    const m = machine();
    const team = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha", "Version one.") });
    expect((await cli(m.home, m.pa, ["add", team.url])).code).toBe(0);
    const first = lockedCommit(m.pa);
    team.write("skills/alpha/SKILL.md", skillText("alpha", "Version two."));
    const second = team.push("two");
    expect((await cli(m.home, m.pb, ["add", team.url])).code).toBe(0);
    expect(lockedCommit(m.pb)).toBe(second);

    const frozen = { SKILLHUB_FROZEN: "1" };
    for (let round = 0; round < 2; round++) {
      const a = await cli(m.home, m.pa, ["sync"], frozen);
      expect(a.code, a.out + a.err).toBe(0);
      const b = await cli(m.home, m.pb, ["sync"], frozen);
      expect(b.code, b.out + b.err).toBe(0);
    }
    expect((await cli(m.home, m.pa, ["verify"])).code).toBe(0);
    expect((await cli(m.home, m.pb, ["verify"])).code).toBe(0);
    expect(lockedCommit(m.pa)).toBe(first);
    expect((await cli(m.home, m.pa, ["show", "alpha"])).out).toContain("Version one.");
    expect((await cli(m.home, m.pb, ["show", "alpha"])).out).toContain("Version two.");
  });

  test("outside any project the copies keep their folder of earlier versions (<name>-<hash>)", async () => {
    const home = tempDir("skillhub-copies-home-");
    const team = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha") });
    const synced = await cli(home, home, ["sync"], { SKILLS_REPO: team.url });
    expect(synced.code, synced.err).toBe(0);
    const copies = readdirSync(join(home, ".skillhub", "repos")).filter((n) => !n.startsWith("."));
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(/^team-skills-[0-9a-f]{8}$/);
    expect(existsSync(join(home, ".skillhub", "repos", copies[0] as string, ".git"))).toBe(true);
  });
});

describe("verify's advice restores what the lock records", () => {
  test("a teammate with the committed lock fetches exactly its commits with sync --frozen; a changed copy is restored by it", async () => {
    const lead = machine();
    const team = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha", "Version one.") });
    expect((await cli(lead.home, lead.pa, ["add", team.url])).code).toBe(0);
    const locked = lockedCommit(lead.pa);
    team.write("skills/alpha/SKILL.md", skillText("alpha", "Version two."));
    team.push("two");

    // A teammate's checkout of the project: its skillhub.yaml and skillhub.lock, no copy yet.
    const mate = machine();
    for (const name of ["skillhub.yaml", "skillhub.lock"])
      writeFileSync(join(mate.pa, name), readFileSync(join(lead.pa, name), "utf8"));
    const fresh = await cli(mate.home, mate.pa, ["verify"]);
    expect(fresh.code).toBe(1);
    expect(fresh.out).toContain("no local copy of");
    expect(fresh.out).toContain("run `skillhub sync --frozen` to fetch the locked commit");
    expect(fresh.out).toContain("has no local copy on this machine yet: run `skillhub sync --frozen`");
    const fetched = await cli(mate.home, mate.pa, ["sync", "--frozen"]);
    expect(fetched.code, fetched.out + fetched.err).toBe(0);
    expect(lockedCommit(mate.pa)).toBe(locked);
    expect((await cli(mate.home, mate.pa, ["verify"])).code).toBe(0);

    // An edit in the copy: verify names it, and the command it gives restores the locked commit.
    const copy = readdirSync(join(mate.home, ".skillhub", "repos")).find((n) => n.startsWith("team-skills-"));
    writeFileSync(
      join(mate.home, ".skillhub", "repos", copy as string, "skills", "alpha", "SKILL.md"),
      skillText("alpha", "Edited."),
    );
    const edited = await cli(mate.home, mate.pa, ["verify"]);
    expect(edited.code).toBe(1);
    expect(edited.out).toContain(
      "Repository team-skills's copy has local changes (skills/alpha/SKILL.md), which the next sync discards: change the repository instead, or run `skillhub sync --frozen` to put the locked commit's files back.\n",
    );
    expect((await cli(mate.home, mate.pa, ["sync", "--frozen"])).code).toBe(0);
    expect((await cli(mate.home, mate.pa, ["verify"])).code).toBe(0);
    expect((await cli(mate.home, mate.pa, ["show", "alpha"])).out).toContain("Version one.");
  });
});

describe("a server whose project changes", () => {
  test("syncs the new project's own copy and serves its skills from it", async () => {
    const m = machine();
    const team = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha", "From the team.") });
    const home = join(m.home, ".skillhub");
    const copyFor = (project: string) =>
      repoTargets({ repos: [team.url], branch: "main", home, lock: join(project, "skillhub.lock") })[0]?.dir ?? "";
    const s = await connect({
      home: m.home,
      cwd: m.pa,
      env: { ...GIT_ENV, HOME: m.home, SKILLS_REPO: team.url, SKILLHUB_WATCH: "0" } as Record<string, string>,
      hub: { git: { runner: { env: GIT_ENV }, intervalMs: 0, home } },
    });
    try {
      await eventually(() => s.hub.catalog.get("alpha")?.dir.startsWith(copyFor(m.pa)));
      // What a client's roots/list answer does: the other project's lock pins another copy.
      s.hub.setClientRoots([`file://${m.pb}`]);
      await eventually(() => s.hub.catalog.get("alpha")?.dir.startsWith(copyFor(m.pb)));
      expect(existsSync(copyFor(m.pa))).toBe(true);
      expect(copyFor(m.pa)).not.toBe(copyFor(m.pb));
    } finally {
      await s.close();
    }
  });
});

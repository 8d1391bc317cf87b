import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binary, runBinary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { GIT_ENV, git, remoteRepo, skillText } from "../helpers/git.ts";

afterAll(cleanupTemp);

/** The compiled binary, as a person runs it in `cwd` with `home` as HOME: no log lines on stderr. */
const skillhub = (args: string[], cwd: string, home: string) =>
  runBinary(args, cwd, home, { ...GIT_ENV, LOG_LEVEL: "WARN" });

/** A folder holding skill folders, named `label` (the label --skills-dir gives it). */
function skillsFolder(label: string, skills: Record<string, string>): string {
  const dir = join(tempDir(), label);
  for (const [name, description] of Object.entries(skills)) writeSkill(dir, name, { description });
  return dir;
}

describe("what search, list and doctor print", () => {
  test("search names each hit's source by its label, as list does, not where SkillHub looked", () => {
    const home = tempDir();
    const dir = skillsFolder("house-rules", {
      "postgres-query-tuning": "Diagnose and speed up slow PostgreSQL SQL queries with EXPLAIN.",
      "git-commit-messages": "Write clear commit messages.",
    });
    const found = skillhub(["search", "slow SQL query", "--skills-dir", dir], home, home);
    expect(found.code, found.err).toBe(0);
    expect(found.out).toMatch(/^ 1\. postgres-query-tuning {2}\(\d\.\d\d, house-rules\)\n/);
    expect(found.out).not.toContain("explicit");
    expect(skillhub(["list", "--skills-dir", dir], home, home).out).toContain("  house-rules  ");
  });

  test("list and doctor size their columns to the longest label: two spaces after it, however long", () => {
    const home = tempDir();
    const example = skillsFolder("skills-example", {
      "code-review-checklist": "Checklist for reviewing pull requests.",
      pdf: "Extract text from PDF files.",
    });
    const science = skillsFolder("claude-scientific-skills", { "protein-folding": "Predict protein structures." });
    const listed = skillhub(["list", "--skills-dir", example], home, home);
    expect(listed.out).toStartWith(
      [
        "code-review-checklist  skills-example  Checklist for reviewing pull requests.",
        "pdf                    skills-example  Extract text from PDF files.",
        "",
      ].join("\n"),
    );
    const both = skillhub(["list", "--skills-dir", science, "--skills-dir", example], home, home);
    expect(both.out).toContain("protein-folding        claude-scientific-skills  Predict protein structures.\n");
    expect(both.out).toContain("pdf                    skills-example            Extract text from PDF files.\n");

    const doctor = skillhub(["doctor", "--skills-dir", science, "--skills-dir", example], home, home);
    const rows = doctor.out.split("\n").filter((line) => /^ {2}[ \d]\d\. /.test(line));
    expect(rows.length).toBeGreaterThan(2);
    expect(rows[0]).toBe(`   1. claude-scientific-skills  explicit  ${science}  (1 skill)`);
    expect(rows[1]).toBe(`   2. skills-example            explicit  ${example}  (2 skills)`);
    // Every row's location starts where the first one's does.
    for (const row of rows) expect(row.slice(6 + 24, 6 + 26), row).toBe("  ");
  });

  test("doctor's repositories header names the default branch, not one every repository follows", () => {
    const home = tempDir();
    const project = join(home, "project");
    git(["init", "--quiet", "-b", "main", project]);
    const team = remoteRepo("team", { "skills/hello/SKILL.md": skillText("hello") });
    write(join(project, "skillhub.yaml"), `git:\n  repos:\n    - url: ${team.url}\n      ref: v1\n`);
    const doctor = skillhub(["doctor"], project, home);
    expect(doctor.out).toContain("\nGit repositories (default branch main; ");
    expect(doctor.out).not.toContain("(branch main;");
    expect(doctor.out).toContain(`  team  ${team.url}, pinned to v1`);
  });

  test("a --skills-dir that does not exist, or that is a SKILL.md, is said so on stdout too", () => {
    const home = tempDir();
    const missing = join(tempDir(), "not-there");
    const noFolder = skillhub(["list", "--skills-dir", missing], home, home);
    expect(noFolder.code).toBe(0);
    expect(noFolder.out).toBe(
      `No skills found: ${missing} does not exist. Run \`skillhub doctor\` with the same options to see every folder searched.\n`,
    );
    expect(noFolder.err).toContain(`${missing} does not exist`);
    const folder = skillsFolder("skills-example", { "house-style": "The team's house rules." });
    const file = join(folder, "house-style", "SKILL.md");
    for (const command of [["list"], ["search", "house rules"]]) {
      const given = skillhub([...command, "--skills-dir", file], home, home);
      expect(given.out).toBe(
        `No skills found: ${file} is a file: give the folder that holds skill folders (--skills-dir ${folder}). Run \`skillhub doctor\` with the same options to see every folder searched.\n`,
      );
    }
    // An empty folder is not "missing": it holds no skill folders.
    const empty = tempDir();
    expect(skillhub(["list", "--skills-dir", missing, "--skills-dir", empty], home, home).out).toStartWith(
      `No skills found: ${missing} does not exist; ${empty} holds no skills (a skill is a folder holding a SKILL.md). `,
    );
  });
});

describe("list when no skill is served", () => {
  test("every skill found broken: exit 1, as doctor, each problem on stderr and none on stdout", () => {
    const home = tempDir();
    const dir = tempDir();
    write(join(dir, "bad", "SKILL.md"), "no frontmatter\n");
    write(join(dir, "worse", "SKILL.md"), "---\nname: worse\ndescription: [unclosed\n---\nx\n");
    const listed = skillhub(["list", "--skills-dir", dir], home, home);
    expect(listed.code).toBe(1);
    expect(listed.out).toBe("");
    expect(listed.err).toStartWith("No skills served: 2 SKILL.md files could not be read as a skill:\n");
    expect(listed.err).toContain(`  error no-frontmatter ${join(dir, "bad", "SKILL.md")}: `);
    expect(listed.err).toContain(`  error yaml-error ${join(dir, "worse", "SKILL.md")}: `);
    expect(listed.err).toEndWith(
      "Fix them (skillhub validate DIR explains each rule), then run skillhub list again.\n",
    );
    expect(skillhub(["doctor", "--skills-dir", dir], home, home).code).toBe(1);
    const json = skillhub(["list", "--json", "--skills-dir", dir], home, home);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toEqual({ skills: [], diagnostics: { errors: 2, warnings: 0 } });
    // One good skill beside them is served: list shows it and exits 0, counting the others.
    writeSkill(dir, "good");
    const some = skillhub(["list", "--skills-dir", dir], home, home);
    expect(some.code).toBe(0);
    expect(some.out).toContain("2 skipped with errors");
  });

  test("an empty folder is no failure: exit 0, saying where to look", () => {
    const home = tempDir();
    const empty = tempDir();
    const listed = skillhub(["list", "--skills-dir", empty], home, home);
    expect(listed).toEqual({
      code: 0,
      out: `No skills found in ${empty} (a skill is a folder holding a SKILL.md) nor in the usual folders. Run \`skillhub doctor\` with the same options to see every folder searched.\n`,
      err: "",
    });
  });
});

describe("text from a hostile SKILL.md, skillhub.yaml or analytics file, printed to a terminal", () => {
  /** Escape sequences a terminal acts on: a window title (OSC 0), the clipboard (OSC 52), a link (OSC 8), colours, C1's CSI. */
  const ESCAPES =
    "\u001b]0;PWNED\u0007 \u001b]52;c;cm0gLXJmIH4=\u0007 \u001b]8;;https://evil.example\u001b\\docs\u001b]8;;\u001b\\ \u001b[2J\u009b31m";
  /** Characters that must not reach the terminal raw: controls other than tab and newline, bidi overrides. */
  const RAW = /(?![\t\n])[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

  test("list, search, show, doctor, validate, sources and stats write each control character as \\uXXXX", () => {
    const home = tempDir();
    const project = tempDir();
    const skills = join(project, ".agents", "skills");
    writeSkill(skills, "evil", {
      description: JSON.stringify(`Deploys ${ESCAPES} \u202eeliforp`),
      body: `# Evil\n\nBody ${ESCAPES}\n`,
    });
    writeSkill(skills, "evil2", { name: JSON.stringify(`ev\u001b[8mil2`), description: "hidden name" });
    write(join(project, "skillhub.yaml"), `sources:\n  dirs:\n    - ${JSON.stringify(`odd\u001b]0;T\u0007`)}\n`);
    const events = join(tempDir(), "events.jsonl");
    const event = {
      type: "skill_loaded",
      timestamp: new Date().toISOString(),
      server_id: "s",
      data: { skill: `x${ESCAPES}` },
    };
    write(events, `${JSON.stringify(event)}\n`);
    const runs = [
      ["list"],
      ["search", "deploys"],
      ["show", "evil"],
      ["show", "ev"],
      ["doctor"],
      ["validate"],
      ["sources"],
      ["stats", events],
    ];
    for (const args of runs) {
      const r = skillhub(args, project, home);
      expect({ args, raw: RAW.exec(r.out + r.err)?.[0] }).toEqual({ args, raw: undefined });
      if (args[0] !== "sources") expect(r.out + r.err, args.join(" ")).toContain("\\u001b");
    }
    expect(skillhub(["list"], project, home).out).toContain(
      "Deploys \\u001b]0;PWNED\\u0007 \\u001b]52;c;cm0gLXJmIH4=\\u0007",
    );
    expect(skillhub(["show", "evil"], project, home).out).toContain("\\u202eeliforp");
    expect(skillhub(["sources"], project, home).out).toContain("odd\\u001b]0;T\\u0007");
  });

  test("tabs and line breaks, CRLF ones too, are kept", () => {
    const home = tempDir();
    const skills = join(tempDir(), "skills");
    write(
      join(skills, "crlf", "SKILL.md"),
      "---\r\nname: crlf\r\ndescription: Kept as written.\r\n---\r\n# Title\r\n\ta\tb\r\n",
    );
    const shown = skillhub(["show", "crlf", "--skills-dir", skills], home, home);
    expect(shown.out).toEndWith("---\r\n# Title\r\n\ta\tb\r\n\nFiles: none besides SKILL.md.\n");
  });
  test("text that needs joiners and tags is printed as written, and --json still reads back the same", () => {
    const home = tempDir();
    const skills = join(tempDir(), "skills");
    // A subdivision flag (tag characters past U+FFFF), a family emoji (zero-width joiners), Persian with a
    // zero-width non-joiner, a soft hyphen; and one escape sequence, which --json carries as JSON escapes it.
    const description =
      "Flag \u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}, family \u{1f468}\u200d\u{1f469}\u200d\u{1f467}, \u062e\u0627\u0646\u0647\u200c\u0647\u0627, co\u00adop";
    writeSkill(skills, "world", { description: JSON.stringify(`${description} \u001b[2J`) });
    const listed = skillhub(["list", "--skills-dir", skills], home, home).out;
    expect(listed).toContain(description);
    expect(listed).toContain("\\u001b[2J");
    const json = JSON.parse(skillhub(["list", "--json", "--skills-dir", skills], home, home).out);
    expect(json.skills[0].description).toBe(`${description} \u001b[2J`);
  });
});

describe("sync --frozen", () => {
  test("differences from the lock end with what to do: verify's sentence, without the sync it has just done", () => {
    const home = tempDir();
    const project = join(home, "project");
    git(["init", "--quiet", "-b", "main", project]);
    writeSkill(join(project, "local-skills"), "hello", { description: "Says hello." });
    write(join(project, "skillhub.yaml"), "sources:\n  dirs:\n    - local-skills\n");
    expect(skillhub(["lock"], project, home).code).toBe(0);
    writeFileSync(join(project, "local-skills", "hello", "SKILL.md"), skillText("hello", "Says hello, edited."));
    const verify = skillhub(["verify"], project, home);
    expect(verify.code).toBe(1);
    const advice = verify.out.trimEnd().split("\n").pop() as string;
    expect(advice).toStartWith(
      "Review them, then run `skillhub lock` to accept them, or restore what the lock records",
    );
    const sync = skillhub(["sync", "--frozen"], project, home);
    expect(sync.code).toBe(1);
    expect(sync.out).toContain("1 difference (frozen, lock unchanged):\n  changed skill local-skills:hello");
    expect(sync.out).toEndWith(
      "\nReview them, then run `skillhub lock` to accept them, or restore what the lock records: restore a folder's files from version control.\n",
    );
    // No difference, no advice.
    expect(skillhub(["lock"], project, home).code).toBe(0);
    expect(skillhub(["sync", "--frozen"], project, home).out).not.toContain("Review them");
  });
});

/** Read `stream` until its text so far matches `pattern`; the text. */
async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp, seen = { text: "" }): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  try {
    while (!pattern.test(seen.text)) {
      const { done, value } = await reader.read();
      if (done) break;
      seen.text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return seen.text;
}

describe.skipIf(process.platform === "win32")("ui --open", () => {
  /** `skillhub ui --open` with PATH holding only `bin`: its stdout and stderr once stderr matches `until`. */
  async function uiOpen(bin: string, until: RegExp) {
    const home = tempDir();
    const skills = skillsFolder("skills", { pdf: "Extract text from PDF files." });
    const proc = Bun.spawn([binary(), "ui", "--open", "--skills-dir", skills, "--no-watch"], {
      env: { PATH: bin, HOME: home, LOG_LEVEL: "WARN" },
      cwd: home,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const out = await readUntil(proc.stdout, /\n/);
      const err = await readUntil(proc.stderr, until);
      return { out, err };
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }

  test("with no browser opener on PATH, stderr says so and points at the URL printed", async () => {
    const { out, err } = await uiOpen(tempDir(), /open the URL above/);
    expect(out).toMatch(/^SkillHub page: http:\/\/127\.0\.0\.1:\d+\/\n$/);
    expect(err).toMatch(
      /^skillhub ui: could not open a browser \((xdg-)?open is not on PATH\): open the URL above\.$/m,
    );
  });

  test("an opener that fails is said with its exit code", async () => {
    const bin = tempDir();
    for (const name of ["xdg-open", "open"]) {
      writeFileSync(join(bin, name), "#!/bin/sh\nexit 3\n");
      chmodSync(join(bin, name), 0o755);
    }
    const { err } = await uiOpen(bin, /open the URL above/);
    expect(err).toMatch(
      /^skillhub ui: could not open a browser \((xdg-)?open exited with code 3\): open the URL above\.$/m,
    );
  });
});

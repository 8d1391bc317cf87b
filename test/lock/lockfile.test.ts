import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DigestCache, digestFile, sha256Of } from "../../src/catalog/digests.ts";
import { compareLocks } from "../../src/lock/compare.ts";
import { formatLockfile, LockError, type Lockfile, parseLockfile, readLockfile } from "../../src/lock/lockfile.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const D = (c: string) => `sha256:${c.repeat(64)}`;

function sample(): Lockfile {
  return {
    lockfile_version: 1,
    sources: { team: { url: "https://example.com/team.git", ref: "v1", commit: "a".repeat(40) } },
    skills: {
      "project:zeta": {
        name: "zeta",
        source: "project",
        kind: "agent-skill",
        path: "zeta/SKILL.md",
        skill_md: D("1"),
        files: { "b.md": D("2"), "a.md": D("3") },
      },
      "project:alpha": {
        name: "alpha",
        source: "project",
        kind: "agent-skill",
        path: "alpha/SKILL.md",
        skill_md: D("4"),
        files: {},
      },
    },
  };
}

describe("digests (one module for the lock and the skills extension)", () => {
  test("sha256:<hex> of the bytes, with the size; streamed files equal in-memory digests", () => {
    expect(sha256Of("abc")).toBe("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const dir = tempDir();
    const big = new Uint8Array(700_000).map((_, i) => i % 251);
    write(join(dir, "big.bin"), big);
    expect(digestFile(realpathSync(dir), "big.bin")).toEqual({ digest: sha256Of(big), size: 700_000 });
    expect(digestFile(realpathSync(dir), "missing")).toBeUndefined();
    mkdirSync(join(dir, "folder"));
    expect(digestFile(realpathSync(dir), "folder")).toBeUndefined();
  });

  test("a FIFO, a link to a FIFO and a device are never opened for reading: no digest, no wait", () => {
    const dir = tempDir();
    Bun.spawnSync(["mkfifo", join(dir, "pipe")]);
    symlinkSync(join(dir, "pipe"), join(dir, "to-pipe"));
    symlinkSync("/dev/zero", join(dir, "zero"));
    const real = realpathSync(dir);
    // A blocking open of a FIFO would never return here (no writer): these return at once.
    expect(digestFile(real, "pipe")).toBeUndefined();
    expect(digestFile(real, "to-pipe")).toBeUndefined();
    expect(digestFile(real, "zero")).toBeUndefined();
  });

  test("digests are cached by file identity and times; a file changed a moment ago is never cached", () => {
    const dir = tempDir();
    const real = realpathSync(dir);
    const file = write(join(dir, "a.md"), "reviewed");
    // Just written: file times are coarse, so a same-size rewrite in the same tick would look unchanged.
    const fresh = new DigestCache();
    expect(digestFile(real, "a.md", fresh)?.digest).toBe(sha256Of("reviewed"));
    expect(fresh.get(statSync(file))).toBeUndefined();
    writeFileSync(file, "tampered");
    utimesSync(file, statSync(file).atime, statSync(file).mtime);
    expect(digestFile(real, "a.md", fresh)?.digest).toBe(sha256Of("tampered"));
    // Seen long after its last change: remembered while its device, inode, size and times hold.
    const later = new DigestCache({ now: () => Date.now() + 60_000 });
    expect(digestFile(real, "a.md", later)?.digest).toBe(sha256Of("tampered"));
    expect(later.get(statSync(file))?.digest).toBe(sha256Of("tampered"));
    // Replaced by a rename: another inode, hashed again.
    write(join(dir, "b.tmp"), "renamed!");
    renameSync(join(dir, "b.tmp"), file);
    expect(later.get(statSync(file))).toBeUndefined();
    expect(digestFile(real, "a.md", later)?.digest).toBe(sha256Of("renamed!"));
  });
});

describe("skillhub.lock format", () => {
  test("keys are sorted at every level, so the text does not depend on scan order", () => {
    const text = formatLockfile(sample());
    expect(text.indexOf('"project:alpha"')).toBeLessThan(text.indexOf('"project:zeta"'));
    expect(text.indexOf('"a.md"')).toBeLessThan(text.indexOf('"b.md"'));
    expect(text.endsWith("}\n")).toBe(true);
    const reordered = { ...sample(), skills: Object.fromEntries(Object.entries(sample().skills).reverse()) };
    expect(formatLockfile(reordered)).toBe(text);
    expect(parseLockfile(text, "x")).toEqual(sample());
  });

  test("entries named like Object.prototype's members are written and read back as entries of their own", () => {
    const lock = sample();
    const files = Object.fromEntries([
      ["__proto__", D("5")],
      ["constructor", D("6")],
    ]);
    (lock.skills["project:zeta"] as { files: Record<string, string> }).files = files;
    const text = formatLockfile(lock);
    expect(text).toContain(`"__proto__": "${D("5")}"`);
    const read = parseLockfile(text, "x");
    const zeta = read.skills["project:zeta"] as { files: Record<string, string> };
    expect(Object.keys(zeta.files)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(zeta.files)).toBeNull();
    // A source labelled so is a source, not the prototype every lookup in `sources` would inherit from.
    const source = { url: "https://example.com/x.git", ref: "main", commit: "b".repeat(40) };
    const labelled = parseLockfile(
      JSON.stringify({ ...JSON.parse(text), sources: JSON.parse(`{"__proto__":${JSON.stringify(source)}}`) }),
      "x",
    );
    expect(Object.keys(labelled.sources)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(labelled.sources)).toBeNull();
    expect(() => parseLockfile(text.replace(`"__proto__": "${D("5")}"`, '"__proto__": "sha256:short"'), "x")).toThrow(
      /at skills\.project:zeta\.files\.__proto__: expected sha256/,
    );
  });

  test("a corrupt lock is a LockError with the file, the place and what to do, never a crash", () => {
    const cases: [string, RegExp][] = [
      ["{ not json", /skillhub\.lock is not valid JSON .*run `skillhub lock`/],
      ["[]", /not a valid SkillHub lock: at \(top level\)/],
      [
        JSON.stringify({ ...sample(), lockfile_version: 9 }),
        /lockfile_version 9, newer than this SkillHub understands/,
      ],
      [
        JSON.stringify({ ...sample(), skills: { "p:x": { ...sample().skills["project:alpha"], skill_md: "md5:00" } } }),
        /at skills\.p:x\.skill_md: expected sha256:<64 lower-case hex>/,
      ],
      [
        JSON.stringify({ ...sample(), sources: { t: { url: "u", ref: "r", commit: "abc" } } }),
        /at sources\.t\.commit: expected a full commit hash/,
      ],
      [JSON.stringify({ ...sample(), extra: 1 }), /not a valid SkillHub lock/],
      ...["--upload-pack=touch /tmp/x", "x..y", ""].map((ref): [string, RegExp] => [
        JSON.stringify({ ...sample(), sources: { t: { url: "u", ref, commit: "a".repeat(40) } } }),
        /at sources\.t\.ref: expected a branch, tag or full commit name/,
      ]),
    ];
    for (const [text, message] of cases) {
      let error: unknown;
      try {
        parseLockfile(text, "/p/skillhub.lock");
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(LockError);
      expect((error as LockError).code).toBe("LOCK_INVALID");
      expect((error as LockError).message).toMatch(message);
    }
    const dir = tempDir();
    expect(() => readLockfile(join(dir, "skillhub.lock"))).toThrow(
      /no lock at .*run `skillhub lock` to write one \(after `skillhub sync` if a repository is not fetched yet\)/,
    );
  });

  test("Security: a lock nested deep, or with huge keys or line breaks in them, is refused in a short line", () => {
    const message = (text: string) => {
      try {
        parseLockfile(text, "/p/skillhub.lock");
      } catch (e) {
        return (e as LockError).message;
      }
      throw new Error("parsed");
    };
    // 30 million brackets would take gigabytes to parse; they are refused at the first one too deep.
    const deep = `{"lockfile_version":1,"x":${"[".repeat(30_000_000)}${"]".repeat(30_000_000)}}`;
    expect(message(deep)).toBe(
      "/p/skillhub.lock nests deeper than 32 levels at character 58 (a lock is 4 deep); restore it from version control or run `skillhub lock` to write it again.",
    );
    const huge = `k${"y".repeat(1_000_000)}\nforged line`;
    const skill = JSON.stringify(sample().skills["project:alpha"]);
    for (const text of [
      `{"lockfile_version":1,"sources":{},"skills":{"${huge}":${skill},"${huge}":${skill}}}`,
      JSON.stringify({ ...sample(), skills: { [`k${"y".repeat(1_000_000)}\nforged line`]: { bad: 1 } } }),
      JSON.stringify({ ...sample(), [huge]: 1 }),
    ]) {
      const said = message(text);
      expect(said.length).toBeLessThan(700);
      expect(said).not.toContain("\n");
    }
  });

  test("a key given twice is refused, however it is spaced or escaped: JSON would keep the last one unseen", () => {
    const text = formatLockfile(sample());
    const reviewed = `"a.md": "${D("3")}"`;
    expect(text).toContain(reviewed);
    const repeated = (with_: string) => {
      try {
        parseLockfile(text.replace(reviewed, `${reviewed},\n${with_}`), "/p/skillhub.lock");
      } catch (error) {
        return (error as LockError).message;
      }
      return "accepted";
    };
    const refused =
      '/p/skillhub.lock gives key "a.md" of skills.project:zeta.files twice, and only the last would count';
    expect(repeated(`"a.md": "${D("9")}"`)).toStartWith(refused);
    expect(repeated(`"a.md"${" ".repeat(200)}\n : "${D("9")}"`)).toStartWith(refused);
    expect(repeated(`"\\u0061.md": "${D("9")}"`)).toStartWith(refused);
    // In an object of many keys too.
    const many = sample();
    const zeta = many.skills["project:zeta"] as Lockfile["skills"][string];
    for (let i = 0; i < 40; i++) zeta.files[`f${i}.md`] = D("5");
    const manyText = formatLockfile(many);
    expect(() =>
      parseLockfile(manyText.replace(`"f39.md": "${D("5")}"`, `"f39.md": "${D("5")}", "f7.md": "${D("9")}"`), "/p/l"),
    ).toThrow('/p/l gives key "f7.md" of skills.project:zeta.files twice');
    expect(parseLockfile(manyText, "/p/l").skills["project:zeta"]?.files["f7.md"]).toBe(D("5"));
    // The same text as a value, or a key of another object, is no repetition.
    expect(repeated(`"c.md": "a.md"`)).not.toContain("twice");
    expect(parseLockfile(text, "/p/skillhub.lock")).toEqual(parseLockfile(formatLockfile(sample()), "x"));
    expect(repeated(`"quote\\"d.md": "${D("9")}", "quote\\"d.md": "${D("8")}"`)).toStartWith(
      '/p/skillhub.lock gives key "quote\\"d.md" of skills.project:zeta.files twice',
    );
  });

  test("compare names every added, removed and changed source, skill and file", () => {
    const before = sample();
    const after = sample();
    after.sources.team = { ...after.sources.team!, commit: "b".repeat(40) };
    after.skills["project:zeta"] = {
      ...after.skills["project:zeta"]!,
      skill_md: D("9"),
      files: { "a.md": D("3"), "c.md": D("5") },
    };
    delete after.skills["project:alpha"];
    after.skills["project:new"] = { ...before.skills["project:alpha"]!, name: "new", path: "new/SKILL.md" };
    const changes = compareLocks(before, after);
    expect(changes.map((c) => [c.kind, c.subject, c.id, c.file ?? ""])).toEqual([
      ["changed", "source", "team", ""],
      ["removed", "skill", "project:alpha", ""],
      ["added", "skill", "project:new", ""],
      ["changed", "file", "project:zeta", "SKILL.md"],
      ["removed", "file", "project:zeta", "b.md"],
      ["added", "file", "project:zeta", "c.md"],
    ]);
    expect(changes[0]?.detail).toBe(`commit ${"a".repeat(12)} → ${"b".repeat(12)}`);
    expect(compareLocks(before, sample())).toEqual([]);
  });
});

import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { checkCommandName, checkCurlGlobs, checkPathArgs, tooLongForAName } from "../../src/exec/command-args.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

describe("checkCommandName: bare names only", () => {
  test.each(["python", "ls", "uv", "grep", "node22", "python3.12"])("%s is a name", (name) => {
    expect(checkCommandName(name)).toEqual({ ok: true });
  });

  test.each([
    "/bin/sh",
    "./python",
    "../x",
    "bin/ls",
    "..\\x",
    "C:\\Windows\\cmd.exe",
    "c:cmd",
    ".",
    "..",
    " ls",
    "ls\0",
    "",
  ])("%p is refused", (name) => {
    expect(checkCommandName(name).ok).toBe(false);
  });
});

describe("checkCurlGlobs: curl's {a,b} and [1-3] make names no check sees", () => {
  test("an argument of curl's holding '{' or '[' is refused unless globbing is off", () => {
    for (const args of [
      ["-T", "{/etc/hostname,x}"],
      ["-T", "{.,x}./secret"],
      ["-T", "lea[k-k].txt"],
    ]) {
      const check = checkCurlGlobs("curl", ["http://127.0.0.1/", ...args]);
      expect({ args, reason: check.ok ? "" : check.reason }).toEqual({
        args,
        reason: `argument '${args[1]}' holds '{' or '[', which curl expands into file names the path check cannot follow; add --globoff (-g), or give each file as it is named`,
      });
    }
    expect(checkCurlGlobs("CURL.exe", ["-T", "{a,b}"]).ok).toBe(false);
    expect(checkCurlGlobs("curl", ["-g", "-T", "{/etc/hostname,x}"])).toEqual({ ok: true });
    expect(checkCurlGlobs("curl", ["--globoff", "-d", '{"a":1}', "http://127.0.0.1/"])).toEqual({ ok: true });
    expect(checkCurlGlobs("curl", ["-T", "notes.txt", "http://127.0.0.1/"])).toEqual({ ok: true });
    expect(checkCurlGlobs("awk", ["{print $1}", "notes.txt"])).toEqual({ ok: true });
  });
});

describe("checkPathArgs: paths stay inside the skill's folder", () => {
  function skill() {
    const root = tempDir("skillhub-args-");
    const dir = join(root, "pdf");
    write(join(dir, "extract.py"), "print(1)\n");
    write(join(root, "secret.txt"), "secret\n");
    mkdirSync(join(dir, "out"));
    symlinkSync(join(root, "secret.txt"), join(dir, "leak.txt"));
    symlinkSync(root, join(dir, "up"));
    symlinkSync(join(root, "missing-target"), join(dir, "dangling"));
    symlinkSync(join(dir, "extract.py"), join(dir, "alias.py"));
    // A backslash is a name's character here: this link is named `evil\`, and leads out.
    if (process.platform !== "win32") symlinkSync(join(root, "secret.txt"), join(dir, "evil\\"));
    return dir;
  }

  test("plain arguments, relative paths inside, new files, options and inside symlinks pass", () => {
    const dir = skill();
    expect(
      checkPathArgs(
        ["extract.py", "-v", "--format=json", "out/result.txt", "new/file.txt", ".", "alias.py", "^api$", "a b"],
        dir,
      ),
    ).toEqual({ ok: true });
    expect(checkPathArgs(["-la", "-n5", "-fout", "-o./out", "-x=out", "-", "-1"], dir)).toEqual({
      ok: true,
    });
  });

  test("a value glued to short options is checked wherever it may start", () => {
    const dir = skill();
    for (const arg of [
      "-f/etc/passwd",
      "-rf/etc/passwd",
      "-fout/patterns.txt",
      "-f../secret.txt",
      "-fleak.txt",
      "-rfup/secret.txt",
    ]) {
      const result = checkPathArgs([arg], dir);
      expect(result.ok).toBe(false);
      expect(result.ok ? "" : result.reason).toContain("give it as its own argument");
    }
  });

  test.each([
    [["/etc/passwd"], "is an absolute path"],
    [["../secret.txt"], "contains '..'"],
    [["out/../../secret.txt"], "contains '..'"],
    [["..\\secret.txt"], "contains '..'"],
    [["--input=/etc/passwd"], "is an absolute path"],
    [["--input=../x"], "contains '..'"],
    [["leak.txt"], "outside the skill's folder"],
    [["up/secret.txt"], "outside the skill's folder"],
    [["up/new-file"], "outside the skill's folder"],
    [["--out=leak.txt"], "outside the skill's folder"],
    [["dangling"], "leads nowhere"],
    [["leak.txt/"], "outside the skill's folder"],
    [["dangling/"], "leads nowhere"],
    [["--out=leak.txt//"], "outside the skill's folder"],
    ...(process.platform === "win32" ? [] : [[["evil\\"], "outside the skill's folder"] as [string[], string]]),
    [["a\0b"], "NUL"],
  ])("%p is refused (%s)", (args, reason) => {
    const result = checkPathArgs(args, skill());
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.reason).toContain(reason);
  });

  test("what follows '=', '@' or file: is a path too: dd's if=, curl's @file and -F x=@file, gcc's @file, file: URLs", () => {
    const dir = skill();
    // A link named `leak\` (curl's -F unescapes \\ in a quoted name): `x=@"leak\\"` names it.
    if (process.platform !== "win32") symlinkSync(join(dir, "..", "secret.txt"), join(dir, "leak\\"));
    const refused: [string, string][] = [
      ["if=/etc/passwd", "is an absolute path"],
      ["of=../secret.txt", "contains '..'"],
      ["FILE=/etc/passwd", "is an absolute path"],
      ["out=leak.txt", "outside the skill's folder"],
      // Every '=': a value may itself be name=value (gawk's --assign=f=/etc/passwd).
      ["a=b=/etc/passwd", "is an absolute path"],
      ["--assign=f=/etc/passwd", "is an absolute path"],
      ["-vf=/etc/passwd", "is an absolute path"],
      ["x=.git/config", "version-control metadata"],
      ["@/etc/passwd", "is an absolute path"],
      ["@../secret.txt", "contains '..'"],
      ["@leak.txt", "outside the skill's folder"],
      ["-d@/etc/passwd", "is an absolute path"],
      ["--data-binary=@../secret.txt", "contains '..'"],
      ["x=@/etc/passwd", "is an absolute path"],
      ["x=@leak.txt", "outside the skill's folder"],
      ["-o=/x", "is an absolute path"],
      // curl's -F name=<file sends the file's content; --data-urlencode name@file as well.
      ["x=</etc/passwd", "is an absolute path"],
      ["name@/etc/passwd", "is an absolute path"],
      // curl's -F takes a quoted name without its quotes, up to the closing one (its \" and \\ unescaped).
      ['x=@"/etc/passwd"', "is an absolute path"],
      ['x=<"/etc/passwd"', "is an absolute path"],
      ['headers=@"/etc/x"', "is an absolute path"],
      ['x=@"../secret.txt";type=text/plain', "contains '..'"],
      ['x=@"leak.txt"', "outside the skill's folder"],
      ['x=@"leak.txt";type=text/plain', "outside the skill's folder"],
      ...(process.platform === "win32" ? [] : [['x=@"leak\\\\"', "outside the skill's folder"] as [string, string]]),
    ];
    for (const [arg, reason] of refused) {
      const check = checkPathArgs([arg], dir);
      expect({ arg, reason: check.ok ? "" : check.reason }).toEqual({
        arg,
        reason: expect.stringContaining(reason) as unknown as string,
      });
      expect(check.ok ? "" : check.reason).toContain("what follows '=' or '@' counts as a path");
    }
    const urls: [string, string][] = [
      ["file:///etc/passwd", "is an absolute path"],
      ["file:/etc/passwd", "is an absolute path"],
      ["FILE://localhost/etc/passwd", "is an absolute path"],
      ["url=file:///etc/passwd", "is an absolute path"],
      ["-ufile:///etc/passwd", "is an absolute path"],
      ["<URL:file:///etc/passwd>", "is an absolute path"],
      ["jar:file:///etc/x.jar!/a", "is an absolute path"],
      // Python opens a relative file: URL from its working folder, its %-escapes decoded.
      ["file:../secret.txt", "contains '..'"],
      ["file:%2e%2E/secret.txt", "contains '..'"],
      ["file:%2Fetc/passwd", "is an absolute path"],
      ["file:leak.txt", "outside the skill's folder"],
      ["file:leak.txt?x=1", "outside the skill's folder"],
      ["file:leak.txt#top", "outside the skill's folder"],
    ];
    for (const [arg, reason] of urls) {
      const check = checkPathArgs([arg], dir);
      expect({ arg, reason: check.ok ? "" : check.reason }).toEqual({
        arg,
        reason: expect.stringContaining(reason) as unknown as string,
      });
      expect(check.ok ? "" : check.reason).toContain("a file: URL counts as a path");
    }
    expect(checkPathArgs(["if=/etc/passwd"], dir)).toEqual({
      ok: false,
      reason:
        "argument 'if=/etc/passwd' is an absolute path; only paths inside the skill's folder are allowed (what follows '=' or '@' counts as a path: give a path inside the skill's folder, or, for text that is no path, write [=] or [@] in a pattern and %2F for / in a URL)",
    });
    expect(checkPathArgs(["file:///etc/passwd"], dir)).toEqual({
      ok: false,
      reason:
        "argument 'file:///etc/passwd' is an absolute path; only paths inside the skill's folder are allowed (a file: URL counts as a path: give the file's path relative to the skill's folder, without file:)",
    });
  });

  test("'=', '@' and file: before text that is no path, or a path inside, still pass", () => {
    const dir = skill();
    const args = [
      "a=b",
      "key=value",
      "a==b",
      "x=",
      "=",
      "@",
      "if=extract.py",
      "of=out/result.txt",
      "out=new/file.txt",
      "FILE=alias.py",
      "x=@extract.py",
      "-d@extract.py",
      "@extract.py",
      "user@example.com",
      "git@github.com:org/repo.git",
      "pkg@1.2.3",
      "HEAD@{1}",
      "https://example.com/search?q=a&page=2",
      "file:",
      "file: notes",
      "Makefile:12",
      "profile:x",
      "file:extract.py",
      "file:out/new%20file.txt",
      "file:%zz",
      "PATH[=]/usr/bin",
      'x=@"extract.py"',
      'x=@"out/result.txt";type=text/plain',
      'x=@"a\\"b"',
      // No closing quote: curl takes the quote as part of the name, a folder `"..` inside the skill.
      'x=@"../x',
    ];
    expect(checkPathArgs(args, dir)).toEqual({ ok: true });
  });

  test("curl's -F file names are judged as curl reads them: spaces skipped, ended by ';', several after '@' split at ','", () => {
    const dir = skill();
    write(join(dir, "notes.txt"), "notes\n");
    const refused: [string, string][] = [
      ["x=@ /etc/passwd", "is an absolute path"],
      ["x=< /etc/passwd", "is an absolute path"],
      ["x=@\t../secret.txt", "contains '..'"],
      ['x=@ "leak.txt"', "outside the skill's folder"],
      ["x=@leak.txt;type=text/plain", "outside the skill's folder"],
      ["x=@leak.txt ;type=text/plain", "outside the skill's folder"],
      ["x=<leak.txt;type=text/plain", "outside the skill's folder"],
      ["x=@notes.txt,/etc/passwd", "is an absolute path"],
      ["x=@notes.txt, /etc/passwd", "is an absolute path"],
      ["x=@notes.txt,leak.txt", "outside the skill's folder"],
      ["x=@notes.txt;type=text/plain,leak.txt;type=text/plain", "outside the skill's folder"],
      ['x=@notes.txt,"leak.txt"', "outside the skill's folder"],
    ];
    for (const [arg, reason] of refused) {
      const check = checkPathArgs([arg], dir);
      expect({ arg, reason: check.ok ? "" : check.reason }).toEqual({
        arg,
        reason: expect.stringContaining(reason) as unknown as string,
      });
    }
    expect(checkPathArgs(["x=@leak.txt;type=text/plain"], dir)).toEqual({
      ok: false,
      reason:
        "argument 'x=@leak.txt;type=text/plain' resolves (through a symlink) outside the skill's folder (curl's -F uploads the files named after '@' or '=<', spaces before a name skipped, each name ended by ';' or ',': give paths inside the skill's folder)",
    });
    const passing = [
      "x=@notes.txt;type=text/plain",
      "x=@ notes.txt",
      "x=@notes.txt ;type=text/plain",
      "x=<notes.txt;type=text/plain",
      "x=@a.txt,b.txt",
      "x=@notes.txt;type=text/plain,out/result.txt;filename=r.txt",
      "user@example.com",
      "a,b@c",
      "x=@,",
    ];
    expect(checkPathArgs(passing, dir)).toEqual({ ok: true });
  });

  test("a drive letter makes a path absolute on Windows only: elsewhere a colon after '=' is text", () => {
    const dir = skill();
    const colons = ["key=a:b", "-e", "x=y:z", "--sort=k:asc", "C:/x", "x=C:\\y", "@c:z"];
    expect(checkPathArgs(colons, dir, { platform: "linux" })).toEqual({ ok: true });
    expect(checkPathArgs(colons, dir, { platform: "darwin" })).toEqual({ ok: true });
    for (const arg of ["C:\\x", "C:/x", "c:x", "key=C:/Windows/win.ini", "--in=D:\\secret", "@c:z"]) {
      const check = checkPathArgs([arg], dir, { platform: "win32" });
      expect({ arg, reason: check.ok ? "" : check.reason }).toEqual({
        arg,
        reason: expect.stringContaining("is an absolute path") as unknown as string,
      });
    }
    expect(checkPathArgs(["key=a:b"], dir, { platform: "win32" }).ok).toBe(false);
    expect(checkPathArgs(["key=ab:c", "a=1"], dir, { platform: "win32" })).toEqual({ ok: true });
  });

  test("version-control metadata is no file of the skill, however it is spelled", () => {
    const dir = skill();
    write(join(dir, ".git", "config"), "url = https://x:token@example.com/r.git\n");
    for (const arg of [
      ".git/config",
      ".git",
      "./.git/",
      "out/../.git",
      "--file=.git/config",
      ".GIT/config",
      "GIT~1\\config",
    ]) {
      const check = checkPathArgs([arg], dir);
      expect({ arg, ok: check.ok }).toEqual({ arg, ok: false });
    }
    expect(checkPathArgs([".gitignore", "git", ".github/x"], dir)).toEqual({ ok: true });
    expect(checkPathArgs([".git/config"], dir)).toEqual({
      ok: false,
      reason: "argument '.git/config' names version-control metadata (.git), which is no file of the skill",
    });
  });

  test("a path that cannot be checked is refused, not taken for a new file: a link loop, no permission", () => {
    const dir = skill();
    symlinkSync("loop", join(dir, "loop"));
    const loop = checkPathArgs(["loop/x"], dir);
    expect(loop.ok ? "" : loop.reason).toContain("cannot be checked");
    // A name longer than any file system takes is nowhere, as a missing one (a long grep pattern).
    expect(checkPathArgs([`${"a".repeat(300)}/x`], dir)).toEqual({ ok: true });
    // A folder the server may not look into (as root every folder can be looked into: the failure is given).
    const denied = checkPathArgs(["d/link"], dir, {
      exists: () => {
        throw Object.assign(new Error("permission denied"), { code: "EACCES" });
      },
    });
    expect(denied).toEqual({
      ok: false,
      reason:
        "argument 'd/link' cannot be checked (EACCES); only paths inside the skill's folder that can be checked are allowed",
    });
    // A path through a file is missing, as a new file under it would be: the command fails on it by itself.
    expect(checkPathArgs(["extract.py/x"], dir)).toEqual({ ok: true });
  });

  test("a name longer than usual is nowhere only when the file system refuses it: one that takes it is checked", () => {
    const dir = skill();
    const long = "l".repeat(300);
    // A file system that takes names of 1,024 bytes (FUSE), holding a link of that name to the user's home.
    const onFuse = {
      exists: (path: string) => path.startsWith(join(dir, long)),
      realpath: (path: string) => (path.startsWith(join(dir, long)) ? "/home/user/.ssh" : realpathSync(path)),
    };
    expect(checkPathArgs([`${long}/id_ed25519`], dir, onFuse)).toEqual({
      ok: false,
      reason: `argument '${long}/id_ed25519' resolves (through a symlink) outside the skill's folder`,
    });
    const glued = checkPathArgs([`-f${long}/id_ed25519`], dir, onFuse);
    expect(glued.ok ? "" : glued.reason).toContain("resolves (through a symlink) outside the skill's folder");
    // Windows drops the dots and spaces at a name's end: `link` and 600 dots is `link`, a name to look at.
    expect(tooLongForAName(`link${".".repeat(600)}`, "win32")).toBe(false);
    expect(tooLongForAName(`link${" .".repeat(300)}`, "win32")).toBe(false);
    expect(tooLongForAName("l".repeat(511), "win32")).toBe(true);
    expect(tooLongForAName(`link${".".repeat(600)}`, "darwin")).toBe(true);
    expect(tooLongForAName("é".repeat(128), "linux")).toBe(true);
    // In one pass: a regular expression tried from every dot took hours on a million `. ` before an `x`.
    expect(tooLongForAName(`${". ".repeat(500_000)}x`, "win32")).toBe(true);
  });

  test("a long run of option letters glued to a deep path costs one look per place it may start, not one per name", () => {
    const dir = skill();
    // 250 places a value may start, each followed by 1,900 names: searched up from the end, 475,000 lstats.
    const arg = `-${"a".repeat(250)}${"/a".repeat(1900)}`;
    let looks = 0;
    const exists = (path: string) => {
      looks++;
      return path === dir;
    };
    expect(checkPathArgs([arg], dir, { exists })).toEqual({
      ok: false,
      reason: expect.stringContaining("is an absolute path"),
    });
    expect(looks).toBeLessThanOrEqual(250);
    // The same for every '=' and '@': 2,000 places a value may start, one look each.
    looks = 0;
    expect(checkPathArgs([`${"a=@".repeat(1000)}${"a/".repeat(1900)}`], dir, { exists })).toEqual({ ok: true });
    expect(looks).toBeLessThanOrEqual(2001);
    // A quoted name after every '=@': the names do not overlap, one look each.
    looks = 0;
    expect(checkPathArgs(['x=@"a"'.repeat(1000)], dir, { exists })).toEqual({ ok: true });
    expect(looks).toBeLessThanOrEqual(3001);
    // curl's -F names, after every ',' and before every ';' (and after every '='): one look each.
    looks = 0;
    expect(checkPathArgs([`x=@${"a;type=t,".repeat(1000)}`], dir, { exists })).toEqual({ ok: true });
    expect(looks).toBeLessThanOrEqual(2003);
    // Deep paths that exist are still followed to their end, and judged there.
    mkdirSync(join(dir, "a", "b", "c"), { recursive: true });
    symlinkSync(join(dir, "..", "secret.txt"), join(dir, "a", "b", "c", "out.txt"));
    expect(checkPathArgs(["a/b/c/out.txt"], dir).ok).toBe(false);
    expect(checkPathArgs(["a/b/c/new/deeper.txt"], dir)).toEqual({ ok: true });
  });

  /** A file system that refuses names longer than 255 bytes, as ext4 does, counting the looks at it. */
  function counted(inner: (path: string) => boolean = () => false) {
    const fs = {
      looks: 0,
      exists: (path: string) => {
        fs.looks++;
        if (Buffer.byteLength(basename(path)) > 255)
          throw Object.assign(new Error("file name too long"), { code: "ENAMETOOLONG" });
        return inner(path);
      },
    };
    return fs;
  }
  const MiB = 1024 * 1024;

  test.each([
    // A place at every letter (-a -a … -aaaa…).
    ["all letters", `-${"a".repeat(MiB)}`],
    // A place after every '=' and '@'.
    ["letters with '=' and '@' every few", "aa=aa@".repeat(MiB / 6)],
    // A deep path after many '=': every place shares it.
    ["a deep path after many '='", `${"a=".repeat(MiB / 4)}${"a/".repeat(MiB / 4)}`],
    // A name of curl's -F after the spaces following every '@' and '=<'.
    ["'@' and '=<' each before a space", `${"@ =< ".repeat(MiB / 5)}x`],
  ])(
    "a 1 MiB argument of %s costs a look per place whose name is short, not one per place",
    (_shape, arg) => {
      const fs = counted();
      expect(checkPathArgs([arg], skill(), fs)).toEqual({ ok: true });
      // One look per place whose name is at most 255 bytes long, and two at the longer names they all end
      // (one refused, then the shortest): before, one look per place, each at a name as long as the rest.
      expect(fs.looks).toBeLessThanOrEqual(255 + 2);
    },
    { timeout: 120_000 },
  );

  test(
    "the places of a 1 MiB argument are each judged as before: .git, a symlink out or a file: URL at the end is refused",
    () => {
      const dir = skill();
      const sign = "in a URL)";
      const glued = "as its own argument)";
      const refused: [string, string, string][] = [
        [`${"a=".repeat(MiB / 2)}.git/config`, "version-control metadata", sign],
        [`-${"a".repeat(MiB)}.git`, "version-control metadata", glued],
        [`-${"a".repeat(MiB)}leak.txt`, "outside the skill's folder", glued],
        [`${"x@".repeat(MiB / 2)}leak.txt`, "outside the skill's folder", sign],
        [`-${"x@".repeat(MiB / 2)}out/../../secret.txt`, "contains '..'", glued],
        [`${"file:x".repeat(MiB / 6)}file:leak.txt?q=1`, "outside the skill's folder", "without file:)"],
        [`${"=".repeat(MiB)}${"a".repeat(300)}/../x`, "contains '..'", "are allowed"],
      ];
      for (const [arg, reason, end] of refused) {
        const check = checkPathArgs([arg], dir);
        const said = check.ok ? "" : check.reason;
        expect({ start: arg.slice(0, 12), reason: said.includes(reason), end: said.endsWith(end) }).toEqual({
          start: arg.slice(0, 12),
          reason: true,
          end: true,
        });
      }
    },
    { timeout: 120_000 },
  );

  test("where the file system takes a long name, every place's name is still asked about", () => {
    const dir = skill();
    const long = "l".repeat(300);
    // FUSE takes names of 1,024 bytes: here one of them is a link to the user's home.
    const onFuse = {
      exists: (path: string) => {
        if (Buffer.byteLength(basename(path)) > 1024)
          throw Object.assign(new Error("file name too long"), { code: "ENAMETOOLONG" });
        return path.startsWith(join(dir, long));
      },
      realpath: (path: string) => (path.startsWith(join(dir, long)) ? "/home/user/.ssh" : realpathSync(path)),
    };
    for (const arg of [`${"@".repeat(5000)}${long}/id_ed25519`, `-${"a".repeat(5000)}${long}/id_ed25519`]) {
      const check = checkPathArgs([arg], dir, onFuse);
      expect(check.ok ? "" : check.reason).toContain("resolves (through a symlink) outside the skill's folder");
    }
    // Where it refuses the names longer than usual, they are nowhere: one look at the shortest stands for them.
    const fs = counted();
    expect(checkPathArgs([`${"@".repeat(5000)}${long}`], dir, fs)).toEqual({ ok: true });
    expect(fs.looks).toBeLessThanOrEqual(255 + 2 + 1);
  });

  test(
    "a name of dots and spaces is judged in one pass: a 1 MB argument does not hold the server",
    () => {
      const dir = skill();
      // Trailing dots and spaces are trimmed (Windows drops them: `.git. ` is `.git`). Trimmed by a pattern
      // tried again from every dot, this argument took the server's thread for minutes.
      const arg = `new/${". ".repeat(500_000)}x`;
      expect(checkPathArgs([arg], dir)).toEqual({ ok: true });
      expect(checkPathArgs([`.git${" .".repeat(500_000)}/config`], dir).ok).toBe(false);
    },
    { timeout: 120_000 },
  );
});

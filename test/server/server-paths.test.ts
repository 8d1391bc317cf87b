import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, realpathSync, symlinkSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { hideServerPaths } from "../../src/server/path-sweep/hide-server-paths.ts";
import { type ServerPaths, serverPaths } from "../../src/server/server-paths.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";
import { timed } from "../helpers/timed.ts";
import { writeNode } from "../helpers/tree.ts";

/** 2,000 skills under /srv/hub/skills, as serverPaths would describe them. */
function hub(): ServerPaths {
  const skills = new Map<string, string>();
  for (let i = 0; i < 2000; i++) skills.set(`/srv/hub/skills/skill-${i}`, `skill://skill-${i}`);
  skills.set("/srv/hub/skills/Bad Name", "skill://Bad%20Name");
  return {
    skills,
    longest: Math.max(...[...skills.keys()].map((dir) => dir.length)),
    folders: [["/srv/hub/skills", "<skills folder 'skills'>"]],
    separator: "/",
  };
}

/** The same server on Windows: folders separated by backslashes, on a drive. */
function windowsHub(): ServerPaths {
  const skills = new Map([
    ["C:\\hub\\skills\\pdf", "skill://pdf"],
    ["C:\\hub\\skills\\Bad Name", "skill://Bad%20Name"],
  ]);
  return {
    skills,
    longest: Math.max(...[...skills.keys()].map((dir) => dir.length)),
    folders: [
      ["C:\\Users\\ΝΙΚΟΣ", "<greek home>"],
      ["C:\\hub\\skills", "<skills folder 'skills'>"],
      ["C:\\Users\\ana", "<home>"],
    ],
    separator: "\\",
  };
}

afterAll(cleanupTemp);

const MIB = 1024 * 1024;

describe("hideServerPaths", () => {
  test("a line of 2,000 paths: each becomes its file's URI", () => {
    const line = Array.from({ length: 2000 }, (_, i) => `/srv/hub/skills/skill-${i}/run.sh`).join(" ");
    const text = hideServerPaths({ content: [{ type: "text", text: line }] }, hub()).content[0]?.text;
    expect(text).toBe(Array.from({ length: 2000 }, (_, i) => `skill://skill-${i}/run.sh`).join(" "));
  });

  test("a script's output that looks like JSON is kept as written, but for the paths", () => {
    const stdout = '{"n": 12345678901234567890, "x": 1.50, "at": "/srv/hub/skills/skill-7/out.txt"}\n';
    const swept = hideServerPaths({ structuredContent: { stdout }, content: [{ type: "text", text: "ran" }] }, hub());
    expect(swept.structuredContent.stdout).toBe(
      '{"n": 12345678901234567890, "x": 1.50, "at": "skill://skill-7/out.txt"}\n',
    );
  });

  test("a text that is the JSON of the structured content is written again from it, escapes whole", () => {
    const structuredContent = {
      instructions: "Run /srv/hub/skills/Bad Name/go.sh\nthen stop.",
      path: "/srv/hub/skills/skill-1",
    };
    const result = { structuredContent, content: [{ type: "text", text: JSON.stringify(structuredContent, null, 2) }] };
    const swept = hideServerPaths(result, hub());
    expect(swept.structuredContent).toEqual({
      instructions: "Run skill://Bad%20Name/go.sh\nthen stop.",
      path: "skill://skill-1",
    });
    expect(JSON.parse(swept.content[0]?.text ?? "")).toEqual(swept.structuredContent);
    expect(swept.content[0]?.text).toBe(JSON.stringify(swept.structuredContent, null, 2));
  });

  test("paths in a list or after a name: each one is swept; a ':' or '=' inside a name stays in it", () => {
    const text = [
      "PYTHONPATH=/srv/hub/skills/skill-1/lib:/srv/hub/skills/skill-2 and CACHE=/srv/hub/skills/x.db",
      "/srv/hub/skills/skill-1:extra/x /srv/hub/skills/skill-1=1 /srv/hub/skills/skill-2/a=b.txt",
    ].join("\n");
    expect(hideServerPaths({ structuredContent: { text } }, hub()).structuredContent.text).toBe(
      [
        "PYTHONPATH=skill://skill-1/lib:skill://skill-2 and CACHE=<skills folder 'skills'>/x.db",
        "<skills folder 'skills'>/skill-1:extra/x <skills folder 'skills'>/skill-1=1 skill://skill-2/a%3Db.txt",
      ].join("\n"),
    );
  });

  test("a file's own bytes are kept only for the tools that serve files", () => {
    const result = { structuredContent: { content: "installed at /srv/hub/skills/skill-2\n" } };
    expect(hideServerPaths(result, hub(), "file").structuredContent.content).toBe(
      "installed at /srv/hub/skills/skill-2\n",
    );
    expect(hideServerPaths(result, hub()).structuredContent.content).toBe("installed at skill://skill-2\n");
  });

  test("a skill's own text: a path into a skill becomes its URI, any other is the author's and kept; an error is swept whole", () => {
    const paths = { ...hub(), folders: [...hub().folders, ["/tmp", "<server folder>"]] } as ServerPaths;
    const text =
      "Save to /tmp/shot.png, run /srv/hub/skills/skill-3/go.sh, see file:///tmp/x and /srv/hub/skills/README";
    expect(hideServerPaths({ content: [{ type: "text", text }] }, paths, "skill").content[0]?.text).toBe(
      "Save to /tmp/shot.png, run skill://skill-3/go.sh, see file:///tmp/x and /srv/hub/skills/README",
    );
    expect(hideServerPaths({ isError: true, content: [{ type: "text", text }] }, paths, "skill").content[0]?.text).toBe(
      "Save to <server folder>/shot.png, run skill://skill-3/go.sh, see <server folder>/x and <skills folder 'skills'>/README",
    );
  });

  test("Windows paths, in any case and with either slash: a file in a skill becomes its URI, any other path its folder's name", () => {
    const text = [
      "Run C:\\hub\\skills\\pdf\\scripts\\extract.py on it.",
      "Then C:\\hub\\skills\\Bad Name\\notes\\a b.txt, and C:\\hub\\skills\\README.md.",
      "Saved to C:\\Users\\ana\\out\\result.json",
      "Also c:/hub/skills/pdf/scripts/extract.py and c:\\HUB\\Skills\\pdf/templates/a.txt",
      "FileNotFoundError: 'C:\\\\Users\\\\ana\\\\data.csv'",
      "İstanbul report saved to c:/users/ana/out.txt",
      "Mixed C:\\hub\\\\skills\\\\pdf\\x.csv, quadrupled C:\\\\\\\\Users\\\\\\\\ana, doubled c:/users//ana/y",
      "Sigma İ: C:\\Users\\ΝΙΚΟΣ\\x and c:\\users\\νικοσ\\x",
    ].join("\n");
    const swept = hideServerPaths({ structuredContent: { text } }, windowsHub()).structuredContent.text;
    expect(swept).toBe(
      [
        "Run skill://pdf/scripts/extract.py on it.",
        "Then skill://Bad%20Name/notes/a b.txt, and <skills folder 'skills'>\\README.md.",
        "Saved to <home>\\out\\result.json",
        "Also skill://pdf/scripts/extract.py and skill://pdf/templates/a.txt",
        "FileNotFoundError: '<home>\\\\data.csv'",
        "İstanbul report saved to <home>/out.txt",
        "Mixed skill://pdf/x.csv, quadrupled <home>, doubled <home>/y",
        "Sigma İ: <greek home>\\x and <greek home>\\x",
      ].join("\n"),
    );
  });

  test("a folder counts only as whole names: another folder that starts alike, or holds it, is left as it is", () => {
    const paths = { ...hub(), folders: [...hub().folders, ["/home/anabel", "<home>"]] } as ServerPaths;
    const sweep = (text: string) => hideServerPaths({ structuredContent: { text } }, paths).structuredContent.text;
    expect(sweep("/home/anabelle/x and /home/anabelx, /home/anabel.bak/y, /backup/home/anabel/z")).toBe(
      "/home/anabelle/x and /home/anabelx, /home/anabel.bak/y, /backup/home/anabel/z",
    );
    expect(sweep("in /home/anabel/x, in /home/anabel. (/home/anabel) /home/anabel:/home/anabel/bin")).toBe(
      "in <home>/x, in <home>. (<home>) <home>:<home>/bin",
    );
    // Glued to an option it is still the folder; after a relative path's dots it is not.
    expect(sweep("cc -I/home/anabel/inc -L/home/anabel/lib ./home/anabel/a ../home/anabel/b x/../home/anabel/c")).toBe(
      "cc -I<home>/inc -L<home>/lib ./home/anabel/a ../home/anabel/b x/../home/anabel/c",
    );
    expect(sweep("/srv/hub/skills/skill-1x/a /srv/hub/skills-old/b /srv/hub/skills/skill-1.txt")).toBe(
      "<skills folder 'skills'>/skill-1x/a /srv/hub/skills-old/b <skills folder 'skills'>/skill-1.txt",
    );
  });

  test("a path in a file URL: the URL becomes what the path becomes", () => {
    const paths = { ...hub(), folders: [...hub().folders, ["/home/anabel", "<home>"]] } as ServerPaths;
    const text = [
      "see file:///srv/hub/skills/skill-1/run.sh and FILE://localhost/home/anabel/notes.txt",
      "[log](file:///home/anabel/log.txt) file:///home/anabelle/x",
    ].join("\n");
    expect(hideServerPaths({ structuredContent: { text } }, paths).structuredContent.text).toBe(
      ["see skill://skill-1/run.sh and <home>/notes.txt", "[log](<home>/log.txt) file:///home/anabelle/x"].join("\n"),
    );
  });

  test("a path percent-encoded, in a file URL or not: decoded, it becomes what its path becomes", () => {
    const skills = new Map([["/home/zoë/My Skills/pdf", "skill://pdf"]]);
    const paths: ServerPaths = {
      skills,
      longest: "/home/zoë/My Skills/pdf".length,
      folders: [
        ["/home/zoë/My Skills", "<skills folder 'My Skills'>"],
        ["/home/zoë", "<home>"],
      ],
      separator: "/",
    };
    const text = [
      "open file:///home/zo%C3%AB/My%20Skills/pdf/scripts/run%20it.py:3 and [notes](file:///home/zo%c3%ab/notes.txt)",
      "file://localhost/home/zo%C3%AB/My%20Skills/README.md, file:///srv/other%20place/x and file:///home/zo%E0%A4/x",
      "GET /view?path=%2Fhome%2Fzo%C3%AB%2Fdata.csv&x=1 quoted /home/zo%C3%AB/My%20Skills/pdf/a%20b.txt. 100%25 done",
    ].join("\n");
    expect(hideServerPaths({ structuredContent: { text } }, paths).structuredContent.text).toBe(
      [
        "open skill://pdf/scripts/run%20it.py:3 and [notes](<home>/notes.txt)",
        "<skills folder 'My Skills'>/README.md, file:///srv/other%20place/x and file:///home/zo%E0%A4/x",
        "GET /view?path=<home>/data.csv&x=1 quoted skill://pdf/a%20b.txt. 100%25 done",
      ].join("\n"),
    );
    // A skill's own text: a URL into a skill becomes its URI, any other is kept as its author wrote it.
    const own = "see file:///home/zo%C3%AB/My%20Skills/pdf/a.md and file:///home/zo%C3%AB/x";
    expect(hideServerPaths({ content: [{ type: "text", text: own }] }, paths, "skill").content[0]?.text).toBe(
      "see skill://pdf/a.md and file:///home/zo%C3%AB/x",
    );
  });

  test("the user's home ending a longer path: its names are hidden there too, and no other folder's", () => {
    const paths = {
      ...hub(),
      folders: [["/home/ana/skills", "<skills folder 'mine'>"], ...hub().folders, ["/home/ana", "<home>"]],
      anywhere: new Set(["/home/ana"]),
    } as ServerPaths;
    const sweep = (text: string, kind?: "skill") =>
      hideServerPaths({ content: [{ type: "text", text }] }, paths, kind).content[0]?.text;
    expect(sweep("/backup/home/ana/x, /mnt/old/home/ana and ./home/ana/y; /backup/home/anabel/z")).toBe(
      "/backup/<home>/x, /mnt/old/<home> and ./<home>/y; /backup/home/anabel/z",
    );
    // Only the home's names: a skills folder under it, in a backup, is no skill's and no skills folder.
    expect(sweep("/backup/home/ana/skills/pdf/a.md /backup/srv/hub/skills/skill-1/b")).toBe(
      "/backup/<home>/skills/pdf/a.md /backup/srv/hub/skills/skill-1/b",
    );
    // A skill's own text keeps its author's paths.
    expect(sweep("restore /backup/home/ana/x", "skill")).toBe("restore /backup/home/ana/x");
  });

  test("Windows long-path and device prefixes, and file URLs, go with the path they start", () => {
    const paths = {
      ...windowsHub(),
      folders: [...windowsHub().folders, ["\\\\srv\\share\\team", "<skills folder 'team'>"]],
    } as ServerPaths;
    const text = [
      "\\\\?\\C:\\hub\\skills\\pdf\\run.py and \\\\?\\c:\\users\\ana\\x.txt and \\\\.\\C:\\Users\\ana",
      "\\\\?\\UNC\\srv\\share\\team\\a.md and \\\\srv\\share\\team\\b.md",
      "file:///C:/Users/ana/c.txt and file://srv/share/team/d.md",
      "C:\\Users\\anabel\\x \\\\?\\C:\\Users\\anabel\\y \\\\?\\UNC\\srv\\share\\teams\\z",
    ].join("\n");
    expect(hideServerPaths({ structuredContent: { text } }, paths).structuredContent.text).toBe(
      [
        "skill://pdf/run.py and <home>\\x.txt and <home>",
        "<skills folder 'team'>\\a.md and <skills folder 'team'>\\b.md",
        "<home>/c.txt and <skills folder 'team'>/d.md",
        "C:\\Users\\anabel\\x \\\\?\\C:\\Users\\anabel\\y \\\\?\\UNC\\srv\\share\\teams\\z",
      ].join("\n"),
    );
    // As a JSON string holds it (every backslash doubled), in the text that is the structured content's JSON.
    const structuredContent = { stdout: "wrote \\\\?\\C:\\Users\\ana\\out.txt" };
    const swept = hideServerPaths(
      { structuredContent, content: [{ type: "text", text: JSON.stringify(structuredContent) }] },
      paths,
    );
    expect(swept.structuredContent.stdout).toBe("wrote <home>\\out.txt");
    expect(JSON.parse(swept.content[0]?.text ?? "")).toEqual(swept.structuredContent);
  });

  test("long runs and deep paths cost a pass, not a pass per slash", () => {
    // A UNC folder's pattern begins with a run of slashes; a path as deep as a megabyte.
    const unc = { ...windowsHub(), folders: [["\\\\srv\\share\\team", "<skills folder 'team'>"]] } as ServerPaths;
    const run = `${"\\".repeat(512 * 1024)} then \\\\srv\\share\\team\\x`;
    expect(hideServerPaths({ structuredContent: { run } }, unc).structuredContent.run).toEndWith(
      " then <skills folder 'team'>\\x",
    );
    const deep = `C:\\hub\\skills\\${"a\\".repeat(128 * 1024)}x`;
    expect(hideServerPaths({ structuredContent: { deep } }, windowsHub()).structuredContent.deep).toStartWith(
      "<skills folder 'skills'>\\a\\a",
    );
  });

  test("a path cut short ('…') inside a folder's name: what is left of that folder is hidden too", () => {
    const paths = {
      ...hub(),
      folders: [["/home/ana/skills", "<skills folder 'mine'>"], ...hub().folders, ["/home/ana", "<home>"]],
      anywhere: new Set(["/home/ana"]),
    } as ServerPaths;
    const sweep = (text: string, kind?: "skill") =>
      hideServerPaths({ content: [{ type: "text", text }] }, paths, kind).content[0]?.text;
    expect(sweep("Argument '/srv/hub/ski…' is an absolute path")).toBe("Argument '<server path>…' is an absolute path");
    expect(sweep("'/home/an…' and '/backup/home/an…' and 'file:///srv/h…'")).toBe(
      "'<server path>…' and '/backup/<server path>…' and '<server path>…'",
    );
    // Past a folder written whole: its name, and the file's URI where the cut leaves a skill's folder whole.
    expect(sweep("/srv/hub/skills/Bad Na… /srv/hub/skills/skill-1/ru…")).toBe(
      "<skills folder 'skills'>/Bad Na… skill://skill-1/ru…",
    );
    // The start of every path (a first name), another machine's path and a word are no folder's.
    expect(sweep("/srv… /ho… /etc/pass… /srv/hubs/x… srv/hub/sk…")).toBe(
      "/srv… /ho… /etc/pass… /srv/hubs/x… srv/hub/sk…",
    );
    // A skill's own text keeps its author's paths, cut or not, but for one that may go on into a skill's folder.
    expect(sweep("restore /home/ana/no… or /backup/home/an…", "skill")).toBe(
      "restore /home/ana/no… or /backup/home/an…",
    );
    expect(sweep("run /srv/hub/sk… or /srv/hub/skills/Bad Na… or /srv/hub/skills/skill-2/g…", "skill")).toBe(
      "run <server path>… or <skills folder 'skills'>/Bad Na… or skill://skill-2/g…",
    );
    // On Windows, in any case and with either slash.
    const windows = (text: string) =>
      hideServerPaths({ structuredContent: { text } }, windowsHub()).structuredContent.text;
    expect(windows("'c:/users/an…' '\\\\?\\C:\\\\Hub\\sk…' 'C:\\Us…'")).toBe(
      "'<server path>…' '<server path>…' 'C:\\Us…'",
    );
  });

  test("line numbers, glued paths and folded letters: each path found, none left in a URI", () => {
    const posix = [
      "/srv/hub/skills/skill-1/x.py:10: in <module>",
      "/srv/hub/skills/skill-1/out.txt#/srv/hub/skills/skill-2/y",
    ].join("\n");
    expect(hideServerPaths({ structuredContent: { posix } }, hub()).structuredContent.posix).toBe(
      ["skill://skill-1/x.py:10: in <module>", "skill://skill-1/out.txt%23skill://skill-2/y"].join("\n"),
    );
    const glued = "C:\\Users\\ana\\a#C:\\Users\\ana\\b and C:\\hub\\skills\\pdf\\a@c:/users/ana/c";
    expect(hideServerPaths({ structuredContent: { glued } }, windowsHub()).structuredContent.glued).toBe(
      "<home>\\a#<home>\\b and skill://pdf/a%40<home>/c",
    );
    // Alone in an answer: the quick check and the sweep fold letters alike (ſ is s).
    const alone = "C:\\Uſers\\ana\\secret";
    expect(hideServerPaths({ structuredContent: { alone } }, windowsHub()).structuredContent.alone).toBe(
      "<home>\\secret",
    );
  });

  test("the server's home, as serverPaths gives it, is hidden where a longer path ends in it", () => {
    const skills = tempDir("skillhub-home-sweep-");
    writeSkill(skills, "pdf", { description: "A skill" });
    const { hub } = testHub({ flags: { "skills-dir": [skills] }, hub: { acceptRoots: false } });
    hub.scanNow();
    const paths = serverPaths(hub, "/home/ana");
    hub.close();
    const stdout = "copied /home/ana/a to /backup/home/ana/a; /srv/x/home/ana.txt";
    // The folders alone: a path another folder's name ends (`/srv/x/home/ana.txt`) is none of them; any other path
    // of the server is hidden as such (`<server path>`).
    expect(
      hideServerPaths({ structuredContent: { stdout } }, { ...paths, others: undefined }).structuredContent.stdout,
    ).toBe("copied <home>/a to /backup/<home>/a; /srv/x/home/ana.txt");
    expect(hideServerPaths({ structuredContent: { stdout } }, paths).structuredContent.stdout).toBe(
      "copied <home>/a to /backup/<home>/a; <server path>",
    );
    // As tar and zip list what they archive, without the leading slash: only where a word starts.
    const listing =
      "tar: Removing leading '/'\nhome/ana/a.txt\n  adding: home/ana/b (stored)\nmyhome/ana/c x/home/anab";
    expect(hideServerPaths({ structuredContent: { listing } }, paths).structuredContent.listing).toBe(
      "tar: Removing leading '/'\n<home>/a.txt\n  adding: <home>/b (stored)\nmyhome/ana/c x/home/anab",
    );
    // No home known (HOME unset): no folder is named for it, the working folder least of all.
    const { hub: again } = testHub({ flags: { "skills-dir": [skills] }, hub: { acceptRoots: false } });
    again.scanNow();
    const none = serverPaths(again, "");
    again.close();
    expect(none.folders.filter(([, name]) => name === "<home>")).toEqual([]);
  });

  test("the programs scripts and commands start are named, by their real path too; none when neither runs", () => {
    const skills = tempDir("skillhub-programs-");
    writeSkill(skills, "pdf", { description: "A skill" });
    const bin = tempDir("skillhub-programs-bin-");
    const real = write(join(bin, "python3.12"), "#!/bin/sh\n");
    chmodSync(real, 0o755);
    symlinkSync(real, join(bin, "python3"));
    const { hub } = testHub({
      flags: { "skills-dir": [skills] },
      env: { SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "python3" },
      hub: { acceptRoots: false, exec: { env: { PATH: bin } } },
    });
    hub.scanNow();
    hub.config.scripts.runners[".rb"] = join(bin, "missing-ruby");
    const stdout = `${join(bin, "python3")}: ENOEXEC; ${realpathSync(real)} -V; ${join(bin, "missing-ruby")} -w; ${bin}/other`;
    expect(hideServerPaths({ structuredContent: { stdout } }, serverPaths(hub)).structuredContent.stdout).toBe(
      "<program 'python3'>: ENOEXEC; <program 'python3'> -V; <program 'missing-ruby'> -w; <server path>",
    );
    hub.config.scripts.enabled = false;
    hub.config.commands.enabled = false;
    const none = serverPaths(hub);
    hub.close();
    expect(none.folders.filter(([, name]) => name.startsWith("<program"))).toEqual([]);
  });

  test("a path whose URI another holds is named, not given a URI that fetches another file", () => {
    const skills = tempDir("skillhub-uri-conflict-");
    writeSkill(skills, "ops-kit", { name: "ops", description: "An Agent Skill named ops" });
    write(join(skills, "ops-kit/release.md"), "the skill's notes\n");
    write(join(skills, "ops-kit/release/run.sh"), "echo skill\n");
    write(join(skills, "ops-kit/notes.txt"), "notes\n");
    const tree = join(tempDir("skillhub-uri-conflict-tree-"), "tree");
    writeNode(tree, "_root.md", { keywords: ["root"] });
    writeNode(tree, "ops/release.md", { keywords: ["release"] });
    const { hub } = testHub({ flags: { "skills-dir": [skills, tree] }, hub: { acceptRoots: false } });
    hub.scanNow();
    const paths = serverPaths(hub, "/nowhere");
    hub.close();
    const stdout = [
      ...["ops-kit/notes.txt", "ops-kit/release.md", "ops-kit/release/run.sh"].map((rel) => join(skills, rel)),
      join(tree, "ops/release.md"),
    ].join(" ");
    expect(hideServerPaths({ structuredContent: { stdout } }, paths).structuredContent.stdout).toBe(
      [
        "skill://ops/notes.txt",
        "skill://ops/release.md",
        `<skills folder '${basename(skills).toLowerCase()}'>/ops-kit/release/run.sh`,
        "<skills folder 'tree'>/ops/release.md",
      ].join(" "),
    );
  });

  test("a skill folder reached through a link: its real path, as a stack trace prints it, becomes its URI", () => {
    const outside = tempDir("skillhub-real-");
    writeSkill(outside, "pdf", { description: "A skill that lives elsewhere" });
    const skills = tempDir("skillhub-linked-");
    symlinkSync(join(outside, "pdf"), join(skills, "pdf"));
    const { hub } = testHub({ flags: { "skills-dir": [skills] }, hub: { acceptRoots: false } });
    hub.scanNow();
    const real = realpathSync(join(outside, "pdf"));
    const trace = `Error: no input\n    at main (${real}/scripts/run.js:3:9)\n    at old (${real}-old/run.js:1:1)\ncd: ${real}: gone. Working in ${real}.`;
    const swept = hideServerPaths({ structuredContent: { trace } }, serverPaths(hub)).structuredContent.trace;
    hub.close();
    // A folder beside it whose name only starts like it is not the skill's: another path of the server.
    expect(swept).toBe(
      "Error: no input\n    at main (skill://pdf/scripts/run.js:3:9)\n    at old (<server path>:1:1)\ncd: skill://pdf: gone. Working in skill://pdf.",
    );
  });
});

describe("any other path of the server", () => {
  /** hub() with the server's other paths hidden, these names in its root folder. */
  const withOthers = (): ServerPaths => ({
    ...hub(),
    folders: [
      ["/srv/hub/skills", "<skills folder 'skills'>"],
      ["/work/project", "<project>"],
    ],
    others: { roots: new Set(["srv", "tmp", "usr", "proc", "dev"]) },
  });
  const sweep = (text: string, paths = withOthers()) =>
    hideServerPaths({ structuredContent: { text } }, paths).structuredContent.text;

  test("a path no folder names, a file URL whole: <server path>, after the folders are named", () => {
    expect(sweep("links to /tmp/lab/up, outside the project /work/project; not followed.")).toBe(
      "links to <server path>, outside the project <project>; not followed.",
    );
    expect(sweep("url file:///tmp/repos/bare1.git, file://localhost/tmp/r/b.git")).toBe(
      "url <server path>, <server path>",
    );
    expect(
      sweep("(/usr/lib/x.py:3:9) PATH=/usr/bin:/tmp/a/bin '/tmp/a/b.' /tmp/ab/cd… /srv/hub/skills/skill-1/x"),
    ).toBe("(<server path>:3:9) PATH=<server path>:<server path> '<server path>.' <server path>… skill://skill-1/x");
  });

  test("what is no path of the server is kept: words, URLs, URIs, names the sweep gave, a root folder's name alone", () => {
    const kept = [
      "and/or 1/2 10.0.0.0/8 s/tmp/a/g x/tmp/a/b",
      "https://example.com/tmp/a/b ssh://git@host/srv/repo.git //cdn.example.com/tmp/x",
      "skill://skill-1/tmp/a /work/project/tmp/a/b",
      "(/proc, /sys, /dev: processes) /tmp/ /api/v1/users /nowhere/a/b",
    ];
    expect(kept.map((text) => sweep(text))).toEqual(kept.map((text) => text.replace("/work/project", "<project>")));
  });

  test("a skill's own words keep their author's paths, the page's file text too; without `others`, only folders", () => {
    const answer = {
      message: "at /tmp/a/b",
      description: "Saves /tmp/shot.png",
      frontmatter: { metadata: { out: "/tmp/x/y" } },
      tags: ["/usr/share/fonts"],
      text: "#!/usr/bin/env bash\ncat /tmp/a/b",
    };
    expect(hideServerPaths(answer, withOthers())).toEqual({
      ...answer,
      message: "at <server path>",
      text: "#!/usr/bin/env bash\ncat <server path>",
    });
    expect(hideServerPaths(answer, withOthers(), "page")).toEqual({ ...answer, message: "at <server path>" });
    expect(hideServerPaths(answer, withOthers(), "skill")).toEqual(answer);
    expect(hideServerPaths(answer, { ...withOthers(), others: undefined })).toEqual(answer);
    // An error is the server's words, whatever the tool.
    const error = { isError: true, content: [{ type: "text", text: "GIT_FAILED: cannot reach /tmp/r/b.git" }] };
    expect(hideServerPaths(error, withOthers(), "skill").content[0]?.text).toBe(
      "GIT_FAILED: cannot reach <server path>",
    );
  });

  test("Windows: a drive's or a UNC path, in long form too; a URL and a drive's folder alone kept", () => {
    const paths: ServerPaths = { ...windowsHub(), others: {} };
    expect(
      sweep(
        "C:\\Data\\x and c:/data/y, \\\\srv\\share\\x file:///D:/a/b \\\\?\\C:\\x\\y \\\\?\\UNC\\srv\\share\\z",
        paths,
      ),
    ).toBe("<server path> and <server path>, <server path> <server path> <server path> <server path>");
    expect(sweep("https://host/a/b C:\\a; and/or C:\\hub\\skills\\pdf\\x", paths)).toBe(
      "https://host/a/b C:\\a; and/or skill://pdf/x",
    );
  });

  test("a name holding a space: a quoted path is hidden to its closing mark, a bare one as far as its names go on", () => {
    expect(sweep("No such file or directory: '/tmp/my skills/secret-folder/x.txt'")).toBe(
      "No such file or directory: '<server path>'",
    );
    expect(sweep('open "/tmp/Jane Doe/a b.json", `/tmp/My Drive/x` and “/tmp/a b/c”, «/tmp/c d».')).toBe(
      'open "<server path>", `<server path>` and “<server path>”, «<server path>».',
    );
    // What ends the quote is not the path's: a line number, a sentence's dot, a cut.
    expect(sweep("'/tmp/a b/x.py:12' '/tmp/a b/c.' '/tmp/a b/cut…'")).toBe(
      "'<server path>:12' '<server path>.' '<server path>…'",
    );
    // In a JSON string's text, its quotes escaped; a quote not closed on its line is no quote.
    expect(sweep('{\\"p\\": \\"/tmp/a b/c\\"} \'/tmp/x y/z\nend\'')).toBe(
      '{\\"p\\": \\"<server path>\\"} \'<server path>\nend\'',
    );
    // Bare: on through a space while the next separator comes within three words, right after a name.
    expect(sweep("wrote /tmp/my skills/secret-folder/x then stopped")).toBe("wrote <server path> then stopped");
    expect(sweep("at main (/tmp/Jane Doe/app/x.js:3:9), links to /tmp/my skills/y, outside")).toBe(
      "at main (<server path>:3:9), links to <server path>, outside",
    );
    expect(sweep("/tmp/Program Files (x86)/Tool/x.exe: not found")).toBe("<server path>: not found");
    // Not into another path, nor a relative one, nor past three words or a list's mark.
    expect(sweep("cp /tmp/a b/c /tmp/d/e ./f ~/g (/tmp/h/i) and /tmp/j/k one two three x/y, /tmp/l/m; n/o")).toBe(
      "cp <server path> <server path> ./f ~/g (<server path>) and <server path> one two three x/y, <server path>; n/o",
    );
    // A name holding a space that ends the path cannot be told from the words after it, which are kept: no
    // disk is asked (its answer would tell a caller which paths exist); quoted, as most programs write it, it goes.
    expect(sweep("cd: /tmp/Jane Doe: No such file; ls: cannot access '/tmp/Jane Doe': No such file")).toBe(
      "cd: <server path> Doe: No such file; ls: cannot access '<server path>': No such file",
    );
    // A root folder's name alone, quoted with words or not, is still kept; and a skill's own words are its author's.
    expect(sweep("'/proc and more' '/usr x' (/proc, /sys)")).toBe("'/proc and more' '/usr x' (/proc, /sys)");
    const own = { description: "Saves to '/tmp/My Shots/x.png' or /tmp/My Shots/y.png" };
    expect(hideServerPaths(own, withOthers())).toEqual(own);
  });

  test("Windows: a name holding a space, on a drive or a share, quoted or bare", () => {
    const paths: ServerPaths = { ...windowsHub(), others: {} };
    expect(
      sweep(
        [
          "C:\\Users\\Jane Doe\\AppData\\x.txt is gone",
          "'C:\\Program Files (x86)\\Tool' and C:\\Program Files (x86)\\Tool\\x.exe",
          "\\\\srv\\My Share\\jane\\x and d:/My Drive/a b/c",
          '"C:\\\\Documents and Settings\\\\jane"',
        ].join("\n"),
        paths,
      ),
    ).toBe(
      [
        "<server path> is gone",
        "'<server path>' and <server path>",
        "<server path> and <server path>",
        '"<server path>"',
      ].join("\n"),
    );
    // No listing of a drive's root says which names start a path there: a folder alone, then words that go on
    // to a separator, is taken for one path with a space (`C:\\Program Files\\x`); a list's mark ends it.
    expect(sweep("C:\\a and/or, C:\\a; and/or", paths)).toBe("<server path>, C:\\a; and/or");
  });

  test("a path after a tag's or a redirection's `>`, percent-encoded, or with its slashes escaped as JSON may write them", () => {
    expect(sweep("<path>/tmp/jane/x</path> 2>/tmp/out/err.log </tmp/in/a> <file:///tmp/a/b>")).toBe(
      "<path><server path></path> 2><server path> <<server path>> <<server path>>",
    );
    // What follows a name the sweep gave is the rest of its path.
    expect(sweep("/work/project/tmp/a/b")).toBe("<project>/tmp/a/b");
    // Glued to a program's option, not to a word.
    expect(sweep("cc -I/tmp/jane/include -L/usr/lib/x '-Wl,-rpath,/tmp/jane/lib' well-known/tmp/a/b x-y/usr/a/b")).toBe(
      "cc -I<server path> -L<server path> '-Wl,-rpath,<server path>' well-known/tmp/a/b x-y/usr/a/b",
    );
    expect(sweep("GET /view?path=%2Ftmp%2Fjane%2Fx&y=1 and file:///tmp/my%20skills/x and 100%25/tmp%2Fno")).toBe(
      "GET /view?path=<server path> and <server path> and 100%25/tmp%2Fno",
    );
    expect(sweep('{"p":"\\/tmp\\/jane\\/x","q":"\\/srv\\/hub\\/skills\\/skill-1\\/a"} a\\/b')).toBe(
      '{"p":"<server path>","q":"skill:\\/\\/skill-1\\/a"} a\\/b',
    );
    // Half escaped (HTML-safe writers escape `</` only), or beside the mark the sweep uses: still hidden.
    expect(sweep("\\/tmp/jane\\/x and /tmp\\/jane\\/y <\\/tmp/jane/z")).not.toContain("jane");
    expect(sweep('\uE000 {"p":"\\/tmp\\/jane\\/x"}')).toBe('\uE000 {"p":"<server path>"}');
    // The text's own slashes (a regular expression, a sed command) stay as written beside an escaped path.
    expect(sweep('re = /^https?:\\/\\/[^\\/]+\\/api\\//; s/\\/usr\\/local/\\/opt/g; {"c":"\\/tmp\\/x\\/y"}')).toBe(
      're = /^https?:\\/\\/[^\\/]+\\/api\\//; s/\\/usr\\/local/\\/opt/g; {"c":"<server path>"}',
    );
    // Nothing hidden: kept as written, escapes and all.
    expect(sweep('{"url":"https:\\/\\/host\\/tmp\\/a"} 50%2F50')).toBe('{"url":"https:\\/\\/host\\/tmp\\/a"} 50%2F50');
    // The folders alone (no other path hidden) are found in such a text too.
    const folders = { ...withOthers(), others: undefined };
    expect(sweep("at \\/srv\\/hub\\/skills\\/x.txt", folders)).toBe("at <skills folder 'skills'>\\/x.txt");
  });

  test("in a URL query, the rest of the word goes with a server path: a name may hold `&` or `#`", () => {
    expect(sweep("GET /view?dir=/tmp/jane/x&y=1#top and ?a=/tmp/jane/y#L3, ?b=/work/project/z&c=2.")).toBe(
      "GET /view?dir=<server path> and ?a=<server path>, ?b=<project>/z&c=2.",
    );
    expect(sweep("?dir=/tmp/jane/a&b=c/secret ?dir=/tmp/jane/x#/secret /tmp/jane/a&b=1")).toBe(
      "?dir=<server path> ?dir=<server path> <server path>",
    );
  });

  test("an escaped path in a URL query: a raw `&` or `#` inside a folder's name is the path's", () => {
    // encodeURI escapes `\\` and spaces but leaves `&` and `#`; a user's or a skills folder's name may hold them.
    const skills = new Map([...hub().skills, ["/srv/hub/skills/R#D kit", "skill://R%23D%20kit"]]);
    const posix: ServerPaths = {
      ...withOthers(),
      skills,
      longest: Math.max(...[...skills.keys()].map((dir) => dir.length)),
      folders: [
        ["/srv/hub/skills", "<skills folder 'skills'>"],
        ["/tmp/x/Tom&Jerrx", "<home>"],
        ["/home/Tom&Jerrx", "<home>"],
        ["/srv/R&D vault", "<skills folder 'rd'>"],
        ["/home/zorb#lax", "<zorb home>"],
      ],
    };
    expect(
      [
        "?file=%2Fhome%2FTom&Jerrx%2FAppData%2Fx.log",
        "?f=%2Fhome%2Fzorb#lax%2Fx",
        "?f=%2Fsrv%2FR&D%20vault%2Fnotes.txt",
        "?f=%2Ftmp%2Fx%2FTom&Jerrx",
        "?f=%2Fhome%2Fzorb#lax&y=1",
        "?f=%2Fhome%2Fzorb#la…",
        "?f=%2Fsrv%2Fhub%2Fskills%2FR#D%20kit",
      ].map((text) => sweep(text, posix)),
    ).toEqual([
      "?file=<home>/AppData/x.log",
      "?f=<zorb home>/x",
      "?f=<skills folder 'rd'>/notes.txt",
      "?f=<home>",
      "?f=<zorb home>&y=1",
      "?f=<server path>…",
      "?f=skill://R%23D%20kit",
    ]);
    const windows: ServerPaths = {
      ...windowsHub(),
      folders: [
        ["C:\\Users\\Tom&Jerrx", "<home>"],
        ["C:\\tmp\\x\\Tom&Jerrx", "<tmp home>"],
        ["C:\\srv\\R&D vault", "<skills folder 'rd'>"],
        ["C:\\Users\\zorb#lax", "<zorb home>"],
      ],
      others: {},
    };
    expect(
      [
        "?file=C:%5CUsers%5CTom&Jerrx%5CAppData%5Cx.log",
        "?f=C:%5CUsers%5Czorb#lax%5Cx",
        "?f=C:%5Csrv%5CR&D%20vault%5Cnotes.txt",
        "?f=C:%5Ctmp%5Cx%5CTom&Jerrx",
        "?f=c:/users/zorb#lax&y=1",
      ].map((text) => sweep(text, windows)),
    ).toEqual([
      "?file=<home>\\AppData\\x.log",
      "?f=<zorb home>\\x",
      "?f=<skills folder 'rd'>\\notes.txt",
      "?f=<tmp home>",
      "?f=<zorb home>&y=1",
    ]);
    // Written as it is, a name's `#` with more of the name after it is the path's too.
    expect(sweep("?d=C:\\Users\\zorb#lax.bak ?d=C:\\Data\\x#top", windows)).toBe("?d=<server path> ?d=<server path>");
    // Escaped, what follows a path to the word's end goes with it.
    expect(
      sweep(
        "?dir=%2Ftmp%2Fjane%2Fa&b=c%2Fsecret ?dir=%2Ftmp%2Fjane%2Fx#%2Fsecret ?q=a,%2Ftmp%2Fjane%2Fx#top&y=1 ?dir=%2Ftmp%2Fjane%2Fx&y=1#top ?n=1&f=%2Ftmp%2Fjane%2Fx&y=2 ?f=a:%2Ftmp%2Fjane%2Fx#top",
      ),
    ).toBe(
      "?dir=<server path> ?dir=<server path> ?q=a,<server path> ?dir=<server path> ?n=1&f=<server path> ?f=a:<server path>",
    );
  });

  // Ordering beside a floor, not a time limit: each hostile megabyte is swept before benign output 16 times its
  // size. A sweep that read a quote, a name after a space or a path again for each path it holds would take
  // minutes. The floor is measured in the same test, again where a family is not below it, so a busy machine
  // slows both.
  test("1 MB hostile answers are swept before benign output 16 times their size", () => {
    const paths = withOthers();
    const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
    const sweepIt = (text: string) => () => hideServerPaths({ structuredContent: { text } }, paths);
    const benign = sweepIt(
      fill("wrote /tmp/out/report.txt and /srv/hub/skills/skill-1/a.md, then stopped.\n", 16 * MIB),
    );
    let floor = timed(benign, 2);
    const hostile = {
      "quotes never closed": fill("'/tmp/a b ", MIB),
      "curly quotes never closed": fill("“/tmp/a/b", MIB),
      "curly quotes before no root folder's name": fill("“/nowhere/a", MIB),
      "a far closing mark": `${fill("«/tmp/a/b ", MIB - 1)}»`,
      "line numbers in a quote": `'/tmp/a/b${fill(":1", MIB)}'`,
      "dots in quotes": fill(`'/tmp/a/b${".".repeat(4000)}' `, MIB),
      "a long name after a space": fill(`/tmp/a/b ${"y".repeat(250)}`, MIB),
      "words after a space": `/tmp/a/b ${fill("x ", MIB)}`,
      "names holding spaces": fill("/tmp/a b c/d ", MIB),
      redirections: fill(">/tmp/a/b", MIB),
      "names the sweep gave": fill("/work/project/tmp/a/b", MIB),
      "options glued to paths": fill(" -I/tmp/a/b -L/nowhere/a b", MIB),
      "options before no root folder's name": fill(" -I/nowhere/a b", MIB),
      "escaped slashes": fill("\\/tmp\\/a\\/b ", MIB),
      "percent-encoded paths": fill("%2Ftmp%2Fa%2Fb ", MIB),
      "query values": `?a=/tmp/a/b${fill("&k=v#f&=x/", MIB)}`,
    };
    for (const [name, text] of Object.entries(hostile)) {
      let ms = timed(sweepIt(text), 2);
      if (ms >= floor) {
        floor = timed(benign, 1);
        ms = timed(sweepIt(text), 2);
      }
      expect({ name, beforeFloor: ms < floor }).toEqual({ name, beforeFloor: true });
    }
  }, 120_000);

  test("serverPaths: a path under a name of the root folder is hidden, whether it is on the disk or not", () => {
    const { hub: server } = testHub({ hub: { acceptRoots: false } });
    const paths = serverPaths(server);
    server.close();
    const outside = realpathSync(tempDir("skillhub-other-paths-"));
    const there = write(join(outside, "team", "notes.txt"), "x\n");
    const nowhere = "/skillhub-no-such-root-folder/a/b";
    expect(existsSync(dirname(dirname(nowhere)))).toBe(false);
    const sweepIt = (text: string) => hideServerPaths(text, paths);
    // What a caller's text becomes tells nothing of the disk but the root folder's names.
    expect([sweepIt(`wrote ${there}.`), sweepIt(`wrote ${join(outside, "gone", "notes.txt")}.`)]).toEqual([
      "wrote <server path>.",
      "wrote <server path>.",
    ]);
    if (sep === "/") expect(sweepIt(`see ${nowhere}`)).toBe(`see ${nowhere}`);
  });
});

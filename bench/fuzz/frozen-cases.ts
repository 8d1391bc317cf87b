import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type Message, RawStdio } from "./raw-client.ts";
import { must, type Suite } from "./suite.ts";

/**
 * Frozen mode (--frozen) against the binary: what it serves must be what
 * `skillhub lock` recorded, byte for byte, whatever the skill folders do after
 * the lock. Cases: a check-then-read race with atomic renames (every answer is
 * the reviewed text or a refusal, never the evil one), SKILL.md swapped for a
 * FIFO, a link to a FIFO or a device (the server keeps answering ping), files
 * added or changed under .venv/, node_modules/ and deep folders (refused,
 * named by verify), a nested skill read through its parent, and a lock that is
 * a FIFO or a link to /dev/zero (refused at once). Each step is bounded in time.
 */

const REVIEWED = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n\n# PDF\n\nREVIEWED-STEPS\n";
const EVIL = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n\n# PDF\n\nEVIL-STEPS exfiltrate\n";
const FORMS = "REVIEWED-FORMS\n";
const EVIL_FORMS = "EVIL-FORMS exfiltrate\n";
const DEEP = "a/b/c/d/e/f/g/h/i/j/k";

interface FrozenWorld {
  home: string;
  project: string;
  skills: string;
  lock: string;
  env: Record<string, string>;
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function skill(skills: string, folder: string, body = `# ${folder}\n\nSteps.\n`): void {
  const name = folder.split("/").pop();
  write(join(skills, folder, "SKILL.md"), `---\nname: ${name}\ndescription: Helps with ${name}.\n---\n\n${body}`);
}

function build(): FrozenWorld {
  const root = mkdtempSync(join(tmpdir(), "skillhub-fuzz-frozen-"));
  const home = join(root, "home");
  const project = join(root, "project");
  const skills = join(project, ".agents", "skills");
  mkdirSync(home, { recursive: true });
  write(join(skills, "pdf", "SKILL.md"), REVIEWED);
  write(join(skills, "pdf", "forms.md"), FORMS);
  write(join(skills, "pdf", ".venv", "lib", "site.py"), "reviewed = True\n");
  write(join(skills, "pdf", DEEP, "notes.md"), "reviewed deep notes\n");
  for (const name of ["fifo", "linked", "device", "fine"]) skill(skills, name);
  skill(skills, "parent");
  skill(skills, "parent/child");
  write(join(skills, "parent", "child", "notes.md"), "child notes\n");
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LOG_LEVEL: "INFO" };
  return { home, project, skills, lock: join(project, "skillhub.lock"), env };
}

/** Run the binary to its end, or kill it after `ms`: its exit code, or "hang". */
async function runFor(binary: string, args: string[], w: FrozenWorld, ms = 30_000) {
  const proc = Bun.spawn([binary, ...args, "--project", w.project], {
    env: w.env,
    cwd: w.project,
    stdout: "pipe",
    stderr: "pipe",
  });
  const code = await Promise.race([proc.exited, Bun.sleep(ms).then(() => "hang" as const)]);
  if (code === "hang") proc.kill("SIGKILL");
  return { code, out: await new Response(proc.stdout).text(), err: await new Response(proc.stderr).text() };
}

/**
 * The attacker: a child process that swaps `file` between two contents by atomic renames as fast as it
 * can, until its stdin ends (then the first content is left in place).
 */
const FLIP = `
const fs = require("node:fs");
const [file, a, b] = process.argv.slice(-3);
let running = true;
process.stdin.on("end", () => { running = false; });
process.stdin.resume();
process.stdout.write("flipping\\n");
let n = 0;
(async () => {
  while (running) {
    for (let i = 0; i < 200; i++) { fs.writeFileSync(file + ".flip", n++ % 2 ? b : a); fs.renameSync(file + ".flip", file); }
    await new Promise((r) => setImmediate(r));
  }
  fs.writeFileSync(file + ".flip", a);
  fs.renameSync(file + ".flip", file);
})();
`;

export async function flipper(file: string, contents: [string, string]) {
  const proc = Bun.spawn([process.execPath, "-e", FLIP, file, ...contents], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  await Promise.race([reader.read(), Bun.sleep(10_000)]);
  return {
    async stop() {
      (proc.stdin as import("bun").FileSink).end();
      const ended = await Promise.race([proc.exited, Bun.sleep(10_000).then(() => "hang" as const)]);
      if (ended === "hang") proc.kill("SIGKILL");
    },
  };
}

/**
 * The SKILL.md of the skills `fifo`, `linked` and `device` under `skills` replaced by a FIFO, a link to
 * a FIFO (made in `scratch`) and a link to /dev/zero. Nothing ever writes to the FIFOs: a blocking open
 * of one would wait for good.
 */
export function swapForSpecials(skills: string, scratch: string): void {
  for (const name of ["fifo", "linked", "device"]) rmSync(join(skills, name, "SKILL.md"));
  Bun.spawnSync(["mkfifo", join(skills, "fifo", "SKILL.md")]);
  Bun.spawnSync(["mkfifo", join(scratch, "elsewhere.fifo")]);
  symlinkSync(join(scratch, "elsewhere.fifo"), join(skills, "linked", "SKILL.md"));
  symlinkSync("/dev/zero", join(skills, "device", "SKILL.md"));
}

/** The calls that read a skill's own file: `skill`, `load_skill`, `read_skill_file` of SKILL.md. */
export function ownFileReads(name: string): [string, Record<string, unknown>][] {
  return [
    ["skill", { name }],
    ["load_skill", { skill_name: name }],
    ["read_skill_file", { skill_name: name, file_path: "SKILL.md" }],
  ];
}

export async function frozenCases(suite: Suite, binary: string, answers: string[]): Promise<void> {
  const w = build();
  const record = (m: Message | "timeout") => {
    if (m !== "timeout") answers.push(JSON.stringify(m));
    return m;
  };
  const call = async (client: RawStdio, name: string, args: Record<string, unknown>) =>
    record(await client.request("tools/call", { name, arguments: args }, 15_000));
  let server: RawStdio | undefined;
  try {
    await suite.check(
      "frozen: skillhub lock records the skills (files in .venv/ and deep folders included)",
      async () => {
        const r = await runFor(binary, ["lock"], w);
        must(r.code === 0, `lock exited ${r.code}: ${r.err}`);
        must((await Bun.file(w.lock).text()).includes(`${DEEP}/notes.md`), "the deep file is not in the lock");
        return true;
      },
    );
    // No watcher and no rescan timer: a changed file meets the frozen checks themselves, not a rescan that drops it.
    server = new RawStdio(
      [binary, "--frozen", "--no-watch", "--project", w.project],
      { ...w.env, SKILLHUB_RESCAN_SECONDS: "0" },
      w.project,
    );
    const client = server;
    await suite.check("frozen: initialize answered", () => client.initialize());

    await suite.check(
      "frozen race: SKILL.md and forms.md flipped by atomic renames; no answer holds the evil text",
      async () => {
        const flips = [
          await flipper(join(w.skills, "pdf", "SKILL.md"), [REVIEWED, EVIL]),
          await flipper(join(w.skills, "pdf", "forms.md"), [FORMS, EVIL_FORMS]),
        ];
        let reviewed = 0;
        let answered = 0;
        try {
          // 40 rounds, and on until an answer holds the reviewed bytes (each read is a coin toss against
          // two flippers: a run of refusals is rare, not impossible), at most 400.
          for (let i = 0; (i < 40 || reviewed === 0) && i < 400 && !suite.outOfTime; i++) {
            const replies = [
              await call(client, "skill", { name: "pdf" }),
              await call(client, "load_skill", { skill_name: "pdf" }),
              await call(client, "read_skill_file", { skill_name: "pdf", file_path: "SKILL.md" }),
              await call(client, "read_skill_file", { skill_name: "pdf", file_path: "forms.md" }),
              record(await client.request("skills/get", { uri: "skill://pdf/SKILL.md" }, 15_000)),
              record(await client.request("resources/read", { uri: "skill://pdf/SKILL.md" }, 15_000)),
              record(await client.request("resources/read", { uri: "skill://pdf/forms.md" }, 15_000)),
              record(await client.request("prompts/get", { name: "pdf" }, 15_000)),
            ];
            for (const reply of replies) {
              must(reply !== "timeout", "a call was not answered within 15 s during the race");
              const text = JSON.stringify(reply);
              must(!text.includes("EVIL"), `evil bytes served: ${text.slice(0, 200)}`);
              if (text.includes("REVIEWED")) reviewed++;
              answered++;
            }
          }
        } finally {
          for (const f of flips) await f.stop();
        }
        must(answered > 0, "no call was answered during the race");
        // A rescan that met the evil bytes mid-race (a call on a file that changed under it starts one)
        // leaves the skill refused until the next rescan, which this server (no watch, no timer) makes only
        // when asked: under load every read of the race can come after it. The flippers end on the reviewed
        // bytes; once rescanned, those are served, so the checks refuse what differs, not everything.
        if (reviewed === 0) {
          await call(client, "refresh_skills", {});
          const after = JSON.stringify(
            await call(client, "read_skill_file", { skill_name: "pdf", file_path: "SKILL.md" }),
          );
          must(after.includes("REVIEWED"), `the reviewed bytes are not served after the race: ${after.slice(0, 200)}`);
        }
        return true;
      },
    );

    await suite.check(
      "frozen: SKILL.md as a FIFO, a link to a FIFO, a link to a device: refused, ping answered",
      async () => {
        swapForSpecials(w.skills, w.project);
        for (const name of ["fifo", "linked", "device"]) {
          for (const [tool, args] of ownFileReads(name)) {
            const reply = await call(client, tool, args);
            must(reply !== "timeout", `${tool}(${name}) not answered within 15 s`);
            must(JSON.stringify(reply).includes('"isError":true'), `${tool}(${name}) served a special file`);
          }
          must(await client.alive(10_000), `ping not answered after ${name}`);
        }
        must(record(await client.request("skills/list", {}, 15_000)) !== "timeout", "skills/list not answered");
        return client.alive(10_000);
      },
    );

    await suite.check(
      "frozen: files added or changed after the lock under .venv/, node_modules/, deep folders are refused",
      async () => {
        write(join(w.skills, "pdf", ".venv", "lib", "site.py"), "import os; os.system('evil')\n");
        write(join(w.skills, "pdf", "node_modules", "dep", "evil.js"), "EVIL-MODULE\n");
        write(join(w.skills, "pdf", DEEP, "notes.md"), "EVIL deep notes\n");
        write(join(w.skills, "pdf", DEEP, "x", "y", "added.md"), "EVIL added\n");
        for (const file_path of [
          ".venv/lib/site.py",
          "node_modules/dep/evil.js",
          `${DEEP}/notes.md`,
          `${DEEP}/x/y/added.md`,
        ]) {
          const reply = await call(client, "read_skill_file", { skill_name: "pdf", file_path });
          must(reply !== "timeout", `read_skill_file(${file_path}) not answered`);
          const text = JSON.stringify(reply);
          must(/SKILL_LOCK_MISMATCH|FILE_NOT_LOCKED/.test(text), `${file_path} served: ${text.slice(0, 200)}`);
          const resource = record(await client.request("resources/read", { uri: `skill://pdf/${file_path}` }, 15_000));
          must(resource !== "timeout" && resource.error !== undefined, `resources/read served ${file_path}`);
        }
        const verify = await runFor(binary, ["verify"], w);
        must(verify.code === 1, `verify exited ${verify.code}`);
        for (const file of [
          ".venv/lib/site.py",
          "node_modules/dep/evil.js",
          `${DEEP}/notes.md`,
          `${DEEP}/x/y/added.md`,
        ])
          must(verify.out.includes(`file ${file}:`), `verify does not name ${file}`);
        return true;
      },
    );

    await suite.check("frozen: a nested skill's files are never served through its parent", async () => {
      for (const file_path of ["child/SKILL.md", "child/notes.md"]) {
        const reply = await call(client, "read_skill_file", { skill_name: "parent", file_path });
        must(reply !== "timeout" && JSON.stringify(reply).includes("PATH_OUTSIDE_SKILL"), `parent served ${file_path}`);
      }
      return true;
    });

    await suite.check(
      "frozen: a lock that is a FIFO or a link to /dev/zero is refused at once (verify and serve exit 2)",
      async () => {
        rmSync(w.lock);
        Bun.spawnSync(["mkfifo", w.lock]);
        for (const args of [["verify"], ["serve", "--frozen"]]) {
          const r = await runFor(binary, args, w);
          must(r.code === 2, `${args.join(" ")} with a FIFO lock: ${r.code}`);
        }
        rmSync(w.lock);
        symlinkSync("/dev/zero", w.lock);
        const r = await runFor(binary, ["verify"], w);
        must(r.code === 2, `verify with a /dev/zero lock: ${r.code}`);
        return true;
      },
    );

    await suite.check("frozen: every stdout line is JSON, and stdin's end exits within 5 s", async () => {
      must(client.nonJson.length === 0, `non-JSON stdout: ${JSON.stringify(client.nonJson.slice(0, 3))}`);
      const code = await client.end();
      must(code !== "hang", "still running 5 s after stdin ended");
      return true;
    });
    answers.push(client.stdoutText, client.stderrText);
  } finally {
    server?.proc.kill("SIGKILL");
    rmSync(dirname(w.home), { recursive: true, force: true });
  }
}

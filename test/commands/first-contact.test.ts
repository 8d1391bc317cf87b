import { afterAll, describe, expect, test } from "bun:test";
import { join, relative } from "node:path";
import { tokenNote } from "../../src/commands/print-config.ts";
import { resolveConfig } from "../../src/config/resolve.ts";
import { runCli } from "../helpers/cli.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { GIT_ENV, remoteRepo, skillText } from "../helpers/git.ts";

/** What git needs to run in a test (PATH) and nothing of the developer's own git configuration. */
const gitEnv = () =>
  Object.fromEntries(Object.entries(GIT_ENV).filter((e): e is [string, string] => e[1] !== undefined));

afterAll(cleanupTemp);

const cli = runCli;

const CLIENTS = ["claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "codex", "gemini"];
const parseFile = (client: string, text: string) => (client === "codex" ? Bun.TOML.parse(text) : JSON.parse(text));
const URL_ = "http://127.0.0.1:8000/mcp";

describe("print-config CLIENT > file writes a valid file", () => {
  test("stdio: stdout parses as the client's file format; where it goes is on stderr", async () => {
    for (const client of CLIENTS) {
      const { code, out, err } = await cli(["print-config", client]);
      expect(code).toBe(0);
      expect(out).not.toContain("#");
      expect(JSON.stringify(parseFile(client, out))).toContain(JSON.stringify(process.execPath).slice(1, -1));
      expect(err).toStartWith("# ");
    }
  });

  test("--http: with SKILLHUB_HTTP_TOKEN set, each client gets the token where it reads one, the file holding none where it can", async () => {
    for (const client of CLIENTS) {
      const plain = await cli(["print-config", client, "--http", URL_]);
      expect(plain.code).toBe(0);
      expect(plain.out).not.toContain("Authorization");
      expect(plain.out).not.toContain("SKILLHUB_HTTP_TOKEN");
      const withToken = await cli(["print-config", client, "--http", URL_], { SKILLHUB_HTTP_TOKEN: "s3cret" });
      expect(withToken.code).toBe(0);
      const file = parseFile(client, withToken.out) as Record<string, Record<string, Record<string, unknown>>>;
      const entry = (file.mcpServers ?? file.servers ?? file.mcp_servers)?.skillhub as Record<string, unknown>;
      if (client === "claude-desktop") {
        // Claude Desktop reads no variable: the token is in the file, in mcp-remote's env, in no argument
        // (any process reads another's), and no argument holds a space (Claude Desktop on Windows splits there).
        expect(entry.args).toEqual(["-y", "mcp-remote", URL_, "--header", "Authorization:${SKILLHUB_AUTHORIZATION}"]);
        expect(entry.env).toEqual({ SKILLHUB_AUTHORIZATION: "Bearer s3cret" });
        expect(withToken.err).toContain("# this snippet holds your SKILLHUB_HTTP_TOKEN: keep the file private.");
        continue;
      }
      expect(withToken.out + withToken.err).not.toContain("s3cret");
      if (client === "vscode") {
        // A workspace file: VS Code asks for the token and keeps it.
        expect(entry.headers).toEqual({ Authorization: "Bearer ${input:skillhub-token}" });
        expect(withToken.err).toContain("# VS Code asks for your SKILLHUB_HTTP_TOKEN once and keeps it");
        continue;
      }
      if (client === "codex") expect(entry.bearer_token_env_var).toBe("SKILLHUB_HTTP_TOKEN");
      else if (client === "cursor" || client === "windsurf")
        expect(entry.headers).toEqual({ Authorization: "Bearer ${env:SKILLHUB_HTTP_TOKEN}" });
      else expect(entry.headers).toEqual({ Authorization: "Bearer ${SKILLHUB_HTTP_TOKEN}" });
      expect(withToken.err).toContain("reads the token from SKILLHUB_HTTP_TOKEN in its environment");
      expect(withToken.err).toContain("export SKILLHUB_HTTP_TOKEN=<the server's token>");
    }
    const claude = await cli(["print-config", "claude-code", "--http", URL_], { SKILLHUB_HTTP_TOKEN: "s3cret" });
    expect(claude.err).toContain(
      `claude mcp add --scope user --transport http skillhub ${URL_} --header 'Authorization: Bearer \${SKILLHUB_HTTP_TOKEN}'`,
    );
    const codex = await cli(["print-config", "codex", "--http", URL_], { SKILLHUB_HTTP_TOKEN: "s3cret" });
    expect(codex.err).toContain(`codex mcp add skillhub --url ${URL_} --bearer-token-env-var SKILLHUB_HTTP_TOKEN`);
  });

  test("with a command offered as well, the line naming the file reads as the other way", async () => {
    for (const args of [["claude-code"], ["claude-code", "--http", URL_], ["codex", "--http", URL_]]) {
      const lines = (await cli(["print-config", ...args])).err.trimEnd().split("\n");
      expect(lines[0]).toStartWith("# run once");
      expect(lines[2]).toStartWith("# or merge into ");
      expect(lines.join("\n")).not.toContain("into or");
    }
    expect((await cli(["print-config", "cursor"])).err).toStartWith("# merge into ~/.cursor/mcp.json");
  });

  test("--http to another machine over http://: Claude Desktop's mcp-remote is allowed it, and the note says the token travels in clear", async () => {
    const token = { SKILLHUB_HTTP_TOKEN: "s3cret" };
    const args = async (url: string) =>
      JSON.parse((await cli(["print-config", "claude-desktop", "--http", url], token)).out).mcpServers.skillhub.args;
    expect(await args("http://10.0.0.5:8000/mcp")).toContain("--allow-http");
    expect(await args("http://[::1]:8000/mcp")).toContain("--allow-http");
    for (const url of ["http://127.0.0.1:8000/mcp", "http://localhost:8000/mcp", "https://skills.example.com/mcp"])
      expect(await args(url)).not.toContain("--allow-http");
    expect((await cli(["print-config", "cursor", "--http", "http://10.0.0.5:8000/mcp"], token)).err).toContain(
      "# http:// to another machine carries the token in clear text",
    );
    for (const url of ["http://127.0.0.1:8000/mcp", "https://skills.example.com/mcp"])
      expect((await cli(["print-config", "cursor", "--http", url], token)).err).not.toContain("clear text");
  });

  test("--http with a URL whose path is not /mcp is questioned, naming the endpoint; a proxy's prefix before /mcp is not", async () => {
    const err = async (url: string) => (await cli(["print-config", "cursor", "--http", url])).err;
    for (const url of ["http://127.0.0.1:8000", "http://127.0.0.1:8000/", "http://127.0.0.1:8000/sse"])
      expect(await err(url), url).toContain(
        "is not it: if the URL is the server's own, use http://127.0.0.1:8000/mcp instead.",
      );
    for (const url of ["http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000/mcp/", "https://example.com/skills/mcp"])
      expect(await err(url), url).not.toContain("SkillHub serves MCP at /mcp");
  });

  test("the note for a client that reads the token from its environment says how to set it on this system", () => {
    expect(tokenNote("env", "Codex", "linux")).toContain(
      "`export SKILLHUB_HTTP_TOKEN=<the server's token>` in ~/.zshrc",
    );
    expect(tokenNote("env", "Codex", "darwin")).toContain("`export SKILLHUB_HTTP_TOKEN=<the server's token>`");
    expect(tokenNote("env", "Cursor", "win32")).toContain(
      "`setx SKILLHUB_HTTP_TOKEN <the server's token>` for your user), then restart Cursor.",
    );
  });

  test("a malformed --http URL is refused with exit 2 and nothing on stdout", async () => {
    for (const bad of ["localhost:8000/mcp", "ftp://host/mcp", "http://", "not a url"]) {
      const { code, out, err } = await cli(["print-config", "cursor", "--http", bad]);
      expect(code).toBe(2);
      expect(out).toBe("");
      expect(err).toContain("is not an http:// or https:// URL");
    }
  });
});

describe("first contact with the command line", () => {
  test("a name starting with '-' suggests --; -- makes it a name", async () => {
    const dir = tempDir();
    writeSkill(dir, "-21risk-automation", { description: "Risk" });
    const wrong = await cli(["show", "-21risk-automation", "--skills-dir", dir]);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain(
      `unknown option -21risk-automation. If it is a name, not an option, put -- before it: skillhub show --skills-dir ${dir} -- -21risk-automation`,
    );
    // The suggested command line, as given, shows the skill.
    const suggested = /skillhub (.+)$/m.exec(wrong.err)?.[1]?.split(" ") ?? [];
    const right = await cli(suggested);
    expect(right.code).toBe(0);
    expect(right.out).toStartWith("Loading: -21risk-automation");
    // The command after the options stays where it is, once; a value named like a command is a value.
    const after = await cli(["--skills-dir", dir, "show", "-21risk-automation"]);
    expect(after.err).toContain(`put -- before it: skillhub --skills-dir ${dir} show -- -21risk-automation\n`);
    const again = await cli((/skillhub (.+)$/m.exec(after.err)?.[1] ?? "").split(" "));
    expect(again.out).toStartWith("Loading: -21risk-automation");
    const valued = await cli(["--tools", "list", "-21risk-automation", "--skills-dir", dir]);
    expect(valued.err).toContain(
      `put -- before it: skillhub show --tools list --skills-dir ${dir} -- -21risk-automation\n`,
    );
  });

  test("an unknown subcommand suggests the closest one", async () => {
    for (const [typo, meant] of [
      ["doctr", "doctor"],
      ["lsit", "list"],
      ["serch", "search"],
      ["valdate", "validate"],
    ]) {
      const { code, err } = await cli([typo as string]);
      expect(code).toBe(2);
      expect(err).toContain(`unknown command "${typo}". Did you mean '${meant}'?`);
    }
    expect((await cli(["zzzzzz"])).err).not.toContain("Did you mean");
  });

  test("`install`, `setup` or `connect` a client points to print-config, which prints its config", async () => {
    for (const word of ["install", "setup", "connect"]) {
      const { code, err } = await cli([word, "cursor"]);
      expect(code).toBe(2);
      expect(err).toContain(
        `unknown command "${word}". To connect a client, run \`skillhub print-config CLIENT\` (claude-code, cursor, vscode, codex, gemini…): it prints the client's config and where it goes.`,
      );
    }
  });

  test("a skill whose file is skill.md (not SKILL.md) is named by validate, doctor and list", async () => {
    const dir = tempDir();
    writeSkill(dir, "git", { description: "Git workflow" });
    write(join(dir, "pdf", "skill.md"), "---\nname: pdf\ndescription: PDF tools\n---\n# PDF\n");
    write(join(dir, "docx", "Skill.md"), "---\nname: docx\ndescription: Word files\n---\n# Word\n");
    const says = "a skill's file must be named SKILL.md, in capitals. Skill not served: rename the file to SKILL.md.";
    const validate = await cli(["validate", dir]);
    expect(validate.code).toBe(1);
    expect(validate.out).toContain(`pdf/skill.md\n  error   misnamed-skill-file    is named skill.md; ${says}`);
    expect(validate.out).toContain("docx/Skill.md");
    // Three skill folders, two whose file is misnamed: all three are counted as checked.
    expect(validate.out).toContain(
      "Checked 3 Agent Skills and 0 tree nodes in 1 folder: 1 without a problem, 2 errors in 2 files",
    );
    const doctor = await cli(["doctor", "--skills-dir", dir]);
    expect(doctor.out).toContain(`error misnamed-skill-file ${join(dir, "pdf", "skill.md")}: is named skill.md`);
    const list = await cli(["list", "--skills-dir", dir]);
    expect(list.out).toContain("1 skill, 2 skipped with errors");
    const only = tempDir();
    write(join(only, "pdf", "skill.md"), "---\nname: pdf\ndescription: PDF tools\n---\n");
    const broken = await cli(["list", "--skills-dir", only]);
    expect(broken.code).toBe(1);
    expect(broken.err).toContain(`misnamed-skill-file ${join(only, "pdf", "skill.md")}`);
  });

  test("SKILLS_REPO as a relative path is a repository from the working folder, as --skills-dir is", async () => {
    const remote = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha", "From the team.") });
    const home = tempDir();
    const env = { ...gitEnv(), HOME: home, SKILLS_REPO: relative(home, remote.bare) };
    expect(env.SKILLS_REPO).toStartWith("../");
    // Commands do not sync: before the first sync, list says why the team's skills are missing.
    const before = await cli(["list"], env);
    expect(before.out).not.toContain("alpha");
    expect(before.err).toContain("repository team-skills");
    expect(before.err).toContain("is not synced yet, so its skills are left out; run `skillhub sync` to fetch it.");
    const sync = await cli(["sync"], env);
    expect(sync.err).not.toContain("does not exist");
    expect(sync.code).toBe(0);
    const after = await cli(["list"], env);
    expect(after.out).toContain("alpha");
    expect(after.err).not.toContain("not synced yet");
    // URLs and scp-like addresses are left as they are; only local paths are made absolute.
    const config = (repos: string) =>
      resolveConfig({ env: { SKILLS_REPO: repos }, homeDir: "/h", cwd: "/w" }).config.git.repos;
    expect(config("../team.git,team,~/t.git,/abs/t.git")).toEqual(["/team.git", "/w/team", "/h/t.git", "/abs/t.git"]);
    expect(config("git@host:team/skills.git,https://h/t.git,file:///x/t.git,host:path/t")).toEqual([
      "git@host:team/skills.git",
      "https://h/t.git",
      "file:///x/t.git",
      "host:path/t",
    ]);
  });

  test("a --skills-dir folder or --project root that does not exist is named on stderr and by doctor", async () => {
    const missing = join(tempDir(), "nope");
    const { code, err } = await cli(["list", "--skills-dir", missing]);
    expect(code).toBe(0);
    expect(err).toContain(`skills folder ${missing} does not exist; it is skipped.`);
    // The project root too (a server started with a mistyped --project serves nothing of it).
    const project = await cli(["doctor", "--json", "--project", missing]);
    expect(project.err).toContain(`warning: project root ${missing} does not exist.`);
    expect(JSON.parse(project.out).config_warnings).toEqual([`project root ${missing} does not exist`]);
    const file = write(join(tempDir(), "notes.txt"), "x");
    expect((await cli(["list", "--project", file])).err).toContain(`project root ${file} is a file, not a folder.`);
    // doctor counts a skills folder named that is none as a problem: exit 1, in text and JSON.
    const doctor = await cli(["doctor", "--skills-dir", missing]);
    expect(doctor.code).toBe(1);
    expect(doctor.out).toContain(`  problem: ${missing} was named as a skills folder and is not one.\n`);
    expect((await cli(["doctor", "--json", "--skills-dir", missing])).code).toBe(1);
  });

  test("doctor with no skill anywhere says where to put them", async () => {
    const { code, out } = await cli(["doctor", "--skills-dir", tempDir()]);
    expect(code).toBe(0);
    expect(out).toContain("Skills served: 0\n  Put skill folders (each with a SKILL.md) in one of the folders above");
    const served = await cli(["doctor", "--skills-dir", join(import.meta.dir, "../../skills-example")]);
    expect(served.out).not.toContain("Put skill folders");
  });

  test("help, as a command, prints the usage; a command option given to another command is refused", async () => {
    expect((await cli(["help"])).out).toContain("Usage:");
    const { code, err, out } = await cli(["list", "--limit", "3"]);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toContain("option --limit does not apply to list: list takes --json, --all, --skills-dir,");
  });

  test("a --skills-dir that is a file (a SKILL.md given for its folder) is named as such", async () => {
    const dir = tempDir();
    writeSkill(dir, "git", { description: "Git workflow" });
    const file = join(dir, "git", "SKILL.md");
    const list = await cli(["list", "--skills-dir", file]);
    expect(list.err).toContain(
      `skills folder ${file} is a file, not a folder: give the folder that holds the skill folders`,
    );
    const doctor = await cli(["doctor", "--skills-dir", file]);
    expect(doctor.out).toContain(`${file}  (a file, not a folder)`);
    expect(doctor.code).toBe(1);
  });

  test("a mistyped option suggests the closest one; a mistyped client too", async () => {
    for (const typo of ["--skill-dir", "--skills-dirs", "--skillsdir"]) {
      const { code, err } = await cli([typo, "x"]);
      expect(code).toBe(2);
      expect(err).toContain(`unknown option ${typo}. Did you mean --skills-dir?`);
    }
    expect((await cli(["--zzzzzzzz"])).err).not.toContain("Did you mean");
    // Never the opposite flag, nor a word that only shares letters.
    for (const typo of ["--watch", "--no-reindex", "--token"])
      expect((await cli([typo])).err, typo).not.toContain("Did you mean");
    // A negative value does not hide the real unknown option.
    const both = await cli(["search", "x", "--limit", "-10", "--jsn"]);
    expect(both.err).toContain("unknown option --jsn. Did you mean --json?");
    const client = await cli(["print-config", "cursr"]);
    expect(client.code).toBe(2);
    expect(client.err).toContain(`unknown client "cursr". Did you mean 'cursor'?`);
  });

  test("a negative number is an option's value, checked as any other; another dashed word is explained", async () => {
    const negative = await cli(["search", "pdf", "--limit", "-1"]);
    expect(negative.code).toBe(2);
    expect(negative.err).toContain("--limit -1: expected a whole number from 1 to 100.");
    const dashed = await cli(["search", "pdf", "--limit", "--json"]);
    expect(dashed.code).toBe(2);
    expect(dashed.err).toContain("option --limit needs a value, and the next word starts with '-'");
    expect(dashed.err).toContain("--limit=-value");
    expect(dashed.err).not.toContain("Did you forget");
  });

  test("each kind of argument error is one sentence in the house's words, exit 2", async () => {
    const cases: [string[], string][] = [
      [["list", "--json=foo"], "skillhub: option --json takes no value (got --json=foo).\n"],
      [["search", "pdf", "--limit"], "skillhub: option --limit needs a value.\n"],
      [["list", "--jsn"], "skillhub: unknown option --jsn. Did you mean --json?\n"],
    ];
    for (const [argv, first] of cases) {
      const result = await cli(argv);
      expect(result.code).toBe(2);
      expect(result.out).toBe("");
      expect(result.err).toStartWith(first);
      expect(result.err).not.toMatch(/Option '|argument/);
    }
  });

  test("doctor --json and validate --json use snake_case keys only", async () => {
    const dir = tempDir();
    writeSkill(dir, "git", { description: "Git workflow" });
    const keys = (value: unknown, into: string[] = []): string[] => {
      if (Array.isArray(value)) for (const v of value) keys(v, into);
      else if (typeof value === "object" && value !== null)
        for (const [k, v] of Object.entries(value)) {
          into.push(k);
          keys(v, into);
        }
      return into;
    };
    const doctor = JSON.parse((await cli(["doctor", "--json", "--skills-dir", dir])).out);
    const validate = JSON.parse((await cli(["validate", "--json", dir])).out);
    expect(Object.keys(doctor)).toContain("project_root");
    expect(Object.keys(doctor)).toContain("config_warnings");
    for (const key of [...keys(doctor), ...keys(validate)]) expect(key).toMatch(/^[a-z0-9_]+$/);
  });
});

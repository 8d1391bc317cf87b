import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { binOf, ensureNpmTool, npmToolInstalled, PINNED } from "../../scripts/npm-tools.ts";
import { CLAUDE_CODE_RESULT_CHARS } from "../../src/tools/support/result-budget.ts";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { png } from "../helpers/images.ts";
import { resultText, type Script, startModelApi, type ToolResultSeen } from "../helpers/model-api.ts";
import { writeNode } from "../helpers/tree.ts";

/**
 * The real Claude Code CLI (pinned, in .tools/) against the compiled binary
 * over stdio, its model replaced by a scripted stand-in for the Messages API
 * (test/helpers/model-api.ts): what each SkillHub tool result looks like when
 * it reaches the model. Runs when the CLI is in .tools/, or under `make
 * conformance` (SKILLHUB_NPM_TOOLS=1), which installs it from the npm
 * registry; skipped with one line saying why otherwise.
 */
afterAll(cleanupTemp);

const ROOT = join(import.meta.dir, "..", "..");
const CLAUDE_API = join(ROOT, "..", "shared", "corpora", "anthropics-skills", "skills", "claude-api", "SKILL.md");

/** The CLI, installed when allowed; undefined (with the reason printed once) when it cannot be had. */
function claudeCli(): string | undefined {
  const { name, version } = PINNED.claudeCode;
  if (!npmToolInstalled(name, version) && process.env.SKILLHUB_NPM_TOOLS !== "1") {
    process.stderr.write(
      `skipping the Claude Code result tests: ${name}@${version} is not in .tools/ (make conformance installs it)\n`,
    );
    return undefined;
  }
  try {
    return binOf(ensureNpmTool(name, version), "claude");
  } catch (error) {
    process.stderr.write(`skipping the Claude Code result tests: ${(error as Error).message}\n`);
    return undefined;
  }
}

const cli = claudeCli();

/** What the stand-in model saw of each tool call, after Claude Code ran it; `args` and `env` are the server's. */
async function runClaude(
  script: Script,
  skills: string,
  { args = [], env = {} }: { args?: string[]; env?: Record<string, string> } = {},
): Promise<ToolResultSeen[]> {
  const model = startModelApi(script);
  const home = tempDir("skillhub-claude-home-");
  const project = tempDir("skillhub-claude-project-");
  const config = write(
    join(home, "mcp.json"),
    JSON.stringify({
      mcpServers: {
        skillhub: {
          type: "stdio",
          command: binary(),
          args: ["--skills-dir", skills, "--no-watch", ...args],
          env: { HOME: home, ...env },
        },
      },
    }),
  );
  try {
    const run = Bun.spawn(
      [
        cli as string,
        "-p",
        "Use the skills you find.",
        "--mcp-config",
        config,
        "--strict-mcp-config",
        "--allowedTools",
        "mcp__skillhub",
        "--output-format",
        "json",
      ],
      {
        cwd: project,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: "sk-stand-in",
          DISABLE_TELEMETRY: "1",
          DISABLE_AUTOUPDATER: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [out, err, code] = await Promise.all([
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
      run.exited,
    ]);
    expect(code, `claude exited ${code}\n${out}\n${err}`).toBe(0);
    return model.results();
  } finally {
    model.stop();
  }
}

const call = (name: string, input: Record<string, unknown>) => ({ name: `mcp__skillhub__${name}`, input });
const PERSISTED = /Output too large|persisted-output/;

describe.skipIf(cli === undefined)("what reaches Claude Code's model (its real CLI, a stand-in model API)", () => {
  test("a 74 KB SKILL.md: tool schemas through ToolSearch, search_skills whole, the skill in parts that add up to the file", async () => {
    const skills = tempDir("skillhub-claude-skills-");
    const original = existsSync(CLAUDE_API)
      ? readFileSync(CLAUDE_API, "utf8")
      : // Without the shared corpora: a file of the same size and shape.
        `---\nname: claude-api\ndescription: Reference for the Claude API and SDKs\n---\n\n${"## Section\n\nA paragraph of API guidance, with `code` and a list:\n- one item\n- another item\n\n".repeat(900)}`;
    write(join(skills, "claude-api", "SKILL.md"), original);
    const script: Script = (results) => {
      if (results.length === 0)
        return {
          name: "ToolSearch",
          input: { query: "select:mcp__skillhub__search_skills,mcp__skillhub__skill,mcp__skillhub__read_skill_file" },
        };
      if (results.length === 1) return call("search_skills", { query: "claude api anthropic sdk" });
      if (results.length === 2) return call("skill", { name: "claude-api" });
      // Read on as the last answer says: the skill's line, then each part's next_offset.
      const last = resultText(results.at(-1) as ToolResultSeen);
      const offset = /offset (\d+)\)/.exec(last)?.[1] ?? /"next_offset":(\d+)/.exec(last)?.[1];
      return offset === undefined
        ? undefined
        : call("read_skill_file", { skill_name: "claude-api", file_path: "SKILL.md", offset: Number(offset) });
    };
    const results = await runClaude(script, skills);
    const texts = results.map(resultText);
    // ToolSearch loaded the deferred schemas by reference.
    expect(texts[0]).toContain("mcp__skillhub__skill");
    for (const text of texts) expect(text).not.toMatch(PERSISTED);
    expect(JSON.parse(texts[1] as string).skills[0].name).toBe("claude-api");
    const skill = results[2] as ToolResultSeen;
    const items = (skill.content as Array<{ text: string }>).map((b) => b.text);
    expect(items.join("").length).toBeLessThanOrEqual(CLAUDE_CODE_RESULT_CHARS);
    const [first = ""] = items;
    expect(first).toContain("[SkillHub: this is the first part of claude-api's SKILL.md");
    // The parts add up to the file, byte for byte.
    const head = first.slice(first.indexOf("\n\n") + 2, first.lastIndexOf("\n[SkillHub:"));
    const rest = texts.slice(3).map((t) => JSON.parse(t).content as string);
    expect(rest.length).toBeGreaterThan(0);
    expect(head + rest.join("")).toBe(original);
  }, 240_000);

  test("a skill's PNGs, read whole: the model is handed each as an image, with no base64 beside it", async () => {
    const skills = tempDir("skillhub-claude-image-");
    // A screenshot of about 300 KB, and one of about 900 KB: over the 500 KB Claude Code sends as they are.
    const screen = png(316, 316);
    const large = png(548, 548);
    write(join(skills, "brand", "SKILL.md"), "---\nname: brand\ndescription: Brand assets\n---\n\nSee images/.\n");
    write(join(skills, "brand", "images", "screen.png"), screen);
    write(join(skills, "brand", "images", "large.png"), large);
    const script: Script = (results) =>
      [
        { name: "ToolSearch", input: { query: "select:mcp__skillhub__read_skill_file" } },
        call("read_skill_file", { skill_name: "brand", file_path: "images/screen.png" }),
        call("read_skill_file", { skill_name: "brand", file_path: "images/large.png" }),
      ][results.length];
    const [, ...reads] = await runClaude(script, skills);
    type Block = { type: string; text?: string; source?: { media_type?: string; data?: string } };
    const [seen, seenLarge] = reads.map((r) => {
      const blocks = r.content as Block[];
      const texts = blocks.filter((b) => b.type === "text").map((b) => b.text ?? "");
      return { images: blocks.filter((b) => b.type === "image"), texts };
    });
    // The image, byte for byte; beside it Claude Code's line naming where it saved it, and the JSON of the
    // structured content (SkillHub's text dropped), which holds none of the image's bytes.
    expect(seen?.images.map((b) => b.source?.media_type)).toEqual(["image/png"]);
    expect(seen?.images[0]?.source?.data).toBe(screen.toString("base64"));
    const json = seen?.texts.find((t) => t.startsWith("{")) ?? "{}";
    expect(JSON.parse(json)).toMatchObject({ content: "", truncated: true, size_bytes: screen.length, next_offset: 0 });
    // The note that the image was sent as one reaches the model, so that it does not read the base64 too.
    expect(JSON.parse(json).note).toContain("sent as an image; read it from offset 0 only to save the file");
    expect(seen?.texts.join("").length).toBeLessThan(1000);
    // Over 500 KB Claude Code sends its model a smaller copy it encodes itself: an image still.
    expect(seenLarge?.images).toHaveLength(1);
    expect(seenLarge?.images[0]?.source?.data?.length).toBeLessThan(large.toString("base64").length);
    expect(seenLarge?.texts.join("").length).toBeLessThan(1000);
  }, 240_000);

  test("the measured budget: a result of exactly 50,000 characters reaches the model whole, one more does not", async () => {
    const skills = tempDir("skillhub-claude-edge-");
    const command = (name: string) => `<command-message>The "${name}" skill is loading</command-message>`;
    // The whole answer, both text items, at exactly `total` characters (the server told not to cut).
    const sized = (name: string, total: number) => {
      const head = `Loading: ${name}\nBase directory: ${join(skills, name)}\n\n`;
      const front = `---\nname: ${name}\ndescription: A skill of a measured size\n---\n\n`;
      const room = total - head.length - command(name).length - front.length;
      write(
        join(skills, name, "SKILL.md"),
        front + `${"x".repeat(79)}\n`.repeat(Math.floor(room / 80)) + "y".repeat(room % 80),
      );
    };
    sized("edge-at", CLAUDE_CODE_RESULT_CHARS);
    sized("edge-over", CLAUDE_CODE_RESULT_CHARS + 1);
    const script: Script = (results) =>
      [
        { name: "ToolSearch", input: { query: "select:mcp__skillhub__skill" } },
        call("skill", { name: "edge-at" }),
        call("skill", { name: "edge-over" }),
      ][results.length];
    const results = await runClaude(script, skills, { env: { SKILLHUB_RESULT_BUDGET: "1000000" } });
    const [at, over] = results.slice(1).map(resultText);
    expect(at).not.toMatch(PERSISTED);
    expect(at?.length).toBe(CLAUDE_CODE_RESULT_CHARS);
    expect(over).toMatch(PERSISTED);
  }, 240_000);

  test("every hint reaches the model: a success as the JSON of its structured content (its text dropped), an error as its text", async () => {
    const skills = tempDir("skillhub-claude-hints-");
    write(
      join(skills, "pdf-tools", "SKILL.md"),
      `---\nname: pdf-tools\ndescription: Extract tables and text from PDF files\n---\n\n${"Read reference/api.md for the table options, one line at a time.\n".repeat(200)}`,
    );
    write(join(skills, "pdf-tools", "reference", "api.md"), `# API\n\n${"A line of the reference.\n".repeat(50)}`);
    writeNode(skills, "brand.md", {
      keywords: ["brand", "logo"],
      extra: ["assets:", "  - file: assets/logo.png", "    description: The logo", "    type: image"].join("\n"),
    });
    write(join(skills, "brand", "assets", "logo.png"), png(3, 2));
    const calls = [
      call("search_skills", { query: "extract tables from pdf files" }),
      call("load_skill", { skill_name: "pdf-tool" }),
      call("load_skill", { skill_name: "pdf-tools" }),
      call("read_skill_file", { skill_name: "pdf-tools", file_path: "reference/api.md", length: 60 }),
      call("read_skill_file", { skill_name: "pdf-tools", file_path: "API.md" }),
      call("skill", { name: "pdf-tool" }),
      call("get_skill", { context: "nothing fits this context" }),
      call("list_skills", { flat: true, limit: 1 }),
      call("get_asset", { skill_path: "brand", file: "assets/nope.png" }),
      call("run_skill_command", { skill_name: "pdf-tools", command: "rm", args: ["x"] }),
    ];
    const select = `select:${[...new Set(calls.map((c) => c.name))].join(",")}`;
    const script: Script = (results) =>
      results.length === 0 ? { name: "ToolSearch", input: { query: select } } : calls[results.length - 1];
    const results = await runClaude(script, skills, {
      args: ["--tools", "all", "--enable-commands"],
      // A small budget, so that load_skill answers in parts, its first with the line on how to read the rest.
      env: { SKILLHUB_RESULT_BUDGET: "4000" },
    });
    const [search, missed, loaded, part, missedFile, skillMissed, noMatch, page, asset, command] = results
      .slice(1)
      .map((r) => ({ error: r.is_error === true, text: resultText(r) }));
    const json = (seen: { text: string } | undefined) => JSON.parse(seen?.text ?? "");
    // A success: the structured content, as compact JSON (SkillHub's text is the same JSON, indented).
    expect(search?.error).toBe(false);
    expect(search?.text).toBe(JSON.stringify(json(search)));
    expect(json(search).skills[0].matched).toContain("tables");
    expect(json(loaded).instructions).toContain("[SkillHub: this is the first part of pdf-tools's SKILL.md");
    expect(json(part)).toMatchObject({ truncated: true, next_offset: 60 });
    expect(json(noMatch).hint).toContain("search_skills");
    expect(json(page).message).toContain('call list_skills again with cursor "1"');
    // An error: its text, whole (the structured content is dropped).
    expect(missed).toEqual({
      error: true,
      text: "SKILL_NOT_FOUND: No skill named 'pdf-tool'. Did you mean 'pdf-tools'? Use search_skills to find skills by topic.",
    });
    expect(missedFile?.error).toBe(true);
    expect(missedFile?.text).toContain("Did you mean 'reference/api.md'?");
    expect(skillMissed?.error).toBe(true);
    expect(skillMissed?.text).toContain("Available skills:\n- pdf-tools: Extract tables and text from PDF files");
    expect(asset?.error).toBe(true);
    expect(json(asset).error.message).toContain("Declared files: assets/logo.png");
    expect(command?.error).toBe(true);
    expect(command?.text).toStartWith("COMMAND_NOT_ALLOWED: Command 'rm' is not allowed on this server.");
  }, 240_000);
});

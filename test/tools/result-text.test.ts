import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { type CallToolResult, sessions, textOf } from "../helpers/hub.ts";
import { png } from "../helpers/images.ts";
import { writeScriptTree } from "../helpers/scripts.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const open = sessions();

// Claude Code hands its model the JSON of a success's structured content in place of its text, and an
// error's text alone (test/e2e/claude-code-results.test.ts measures it). So every note, hint and
// continuation line of a success must be in its structured content, and every error's text must hold its
// whole message. The sk tools' summary lines (their contract: a readable line, the data in the structured
// content) and read_skill_file's line before an image (its structured content says the same: where its
// bytes are, next_offset 0) are the texts that are not the JSON; each tool's own tests pin those.

/** Tools with an output schema, run_skill_command enabled. */
const TOOLS =
  "search_skills,load_skill,read_skill_file,list_skills,get_skill,get_asset,run_script,run_skill_command,report_usage,refresh_skills";

function skills(): string {
  const dir = writeScriptTree(tempDir("skillhub-result-text-"));
  writeSkill(dir, "pdf-tools", {
    description: "Extract tables and text from PDF files",
    body: `# PDF tables\n\n${"Read reference/api.md for the table options, one line at a time.\n".repeat(200)}`,
  });
  write(join(dir, "pdf-tools", "reference", "api.md"), `# API\n\n${"A line of the reference.\n".repeat(50)}`);
  writeNode(dir, "brand.md", {
    keywords: ["brand", "logo"],
    extra: ["assets:", "  - file: assets/logo.png", "    description: The logo", "    type: image"].join("\n"),
  });
  write(join(dir, "brand", "assets", "logo.png"), png(3, 2));
  return dir;
}

/** Each answer: what a model reading the structured content of a success, or the text of an error, misses. */
function missing(result: CallToolResult): string | undefined {
  const text = textOf(result);
  if (result.isError) {
    const { message } = (result.structuredContent as { error: { message: string } }).error;
    return text.includes(message) ? undefined : `error text without its message: ${text}`;
  }
  try {
    return Bun.deepEquals(JSON.parse(text), result.structuredContent) ? undefined : `text differs: ${text}`;
  } catch {
    return `text is not the structured content's JSON: ${text}`;
  }
}

describe("what a model reads of an answer is the whole answer", () => {
  test("each success, notice and error of every tool with an output schema: the text is the structured content's JSON, an error's holds its message", async () => {
    const { call } = await open({
      flags: { "skills-dir": [skills()] },
      // A small budget, so that load_skill and read_skill_file answer in parts, with their continuation.
      env: { SKILLHUB_TOOLS: TOOLS, SKILLHUB_ENABLE_COMMANDS: "1", SKILLHUB_RESULT_BUDGET: "4000" },
    });
    const answers: Array<[string, Record<string, unknown>]> = [
      ["search_skills", { query: "extract tables from pdf files" }],
      ["search_skills", { query: "zzqx qqzx" }],
      ["search_skills", { query: "   " }],
      ["load_skill", { skill_name: "pdf-tools" }],
      ["load_skill", { skill_name: "pdf-tool" }],
      ["read_skill_file", { skill_name: "pdf-tools", file_path: "reference/api.md", length: 60 }],
      ["read_skill_file", { skill_name: "pdf-tools", file_path: "API.md" }],
      ["read_skill_file", { skill_name: "pdf-tools", file_path: "reference/api.md", offset: 99_999 }],
      ["list_skills", {}],
      ["list_skills", { flat: true, limit: 1 }],
      ["list_skills", { path: "nowhere" }],
      ["list_skills", { flat: true, cursor: "x" }],
      ["get_skill", { context: "echo arguments" }],
      ["get_skill", { context: "nothing fits this context" }],
      ["get_asset", { skill_path: "brand", file: "assets/logo.png" }],
      ["get_asset", { skill_path: "brand", file: "assets/nope.png" }],
      ["run_script", { skill_path: "tools/echo", file: "scripts/args.sh", args: { name: "x" } }],
      ["run_script", { skill_path: "tools/echo", file: "scripts/undeclared.sh" }],
      ["run_skill_command", { skill_name: "pdf-tools", command: "ls", args: ["reference"] }],
      ["run_skill_command", { skill_name: "pdf-tools", command: "rm", args: ["x"] }],
      ["report_usage", { skill_path: "pdf-tools", useful: true }],
      ["report_usage", { skill_path: "no-such-skill", useful: false }],
      ["refresh_skills", {}],
    ];
    const results = await Promise.all(answers.map(([tool, args]) => call(tool, args)));
    const problems = results.flatMap((result, i) => {
      const problem = missing(result);
      return problem ? [`${JSON.stringify(answers[i])}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
    // The answers are the ones meant: successes and errors both, and the hints among them.
    expect(results.map((r) => r.isError === true)).toEqual([
      false,
      false,
      true,
      false,
      true,
      false,
      true,
      true,
      false,
      false,
      true,
      true,
      false,
      false,
      false,
      true,
      false,
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
    const structured = (i: number) => JSON.stringify(results[i]?.structuredContent);
    expect(structured(0)).toContain('"matched":');
    expect(structured(3)).toContain("[SkillHub: this is the first part of pdf-tools's SKILL.md");
    expect(structured(5)).toContain('"next_offset":60');
    expect(textOf(results[6] as CallToolResult)).toContain("Did you mean 'reference/api.md'?");
    expect(structured(9)).toContain('call list_skills again with cursor \\"1\\"');
    expect(structured(13)).toContain('"hint":');
  });
});

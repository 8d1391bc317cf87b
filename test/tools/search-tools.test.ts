import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { MAX_QUERY_CHARS, processedTermCount } from "../../src/search/text.ts";
import { BODIES_MAX_CHARS } from "../../src/tools/skills-list.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { sessions, textOf } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

function skills() {
  const dir = tempDir();
  writeSkill(dir, "pdf-invoice-extractor", {
    description: "Extract invoice numbers and totals from invoice PDFs.",
    extra: "metadata:\n  skillhub:\n    category: Documents\n    tags: [pdf, invoice]",
    body: `# PDF invoices\n\n${"Background text. ".repeat(20)}Run scripts/extract.py on the PDF to get the invoice number.\n`,
  });
  writeSkill(dir, "postgres-query-tuning", {
    description: "Speed up slow PostgreSQL queries with EXPLAIN.",
    extra: "metadata:\n  skillhub:\n    category: databases",
  });
  writeSkill(dir, "git-commit-messages", {
    description: "Write commit messages.",
    extra: "metadata:\n  skillhub:\n    category: development",
  });
  write(join(dir, "pdf-invoice-extractor", "templates", "invoice.txt"), "invoice_number:\n");
  write(join(dir, "pdf-invoice-extractor", "scripts", "extract.py"), "print('x')\n");
  writeSkill(dir, "pdf-invoice-extractor/nested-helper", { description: "A nested skill of its own." });
  return dir;
}

type Hit = { name: string; excerpt?: string; matched?: string };

/** search_skills' hits for `query`. */
async function hitsFor(
  call: (tool: string, args: Record<string, unknown>) => Promise<{ structuredContent?: unknown }>,
  query: string,
) {
  return ((await call("search_skills", { query })).structuredContent as { skills: Hit[] }).skills;
}

describe("search_skills", () => {
  test("the documented result shape plus category, tags, location and an excerpt", async () => {
    const { call } = await open({ flags: { "skills-dir": [skills()] } });
    const result = await call("search_skills", { query: "get the invoice number out of a PDF" });
    const { skills: hits } = result.structuredContent as { skills: Record<string, unknown>[] };
    expect(hits[0]).toMatchObject({
      name: "pdf-invoice-extractor",
      description: "Extract invoice numbers and totals from invoice PDFs.",
      category: "documents",
      tags: ["pdf", "invoice"],
      location: "global",
    });
    expect(hits[0]?.score).toBeGreaterThan(0.5);
    expect(hits[0]?.score).toBeLessThanOrEqual(1);
    expect(String(hits[0]?.excerpt)).toContain("invoice number");
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent as object);
  });

  test("a request in Japanese finds a skill described in Japanese, written without spaces", async () => {
    const dir = skills();
    writeSkill(dir, "invoice-jp", {
      description: "請求書のPDFから金額と日付を抽出してJSONにまとめる。",
      body: "# 請求書\n\nPDFの請求書を読み取り、支払期日と合計金額を取り出します。\n",
    });
    writeSkill(dir, "minutes-jp", { description: "会議の議事録からプレゼン資料を作成する。" });
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    for (const [query, name] of [
      ["請求書から金額を取り出したい", "invoice-jp"],
      ["支払期日", "invoice-jp"],
      ["議事録をもとにプレゼン資料を作りたい", "minutes-jp"],
    ]) {
      expect((await hitsFor(call, query as string))[0]?.name).toBe(name as string);
    }
    const hits = await hitsFor(call, "支払期日");
    expect(hits[0]?.excerpt).toContain("支払期日");
    expect(hits[0]?.matched).toContain("支払期日");
  });

  test("a query of one CJK character finds the words it is part of; full-width letters and digits are ASCII ones", async () => {
    const dir = skills();
    writeSkill(dir, "charts-zh", { description: "从图表中提取数据并生成报告。" });
    writeSkill(dir, "reading-ko", { description: "책을 읽고 요약합니다." });
    writeSkill(dir, "invoice-jp", {
      description: "ＰＤＦの請求書から金額を抽出する。",
      body: "# 請求書\n\n２０２４年度の請求書を読み取ります。\n",
    });
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    for (const [query, name] of [
      ["图", "charts-zh"],
      // The second character of a pair too.
      ["表", "charts-zh"],
      ["책", "reading-ko"],
      ["2024", "invoice-jp"],
    ]) {
      expect((await hitsFor(call, query as string))[0]?.name).toBe(name as string);
    }
    // A longer CJK query is still read as pairs: one shared character does not make a hit.
    expect((await hitsFor(call, "图书馆")).map((hit) => hit.name)).not.toContain("charts-zh");
    const pdf = (await hitsFor(call, "PDF")).find((hit) => hit.name === "invoice-jp");
    expect(pdf?.matched).toBe("description: PDF");
    const year = (await hitsFor(call, "2024"))[0];
    expect(year?.excerpt).toContain("２０２４年度");
    expect(year?.matched).toBe("text: 2024");
  });

  test("a word written between CJK characters counts where it is, as the engine matched it", async () => {
    const dir = skills();
    writeSkill(dir, "invoice-jp", {
      description: "請求書のPDFから金額と日付を抽出してJSONとMarkdownにまとめる。",
      body: "# 請求書\n\n請求書を読み取り、支払期日と合計金額を取り出します。\n",
    });
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    for (const [query, matched] of [
      ["JSON", "description: JSON"],
      ["PDF", "description: PDF"],
      // Long enough for typo matching, where each word of the field is read.
      ["Markdown", "description: Markdown"],
    ]) {
      const hits = await hitsFor(call, query as string);
      expect(hits.find((hit) => hit.name === "invoice-jp")?.matched).toBe(matched as string);
    }
  });

  test("each hit says why it matched: the query's words as typed, by where the skill has them", async () => {
    const { call } = await open({ flags: { "skills-dir": [skills()] } });
    const result = await call("search_skills", { query: "Run the extract script on scanned PDFs for Invoice numbers" });
    const { skills: hits } = result.structuredContent as { skills: { name: string; matched?: string }[] };
    expect(hits[0]).toMatchObject({
      name: "pdf-invoice-extractor",
      // "PDFs" and "extract" are in the name too (its words, stemmed); "Run" and "script" only in the body.
      matched:
        "name: extract, PDFs, Invoice; description: extract, PDFs, Invoice, numbers; tags: PDFs, Invoice; text: Run, script",
    });
    // A prefix of a name's word counts where it matched, as the engine matched it.
    const prefix = await call("search_skills", { query: "postgr" });
    expect((prefix.structuredContent as { skills: { matched?: string }[] }).skills[0]?.matched).toBe(
      "name: postgr; description: postgr",
    );
  });

  test("full bodies: a word near the end of a 200 KB SKILL.md finds it", async () => {
    const dir = tempDir();
    const filler = Array.from({ length: 4000 }, (_, i) => `Step ${i}: keep the usual settings.`).join("\n");
    writeSkill(dir, "field-manual", {
      description: "A long field manual",
      body: `# Manual\n\n${filler}\n\nLast of all, defrost the quokka enclosure.\n`,
    });
    writeSkill(dir, "other", { description: "Usual settings for everything" });
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    const result = await call("search_skills", { query: "quokka enclosure" });
    const { skills: hits } = result.structuredContent as { skills: { name: string; excerpt: string }[] };
    expect(hits.map((h) => h.name)).toEqual(["field-manual"]);
  });

  test("limit and category narrow the results; disabled skills never appear", async () => {
    const dir = skills();
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    const byCategory = await call("search_skills", { query: "slow queries invoice commit", category: "DATABASES" });
    expect((byCategory.structuredContent as { skills: { name: string }[] }).skills.map((s) => s.name)).toEqual([
      "postgres-query-tuning",
    ]);
    const limited = await call("search_skills", { query: "slow queries invoice commit", limit: 1 });
    expect((limited.structuredContent as { skills: unknown[] }).skills.length).toBe(1);
    const filtered = await open({
      flags: { "skills-dir": [dir] },
      env: { SKILLHUB_ENABLED_CATEGORIES: "development" },
    });
    const hits = await filtered.call("search_skills", { query: "slow queries invoice commit" });
    expect((hits.structuredContent as { skills: { name: string }[] }).skills.map((s) => s.name)).toEqual([
      "git-commit-messages",
    ]);
  });

  test("no results because nothing can match: no skill served, or a category no skill has, says so", async () => {
    const none = await open({ flags: { "skills-dir": [tempDir()] } });
    const empty = await none.call("search_skills", { query: "extract tables from a PDF" });
    expect((empty.structuredContent as { skills: unknown[] }).skills).toEqual([]);
    expect(empty.content[1]).toEqual({
      type: "text",
      text: "No skills are served here, so no search can find one: tell the user; `skillhub doctor` shows which folders are read.",
    });
    const { call } = await open({ flags: { "skills-dir": [skills()] } });
    const unknown = await call("search_skills", { query: "invoice", category: "Finance" });
    expect(textOf(unknown)).toContain(
      "No skill is in category 'finance'. Categories: databases, development, documents; or search again without category.",
    );
    const missed = await call("search_skills", { query: "zebra quokka", category: "databases" });
    expect((missed.structuredContent as { skills: unknown[] }).skills).toEqual([]);
    expect(missed.content).toHaveLength(1);
  });

  test("SEARCH_LIMIT is the default limit", async () => {
    const dir = tempDir();
    for (let i = 0; i < 12; i++) writeSkill(dir, `widget-${i}`, { description: "widget tools" });
    const { call } = await open({ flags: { "skills-dir": [dir] }, env: { SEARCH_LIMIT: "3" } });
    expect(
      ((await call("search_skills", { query: "widget" })).structuredContent as { skills: unknown[] }).skills.length,
    ).toBe(3);
  });

  test("an empty or blank query is INVALID_ARGUMENT", async () => {
    const { call } = await open({ flags: { "skills-dir": [skills()] } });
    for (const query of ["", "   \n"]) {
      const result = await call("search_skills", { query });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as { error: { code: string } }).error.code).toBe("INVALID_ARGUMENT");
    }
  });

  test("a query over 2,000 characters is INVALID_ARGUMENT, and says how long one may be", async () => {
    const { call } = await open({ flags: { "skills-dir": [skills()] } });
    // One long word: its fuzzy match would take memory in the square of its length.
    const result = await call("search_skills", { query: "x".repeat(MAX_QUERY_CHARS + 1) });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe("INVALID_ARGUMENT");
    expect(textOf(result)).toContain("query must be at most 2000 characters");
    const longest = `invoice pdf ${"x".repeat(MAX_QUERY_CHARS - 12)}`;
    expect((await call("search_skills", { query: longest })).isError).toBeFalsy();
  });

  test("words a client makes up are not remembered: searches keep the server's word memo as it was", async () => {
    const { call } = await open({ flags: { "skills-dir": [skills()] } });
    // The hits' words are met (and remembered) once; then only made-up words are new.
    const query = (word: string) => `invoice pdf ${word} ${word.repeat(40)}`;
    expect((await hitsFor(call, query("warmup")))[0]?.name).toBe("pdf-invoice-extractor");
    const before = processedTermCount();
    for (let i = 0; i < 200; i++) await hitsFor(call, query(`madeup${i.toString(36)}x`));
    expect(processedTermCount()).toBe(before);
  });

  test("a skill added while running is searchable", async () => {
    const dir = skills();
    const { call, hub } = await open({ flags: { "skills-dir": [dir] } });
    writeSkill(dir, "kubernetes-debugging", { description: "Debug crashing Kubernetes pods." });
    await hub.refresher.rescan("test");
    const result = await call("search_skills", { query: "my pods keep crashing on kubernetes" });
    expect((result.structuredContent as { skills: { name: string }[] }).skills[0]?.name).toBe("kubernetes-debugging");
  });
});

describe("load_skill", () => {
  test("body without frontmatter, absolute path, and the file list without nested skills", async () => {
    const dir = skills();
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    const result = await call("load_skill", { skill_name: "PDF-Invoice-Extractor" });
    expect(result.structuredContent).toMatchObject({
      name: "pdf-invoice-extractor",
      path: join(dir, "pdf-invoice-extractor"),
      files: [
        { path: "scripts/extract.py", size: 11 },
        { path: "templates/invoice.txt", size: 16 },
      ],
    });
    const instructions = (result.structuredContent as { instructions: string }).instructions;
    expect(instructions.startsWith("# PDF invoices\n\n")).toBe(true);
    expect(instructions).not.toContain("description:");
  });

  test("the file list follows the folders as they are now, not as the last scan listed them", async () => {
    const dir = skills();
    const { call, hub } = await open({ flags: { "skills-dir": [dir] } });
    const folder = join(dir, "pdf-invoice-extractor");
    // The scan's listing of the skill folder and of scripts/ is used while their mtimes hold.
    expect([...(hub.knownEntries(folder) ?? [])].map((e) => e.name)).toContain("scripts");
    const files = async () =>
      ((await call("load_skill", { skill_name: "pdf-invoice-extractor" })).structuredContent as { files: unknown[] })
        .files;
    expect(await files()).toHaveLength(2);
    // Added after the scan, in the skill folder and in a subfolder; one removed: no rescan needed.
    write(join(folder, "README.txt"), "read me\n");
    write(join(folder, "scripts/helper.sh"), "echo hi\n");
    rmSync(join(folder, "templates/invoice.txt"));
    // Set apart from the scan's mtimes even where timestamps are coarse.
    for (const sub of ["", "scripts", "templates"]) utimesSync(join(folder, sub), 1, 1);
    expect(hub.knownEntries(folder)).toBeUndefined();
    expect(await files()).toEqual([
      { path: "README.txt", size: 8 },
      { path: "scripts/extract.py", size: 11 },
      { path: "scripts/helper.sh", size: 8 },
    ]);
  });

  test("unknown and disabled skills are errors with a code and a way forward", async () => {
    const dir = skills();
    const { call } = await open({
      flags: { "skills-dir": [dir] },
      env: { SKILLHUB_ENABLED_SKILLS: "git-commit-messages" },
    });
    const unknown = await call("load_skill", { skill_name: "pdf-invoice" });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain("SKILL_NOT_FOUND");
    expect(textOf(unknown)).toContain("search_skills");
    const disabled = await call("load_skill", { skill_name: "pdf-invoice-extractor" });
    expect((disabled.structuredContent as { error: { code: string } }).error.code).toBe("SKILL_DISABLED");
    expect(textOf(disabled)).not.toContain("invoice number");
  });
});

describe("profile sk: skills.list and skills.search", () => {
  test("dotted tools only, with the sk profile's schemas", async () => {
    const { client } = await open({ flags: { "skills-dir": [skills()], tools: "sk" } });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["skills.list", "skills.search"]);
    expect(tools[0]?.inputSchema).toMatchObject({
      additionalProperties: false,
      properties: { query: { type: "string" }, includeBody: { type: "boolean" } },
    });
    expect(tools[1]?.inputSchema).toMatchObject({
      additionalProperties: false,
      required: ["query"],
      properties: {
        query: { type: "string", minLength: 1 },
        limit: { type: "integer", minimum: 1, maximum: 25, default: 10 },
      },
    });
  });

  test("skills.search: a query over 2,000 characters is INVALID_ARGUMENT", async () => {
    const { call } = await open({ flags: { "skills-dir": [skills()], tools: "sk" } });
    // Every token is looked for in every skill: a megabyte of "a a a …" ran for seconds per request.
    const result = await call("skills.search", { query: "a ".repeat(MAX_QUERY_CHARS / 2 + 1) });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("query must be at most 2000 characters");
    expect((await call("skills.search", { query: "a ".repeat(MAX_QUERY_CHARS / 2) })).isError).toBeFalsy();
  });

  test("skills.list: substring filter over install name, name and description; body on request", async () => {
    const dir = skills();
    const { call } = await open({ flags: { "skills-dir": [dir], tools: "sk", project: dir } });
    const all = await call("skills.list", {});
    const listed = (all.structuredContent as { skills: { installName: string }[] }).skills;
    expect(listed.map((s) => s.installName)).toEqual([
      "git-commit-messages",
      "pdf-invoice-extractor",
      "nested-helper",
      "postgres-query-tuning",
    ]);
    expect(textOf(all)).toStartWith("4 skills matched");
    const filtered = await call("skills.list", { query: "POSTGRESQL", includeBody: true });
    expect(filtered.structuredContent).toEqual({
      skills: [
        {
          installName: "postgres-query-tuning",
          meta: { name: "postgres-query-tuning", description: "Speed up slow PostgreSQL queries with EXPLAIN." },
          skillPath: "postgres-query-tuning",
          skillFile: "postgres-query-tuning/SKILL.md",
          body: "# postgres-query-tuning\n\nInstructions for postgres-query-tuning.\n",
        },
      ],
    });
  });

  test("skills.list: bodies past one answer's bound are left out, and the text says how to get them", async () => {
    const dir = tempDir();
    const bodyChars = 1_000_000;
    for (let i = 0; i < 10; i++) writeSkill(dir, `big-${i}`, { body: `${String(i).repeat(bodyChars - 1)}\n` });
    const { call } = await open({ flags: { "skills-dir": [dir], tools: "sk" } });
    const result = await call("skills.list", { includeBody: true });
    const listed = (result.structuredContent as { skills: { body?: string }[] }).skills;
    expect(listed).toHaveLength(10);
    const carried = listed.filter((s) => s.body !== undefined);
    expect(carried).toHaveLength(Math.floor(BODIES_MAX_CHARS / bodyChars));
    expect(carried.every((s) => s.body?.length === bodyChars)).toBe(true);
    expect(textOf(result)).toContain(
      `The bodies of 2 of them are left out (one answer carries at most ${BODIES_MAX_CHARS} characters of bodies): call again with a query that matches fewer skills.`,
    );
    const one = await call("skills.list", { query: "big-9", includeBody: true });
    expect((one.structuredContent as { skills: { body?: string }[] }).skills[0]?.body).toHaveLength(bodyChars);
  });

  test("skills.list: bodies count as the answer's JSON writes them, a backslash as two characters", async () => {
    const dir = tempDir();
    for (let i = 0; i < 10; i++) writeSkill(dir, `slashes-${i}`, { body: `${"\\".repeat(999_999)}\n` });
    const { call } = await open({ flags: { "skills-dir": [dir], tools: "sk" } });
    const result = await call("skills.list", { includeBody: true });
    const listed = (result.structuredContent as { skills: { body?: string }[] }).skills;
    expect(listed.filter((s) => s.body !== undefined)).toHaveLength(4);
    expect(textOf(result)).toContain("The bodies of 6 of them are left out");
  });

  test("skills.search: every token must be present; score = matched tokens; excerpt around the match", async () => {
    const { call } = await open({ flags: { "skills-dir": [skills()], tools: "sk" } });
    const result = await call("skills.search", { query: "invoice EXTRACT.PY" });
    expect(result.structuredContent).toMatchObject({ query: "invoice EXTRACT.PY", limit: 10, total: 1 });
    expect(textOf(result)).toStartWith('1 skill contains every token of "invoice EXTRACT.PY".\n');
    const hit = (result.structuredContent as { results: { meta: { name: string }; score: number; excerpt: string }[] })
      .results[0];
    expect(hit?.meta.name).toBe("pdf-invoice-extractor");
    expect(hit?.score).toBe(2);
    expect(hit?.excerpt.length).toBeLessThanOrEqual(162);
    const none = await call("skills.search", { query: "invoice kubernetes" });
    expect(none.structuredContent).toMatchObject({ total: 0, results: [] });
    expect(textOf(none)).toStartWith('0 skills contain every token of "invoice kubernetes".\n');
    const bad = await call("skills.search", { query: "x", limit: 26 });
    expect(bad.isError).toBe(true);
  });
});

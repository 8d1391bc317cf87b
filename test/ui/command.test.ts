import { afterAll, describe, expect, test } from "bun:test";
import { run } from "../../src/cli.ts";
import { uiCommand } from "../../src/commands/ui.ts";
import { parseCommandLine } from "../../src/config/args.ts";
import { resolveConfig } from "../../src/config/resolve.ts";
import { httpServeOptions } from "../../src/transports/http.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { freshBinary } from "./browser.ts";

afterAll(cleanupTemp);

describe("skillhub ui", () => {
  test("the binary prints the page's URL on stdout, serves it, and stops on SIGTERM", async () => {
    const skills = tempDir("skillhub-ui-cmd-");
    const home = tempDir("skillhub-ui-cmd-home-");
    writeSkill(skills, "pdf-tools", { description: "Work with PDF files" });
    const proc = Bun.spawn([freshBinary(), "ui", "--skills-dir", skills, "--no-watch"], {
      env: { PATH: process.env.PATH ?? "", HOME: home },
      cwd: home,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = proc.stdout.getReader();
    let out = "";
    while (!/\n/.test(out)) {
      const { done, value } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    const url = /^SkillHub page: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out)?.[1];
    expect(url).toBeDefined();
    const page = await fetch(url as string);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<title>SkillHub</title>");
    const list = (await (await fetch(`${url}ui/api/skills`)).json()) as { items: { name: string }[] };
    expect(list.items.map((s) => s.name)).toEqual(["pdf-tools"]);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  });

  test("the page's server takes the HTTP settings serve takes: session idle time, token, origins", () => {
    const home = tempDir("skillhub-ui-settings-");
    const env = {
      SKILLHUB_SESSION_IDLE_MINUTES: "5",
      SKILLHUB_HTTP_TOKEN: "page-token",
      SKILLHUB_ALLOWED_ORIGINS: "https://tools.example.com",
    };
    const { config } = resolveConfig({ env, flags: {}, homeDir: home, cwd: home });
    expect(httpServeOptions(config.server)).toMatchObject({
      sessionIdleMinutes: 5,
      token: "page-token",
      allowedOrigins: ["https://tools.example.com"],
    });
  });

  test("--open hands the URL to the browser opener; a stray argument is a usage error", async () => {
    const skills = tempDir("skillhub-ui-open-");
    const home = tempDir("skillhub-ui-open-home-");
    writeSkill(skills, "git-helper");
    const args = parseCommandLine(["ui", "--open", "--skills-dir", skills, "--no-watch"]);
    const { config } = resolveConfig({ env: {}, flags: args.flags, homeDir: home, cwd: home });
    const opened: string[] = [];
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const out: string[] = [];
    const code = uiCommand({
      open: (url) => opened.push(url),
      signals: [],
      until,
      onListening: () => stop(),
    })({
      args,
      config,
      configWarnings: [],
      env: {},
      homeDir: home,
      cwd: home,
      logger: createMemoryLogger(),
      out: (t) => out.push(t),
      err: () => undefined,
    });
    expect(await code).toBe(0);
    expect(opened).toHaveLength(1);
    expect(out.join("")).toBe(`SkillHub page: ${opened[0]}\n`);
    const errors: string[] = [];
    expect(await run(["ui", "stray"], {}, { out: () => undefined, err: (t) => errors.push(t), cwd: home })).toBe(2);
    expect(errors.join("")).toContain("unexpected argument 'stray' for ui");
  });
});

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { clientsBlock, PLACEHOLDER, README, readmeBlock } from "../../scripts/readme-clients.ts";
import { CLIENTS, stdioSnippets } from "../../src/commands/client-configs.ts";
import { TOOLS } from "../../src/tools/index.ts";

const readme = () => readFileSync(README, "utf8");

describe("README", () => {
  test('"Connect your client" is what scripts/readme-clients.ts generates (run `make readme` to update it)', () => {
    expect(readmeBlock(readme())).toBe(clientsBlock());
  });

  test("the generated block holds every client's print-config snippet verbatim", () => {
    const block = clientsBlock();
    for (const client of CLIENTS) {
      expect(block).toContain(`skillhub print-config ${client}`);
      for (const snippet of stdioSnippets(client, { command: PLACEHOLDER, args: [] }))
        expect(block).toContain(snippet.text);
    }
  });

  test("a stale block is noticed", () => {
    const text = readme().replace('"command": "/absolute/path/to/skillhub"', '"command": "/old/path/skillhub"');
    expect(readmeBlock(text)).not.toBe(clientsBlock());
  });

  test("builds from source and connects a client first; says plainly below that no channel is published yet", () => {
    const text = readme();
    const install = text.slice(text.indexOf("## Install"), text.indexOf("## Connect your client"));
    expect(install).toContain("make build");
    const at = text.indexOf("## Release channels (not published yet)");
    expect(at).toBeGreaterThan(text.indexOf("## Connect your client"));
    const channels = text.slice(at, text.indexOf("\n## ", at + 3));
    expect(channels).toContain("Nothing has been published yet");
    expect(channels).toContain("releases/latest/download/install.sh | sh");
    expect(channels).toContain("releases/latest/download/install.ps1 | iex");
    expect(channels).toContain("brew install skillhub-dev/tap/skillhub");
    expect(channels).toContain("HOMEBREW_TAP_TOKEN");
    expect(channels).toContain("npx -y skillhub");
    expect(channels).toContain("NPM_TOKEN");
    // The workflow publishes the tap and npm only with those secrets: the README must not promise more.
    const workflow = readFileSync(join(import.meta.dir, "../../.github/workflows/release.yml"), "utf8");
    expect(workflow).toContain("if: env.HAS_TAP_TOKEN == 'true'");
    expect(workflow).toContain("if: env.HAS_NPM_TOKEN == 'true'");
  });

  test("docs/install.md keeps the details: checksums, install options, macOS signing", () => {
    const text = readFileSync(join(import.meta.dir, "../../docs/install.md"), "utf8");
    expect(text).toContain("SHA256SUMS");
    expect(text).toContain("INSTALL_DIR");
    expect(text).toContain("SKILLHUB_DOWNLOAD_URL");
    expect(text).toContain("codesign --force --sign -");
    expect(text).toContain("Formula/skillhub.rb");
  });

  test("starts with what SkillHub is and the two commands", () => {
    const text = readme();
    expect(text.indexOf("make run")).toBeLessThan(text.indexOf("## Install"));
    expect(text.indexOf("make test")).toBeLessThan(text.indexOf("## Install"));
  });

  test("the tools table names every tool the server offers", () => {
    const text = readme();
    const table = text.slice(text.indexOf("## Tools"), text.indexOf("## ", text.indexOf("## Tools") + 3));
    for (const name of TOOLS.keys()) expect(table).toContain(`\`${name}\``);
  });
});

describe("CHANGELOG.md", () => {
  const changelog = () => readFileSync(join(import.meta.dir, "../../CHANGELOG.md"), "utf8");

  test("Keep a Changelog layout: Unreleased on top, then dated releases, the current version among them", () => {
    const headings = [...changelog().matchAll(/^## (.+)$/gm)].map((m) => m[1] ?? "");
    expect(headings[0]).toBe("[Unreleased]");
    for (const h of headings.slice(1)) expect(h).toMatch(/^\[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}$/);
    expect(headings.slice(1).some((h) => h.startsWith(`[${pkg.version}] - `))).toBe(true);
  });

  test("the release workflow finds the version's notes", () => {
    // The same extraction as .github/workflows/release.yml's "Release notes" step.
    const lines = changelog().split("\n");
    const start = lines.findIndex((l) => l.startsWith(`## [${pkg.version}]`));
    const end = lines.findIndex((l, i) => i > start && l.startsWith("## "));
    const notes = lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
    expect(start).toBeGreaterThan(0);
    expect(notes).toContain("### Added");
  });
});

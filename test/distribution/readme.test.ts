import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { clientsBlock, PLACEHOLDER, README, readmeBlock } from "../../scripts/readme-clients.ts";
import { CLIENTS, stdioSnippets } from "../../src/commands/client-configs.ts";

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

  test("documents Homebrew, the install scripts, direct download and macOS signing", () => {
    const text = readme();
    expect(text).toContain("## Install");
    expect(text).toContain("brew install skillhub-dev/tap/skillhub");
    expect(text).toContain("Formula/skillhub.rb");
    expect(text).toContain("releases/latest/download/install.sh | sh");
    expect(text).toContain("releases/latest/download/install.ps1 | iex");
    expect(text).toContain("codesign --force --sign -");
    expect(text).toContain("## Connect your client");
    expect(text).not.toContain("<!-- section:install -->");
  });
});

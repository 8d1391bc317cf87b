/**
 * `make client-packages`: the files MCP clients install SkillHub from, out of this repository, all
 * at package.json's version:
 *   .claude-plugin/marketplace.json              Claude Code: /plugin marketplace add skillhub-dev/skillhub
 *   packaging/claude-plugin/                     the plugin itself: /plugin install skillhub@skillhub
 *   gemini-extension.json                        gemini extensions install https://github.com/skillhub-dev/skillhub
 * Both start packaging/claude-plugin/bin/skillhub, a launcher that runs the installed binary or
 * installs the plugin's release with the released install.sh (copied beside it), checksum first.
 * test/distribution fails when a file here is stale; `--write` brings them up to date.
 * Usage: bun scripts/client-packages.ts [--write]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { HOMEPAGE } from "./release/targets.ts";

const ROOT = join(import.meta.dir, "..");
/** The plugin's folder, relative to the repository root: what marketplace.json's `source` names. */
export const PLUGIN_DIR = "packaging/claude-plugin";
/** The launcher both clients start, relative to the plugin folder. */
export const LAUNCHER = "bin/skillhub";

const DESCRIPTION =
  "Every Agent Skill on this machine and in your team's git repositories, served over MCP: a short catalog, each skill loaded when it is needed.";
const AUTHOR = { name: "SkillHub contributors", url: HOMEPAGE };
const KEYWORDS = ["skills", "agent-skills", "mcp", "SKILL.md"];
/** Where the launcher's first start downloads the release from (GitHub releases redirect to the asset host). */
const DOWNLOAD_HOSTS = ["github.com", "objects.githubusercontent.com", "release-assets.githubusercontent.com"];

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Every generated file, by path from the repository root, at `version`. Pure but for reading install.sh. */
export function clientPackageFiles(version: string = pkg.version): Map<string, string> {
  const files = new Map<string, string>();
  files.set(
    ".claude-plugin/marketplace.json",
    json({
      name: "skillhub",
      owner: AUTHOR,
      metadata: { description: "SkillHub, the MCP server for Agent Skills, as a Claude Code plugin.", version },
      plugins: [
        {
          name: "skillhub",
          source: `./${PLUGIN_DIR}`,
          description: DESCRIPTION,
          version,
          author: AUTHOR,
          homepage: HOMEPAGE,
          repository: HOMEPAGE,
          license: "MIT",
          keywords: KEYWORDS,
          category: "productivity",
        },
      ],
    }),
  );
  files.set(
    `${PLUGIN_DIR}/.claude-plugin/plugin.json`,
    json({
      name: "skillhub",
      version,
      description: DESCRIPTION,
      author: AUTHOR,
      homepage: HOMEPAGE,
      repository: HOMEPAGE,
      license: "MIT",
      keywords: KEYWORDS,
      network: { hosts: DOWNLOAD_HOSTS },
    }),
  );
  files.set(
    `${PLUGIN_DIR}/.mcp.json`,
    json({ mcpServers: { skillhub: { command: `\${CLAUDE_PLUGIN_ROOT}/${LAUNCHER}`, args: ["serve"] } } }),
  );
  files.set(
    "gemini-extension.json",
    json({
      name: "skillhub",
      version,
      description: DESCRIPTION,
      mcpServers: {
        skillhub: {
          command: ["${extensionPath}", ...PLUGIN_DIR.split("/"), ...LAUNCHER.split("/")].join("${/}"),
          args: ["serve"],
        },
      },
    }),
  );
  files.set(`${PLUGIN_DIR}/scripts/install.sh`, readFileSync(join(ROOT, "install.sh"), "utf8"));
  const launcher = readFileSync(join(ROOT, PLUGIN_DIR, LAUNCHER), "utf8");
  files.set(`${PLUGIN_DIR}/${LAUNCHER}`, launcher.replace(/^version=.*$/m, `version=${version}`));
  return files;
}

/** The generated files whose content on disk differs (missing ones included). */
export function staleClientPackages(version: string = pkg.version): string[] {
  return [...clientPackageFiles(version)]
    .filter(([path, text]) => {
      try {
        return readFileSync(join(ROOT, path), "utf8") !== text;
      } catch {
        return true;
      }
    })
    .map(([path]) => path);
}

if (import.meta.main) {
  const stale = staleClientPackages();
  if (process.argv.includes("--write")) {
    const files = clientPackageFiles();
    for (const path of stale) writeFileSync(join(ROOT, path), files.get(path) as string);
    process.stdout.write(stale.length > 0 ? `updated ${stale.join(", ")}\n` : "client packages are up to date\n");
  } else if (stale.length > 0) {
    process.stderr.write(`stale: ${stale.join(", ")}; run make client-packages\n`);
    process.exit(1);
  }
}

/**
 * MCP Bundles (`.mcpb`, manifest 0.3): one per release target, for Claude Desktop's one-click
 * install. A bundle is a zip holding `manifest.json` and the target's binary under `server/`; the
 * manifest's `user_config` asks for the skills folders, a team repository and the tool profile, and
 * `mcp_config` hands them to the binary: the folders as `serve` arguments (a multiple-folder setting
 * expands to one argument each), the rest as the environment variables the binary reads. Zipped with
 * Info-ZIP like the Windows archive, with fixed times, so the same binary gives the same bundle.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { archiveStem, HOMEPAGE, type Target } from "./targets.ts";

/** Bundle file name: `skillhub-<version>-<target>.mcpb`, beside the target's archive. */
export const bundleName = (version: string, target: Target) => `${archiveStem(version, target)}.mcpb`;

/** The platform names MCPB's `compatibility.platforms` uses (Node's process.platform). */
const PLATFORM = { linux: "linux", darwin: "darwin", windows: "win32" } as const;

/** Where the binary sits inside the bundle. */
export const bundleBinary = (target: Target) => `server/skillhub${target.exe}`;

/** The tools a default (`auto`) server offers: listed for the install dialog; more may come at run time. */
const TOOLS = [
  { name: "skill", description: "Load a skill's instructions by name; its description lists the skills." },
  { name: "search_skills", description: "Search the skills by what they are for." },
  { name: "load_skill", description: "A skill's instructions and its file list." },
  { name: "read_skill_file", description: "One file of a skill (templates, references, scripts)." },
  { name: "list_skills", description: "Browse every skill, or the skill tree." },
  { name: "refresh_skills", description: "Rescan the folders and pull the team repositories now." },
];

/** The manifest of one target's bundle. Pure. */
export function mcpbManifest(version: string, target: Target): Record<string, unknown> {
  return {
    manifest_version: "0.3",
    name: "skillhub",
    display_name: "SkillHub",
    version,
    description: "Every Agent Skill on this computer and in your team's git repositories, in Claude.",
    long_description:
      "SkillHub serves Agent Skills (SKILL.md folders) to Claude: it reads ~/.agents/skills, ~/.claude/skills, ~/.skillhub/skills and the folders you add here, and can keep a team's skills repository in sync. Claude sees a short catalog and loads a skill's instructions, and then its files, only when it needs them.",
    author: { name: "SkillHub contributors", url: HOMEPAGE },
    repository: { type: "git", url: `${HOMEPAGE}.git` },
    homepage: HOMEPAGE,
    documentation: `${HOMEPAGE}/blob/main/docs/install.md`,
    support: `${HOMEPAGE}/issues`,
    license: "MIT",
    keywords: ["skills", "agent-skills", "SKILL.md", "prompts", "git"],
    server: {
      type: "binary",
      entry_point: bundleBinary(target),
      mcp_config: {
        // No ".exe": hosts add it on Windows (and CreateProcess would too), so the name works either way.
        command: "${__dirname}/server/skillhub",
        args: ["serve", "${user_config.skills_dirs}"],
        env: {
          SKILLS_REPO: "${user_config.team_repository}",
          GITHUB_TOKEN: "${user_config.github_token}",
          SKILLHUB_TOOLS: "${user_config.tools}",
        },
      },
    },
    tools: TOOLS,
    tools_generated: true,
    prompts_generated: true,
    compatibility: { platforms: [PLATFORM[target.os]] },
    user_config: {
      skills_dirs: {
        type: "directory",
        title: "Skills folders",
        description:
          "Folders of skills to serve first. ~/.agents/skills, ~/.claude/skills and ~/.skillhub/skills are always read.",
        multiple: true,
        required: false,
        // Set, even empty, so that the host expands it to no argument rather than passing the placeholder.
        default: [],
      },
      team_repository: {
        type: "string",
        title: "Team skills repository",
        description:
          "A git URL (https://… or git@…) of your team's skills repository, synced every 15 minutes. Leave empty for none.",
        required: false,
        default: "",
      },
      github_token: {
        type: "string",
        title: "GitHub token",
        description: "Only for a private https:// team repository; sent to that repository's host alone.",
        sensitive: true,
        required: false,
        default: "",
      },
      tools: {
        type: "string",
        title: "Tool profile",
        description: "auto (default), skill, hub, tree, sk or all, or a comma list of tool names.",
        required: false,
        default: "auto",
      },
    },
  };
}

export interface BundleOptions {
  version: string;
  target: Target;
  /** The compiled binary for `target`. */
  binary: string;
  /** Folder the bundle is written to. */
  outDir: string;
  /** Seconds since the epoch stamped on every entry. Default $SOURCE_DATE_EPOCH, else 0. */
  epoch?: number;
}

/** Write one target's `.mcpb`; resolves to its path. */
export async function packBundle(options: BundleOptions): Promise<string> {
  const { target, version } = options;
  const epoch = options.epoch ?? Number(process.env.SOURCE_DATE_EPOCH ?? 0);
  const stage = mkdtempSync(join(tmpdir(), "skillhub-mcpb-"));
  try {
    const entry = bundleBinary(target);
    mkdirSync(join(stage, "server"));
    writeFileSync(join(stage, "manifest.json"), `${JSON.stringify(mcpbManifest(version, target), null, 2)}\n`);
    copyFileSync(options.binary, join(stage, entry));
    chmodSync(join(stage, entry), 0o755);
    for (const name of ["manifest.json", entry]) utimesSync(join(stage, name), epoch, epoch);
    const out = resolve(options.outDir, bundleName(version, target));
    rmSync(out, { force: true });
    // -X: no extra attributes (uid, atime), which would make the checksum depend on the machine; the
    // Unix mode stays, and it is what keeps the binary executable when the host unpacks the bundle.
    const zip = Bun.spawn(["zip", "-q", "-X", out, "manifest.json", entry], {
      cwd: stage,
      stdout: "ignore",
      stderr: "pipe",
    });
    const [code, err] = await Promise.all([zip.exited, new Response(zip.stderr).text()]);
    if (code !== 0) throw new Error(`zip ${out} failed (exit ${code}): ${err.trim()}`);
    return out;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

import type { SettingDoc } from "./settings.ts";

/**
 * Keys only a config file can set (no variable, no flag). With ENV_SETTINGS and
 * FLAG_SETTINGS this covers every key of the schema; a test checks it does.
 */
export const FILE_SETTINGS: Record<string, SettingDoc> = {
  "plugins.dir": {
    description: "Claude Code's plugins folder, read for plugin skills.",
    default: "`~/.claude/plugins`",
  },
  "sources.project_dirs": {
    description:
      "Skills folders inside the project that its `skillhub.yaml` adds (`skillhub add ./folder`); served as the project's own.",
  },
  "sources.only_dirs": {
    description:
      "Serve only the explicit folders (`dirs`, after those of `--skills-dir` and `SKILLS_DIR`) and the synced repositories: no project or global folder, no plugin.",
  },
  "sources.debounce_ms": { description: "Milliseconds the watcher waits for changes to settle." },
  "sources.max_depth": { description: "Deepest folder level scanned below a skills folder." },
  "sources.max_dirs": {
    description:
      "Most folders scanned per skills folder, and by the project's own folders together (a warning says when it stops).",
  },
  "server.roots_timeout_seconds": { description: "Seconds to wait for the client's answer to `roots/list`." },
  "matching.min_score": { description: "`get_skill` drops matches scoring under this." },
  "matching.max_results": { description: "Most candidates an ambiguous `get_skill` answer lists." },
  "matching.ambiguity_threshold": {
    description: "When the two best `get_skill` scores are closer than this, the answer is ambiguous.",
  },
  "refresh.enabled": { description: "Background sync of the team repositories." },
  "scripts.enabled": { description: "`run_script` at all (a kill switch)." },
  "scripts.timeout_seconds": { description: "Time limit of one `run_script` run, in seconds." },
  "scripts.max_output_bytes": {
    description: "Output kept per stream of one `run_script` run (at most 16 MiB); the rest is dropped.",
  },
  "scripts.allowed_extensions": { description: "Script extensions `run_script` runs." },
  "scripts.allow_project": {
    description:
      "Run the project's own skills' server scripts (`run_script`) and commands in their folders (`run_skill_command`): those of its folders (`.agents`, `.claude`), of the repositories its `skillhub.yaml` adds and of Claude Code plugins installed for it; only in your own config file.",
  },
  "scripts.runners": {
    description: "The program that runs each extension; `skillhub` is the SkillHub binary's embedded Bun.",
  },
  "assets.max_size_bytes": {
    description:
      "Largest file `get_asset` serves (at most 16 MiB), and largest image `read_skill_file` sends as an image (that one at most 3,932,160).",
  },
  "assets.inline_text_max_bytes": {
    description: "Text assets up to this size come back inline in `get_skill`'s result (at most 16 MiB); 0 = never.",
  },
  "content.max_tokens": {
    description:
      "`get_skill` truncates a node's inherited content over this many estimated tokens (characters / 4), with a warning; 0 = never.",
  },
  "analytics.enabled": { description: "Usage analytics; on by itself when an endpoint or a file is set." },
  "analytics.max_queue": {
    description: "Most usage events held in memory (at most 1,000,000); further ones are dropped and counted.",
  },
};

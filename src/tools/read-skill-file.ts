import { z } from "zod";
import { checkedFileRead, isRefused } from "../lock/checked-read.ts";
import { realFolder } from "../skills/skill-read.ts";
import { notOfSkill } from "../sources/skill-files.ts";
import { isBinaryFile, mimeTypeFor } from "../util/file-kind.ts";
import { checkRelativePath } from "../util/safe-path.ts";
import { defineTool, READ_ONLY } from "./definition.ts";
import { errorResult, structuredResult } from "./results.ts";
import { lookupSkill, refusalResult } from "./support/skill-lookup.ts";

const INSIDE_ONLY =
  "Only files inside the skill's folder can be read; use a relative path from load_skill's file list.";

const Input = () =>
  z.object({
    skill_name: z.string().min(1).describe("Skill name (case-insensitive), as given by search_skills or load_skill"),
    file_path: z
      .string()
      .min(1)
      .describe("Path relative to the skill folder, e.g. 'templates/invoice.txt' (from load_skill's files)"),
  });

const Output = () =>
  z.object({
    content: z.string().describe("The text, or base64 for binary files"),
    encoding: z.enum(["utf-8", "base64"]),
    truncated: z.boolean().describe("True when only the first MAX_FILE_BYTES bytes are returned"),
    size_bytes: z.number().describe("Size of the whole file"),
    mime_type: z.string().optional().describe("For binary files"),
  });

/** Seed 000 `read_skill_file`: one file of a skill, never anything outside it (DESIGN §11). */
export const readSkillFileTool = defineTool({
  name: "read_skill_file",
  title: "Read Skill File",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "Read a file that belongs to a skill (template, reference, example, script) by its path relative to the skill folder. " +
    "Text comes back as UTF-8 (the first MAX_FILE_BYTES bytes of large files), binary files as base64 with a MIME type.",
  handler: async ({ skill_name, file_path }, { deps }) => {
    const { skill, error } = await lookupSkill(skill_name, deps);
    if (error) return error;
    const max = deps.config.files.max_file_bytes;
    const checked = checkRelativePath(file_path);
    if (!checked.ok)
      return errorResult("PATH_OUTSIDE_SKILL", `'${file_path}' ${checked.reason}. ${INSIDE_ONLY}`, {
        skill: skill.name,
        file_path,
      });
    // One confined read (util/confined-read.ts): the opened file must be inside the skill's real folder;
    // frozen, its bytes are served only when the lock records their digest for this path (lock/checked-read.ts).
    const folder = realFolder(skill.dir, skill);
    // Security: a nested skill's files are its own (served only as that skill, never through its parent), and
    // version-control metadata is no skill's: the one walker (sources/skill-files.ts) decides, as for the lock.
    const foreign = folder.ok ? notOfSkill(folder.root, checked.path) : undefined;
    if (foreign !== undefined) return errorResult("PATH_OUTSIDE_SKILL", foreign, { skill: skill.name, file_path });
    const read = folder.ok ? checkedFileRead(deps.frozen, skill, folder.root, checked.path, max, "truncate") : folder;
    if (isRefused(read)) return refusalResult(skill, read.refused);
    if (!read.ok) {
      const advice =
        read.code === "PATH_OUTSIDE_SKILL" ? INSIDE_ONLY : `load_skill('${skill.name}') lists the skill's files.`;
      return errorResult(read.code, `${read.reason.replace(/\.$/, "")}. ${advice}`, { skill: skill.name, file_path });
    }
    const bytes = read.bytes;
    const stat = { size: read.size };
    const truncated = read.truncated;
    deps.track("asset_served", {
      tool: "read_skill_file",
      skill_path: skill.name,
      file: file_path,
      size_bytes: stat.size,
      truncated,
    });
    if (isBinaryFile(read.real, bytes)) {
      if (truncated) {
        return errorResult(
          "FILE_TOO_LARGE",
          `'${file_path}' is a ${stat.size}-byte binary file; this server returns at most ${max} bytes (MAX_FILE_BYTES), and a cut binary file is useless. If you can read files directly, open it in the skill's folder (load_skill gives its path).`,
          { skill: skill.name, file_path, size_bytes: stat.size, max_bytes: max },
        );
      }
      return structuredResult({
        content: Buffer.from(bytes).toString("base64"),
        encoding: "base64",
        truncated: false,
        size_bytes: stat.size,
        mime_type: mimeTypeFor(read.real),
      });
    }
    return structuredResult({
      content: decodeUtf8Prefix(bytes, truncated),
      encoding: "utf-8",
      truncated,
      size_bytes: stat.size,
    });
  },
});

/** UTF-8 text of a byte prefix; a character cut in half at the end is dropped, not turned into garbage. */
function decodeUtf8Prefix(bytes: Uint8Array, cut: boolean): string {
  let end = bytes.length;
  if (cut) {
    // Step back over continuation bytes (10xxxxxx) to the start of the last character, and drop it if incomplete.
    let start = end - 1;
    while (start > 0 && start > end - 4 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start--;
    const lead = bytes[start] ?? 0;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (end - start < need) end = start;
  }
  return new TextDecoder("utf-8").decode(bytes.subarray(0, end));
}

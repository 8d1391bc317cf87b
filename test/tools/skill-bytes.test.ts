import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { readConfined, readConfinedText } from "../../src/util/confined-read.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { sessions } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

/** What `skill` must answer for a SKILL.md of these bytes: the documented text, the file as UTF-8 without a BOM. */
function expected(name: string, dir: string, bytes: Buffer) {
  const text = new TextDecoder("utf-8").decode(bytes).replace(/^\uFEFF/, "");
  return {
    content: [
      { type: "text", text: `Loading: ${name}\nBase directory: ${dir}\n\n${text}` },
      { type: "text", text: `<command-message>The "${name}" skill is loading</command-message>` },
    ],
  };
}

describe("skill results are the file's bytes, exactly (a cheaper read serves the same)", () => {
  test("BOM, CRLF, non-ASCII text and a file near the 1 MiB cap: the whole result, byte for byte", async () => {
    const root = tempDir();
    const files: Record<string, Buffer> = {
      bom: Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from("---\nname: bom\ndescription: Starts with a BOM.\n---\n\n# BOM\n"),
      ]),
      crlf: Buffer.from("---\r\nname: crlf\r\ndescription: Windows line ends.\r\n---\r\n\r\n# CRLF\r\nline\r\n"),
      unicode: Buffer.from(
        "---\nname: unicode\ndescription: Ünïcödé, 日本語, emoji 🚀.\n---\n\n# Ça marche\n\nλ → ∞\n",
      ),
      large: Buffer.from(
        `---\nname: large\ndescription: Nearly a mebibyte.\n---\n\n${"A line of instructions, repeated.\n".repeat(30_000)}`,
      ),
    };
    for (const [name, bytes] of Object.entries(files)) write(join(root, name, "SKILL.md"), bytes);
    // A budget over the largest file: here the whole file is the answer (parts are tested in skill-parts).
    const { call } = await open({ flags: { "skills-dir": [root] }, env: { SKILLHUB_RESULT_BUDGET: "2000000" } });
    for (const [name, bytes] of Object.entries(files)) {
      const result = await call("skill", { name });
      expect(JSON.stringify(result)).toBe(JSON.stringify(expected(name, join(root, name), bytes)));
    }
  });

  test("the confined read's sha256 is still the hash of what was read (now computed when asked)", () => {
    const root = tempDir();
    write(join(root, "f.md"), "hello\n");
    const bytes = readConfined({ root, file: "f.md" });
    const text = readConfinedText({ root, file: "f.md" });
    const want = createHash("sha256").update("hello\n").digest("hex");
    if (!bytes.ok || !text.ok) throw new Error("read failed");
    expect(bytes.sha256).toBe(want);
    expect(bytes.sha256).toBe(want);
    expect(text.sha256).toBe(want);
    expect(text.text).toBe("hello\n");
  });
});

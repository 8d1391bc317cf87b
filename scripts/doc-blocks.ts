/**
 * Generated blocks inside hand-written Markdown: the text between a BEGIN and an END marker is
 * owned by a script, the rest by people. Shared by scripts/readme-clients.ts and scripts/config-doc.ts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";

export interface BlockMarkers {
  begin: string;
  end: string;
}

/** The block as `text` has it now, markers included, or undefined when a marker is missing. */
export function currentBlock(text: string, markers: BlockMarkers): string | undefined {
  const start = text.indexOf(markers.begin);
  const end = text.indexOf(markers.end);
  return start < 0 || end < start ? undefined : text.slice(start, end + markers.end.length);
}

/**
 * Replace the block in `file` with `block` (markers included). Returns false, and writes a line to
 * stderr, when the file has no block to replace. The file is read just before writing: the
 * hand-written parts may be edited meanwhile.
 */
export function writeBlock(file: string, markers: BlockMarkers, block: string): boolean {
  const name = relative(process.cwd(), file) || file;
  const text = readFileSync(file, "utf8");
  const current = currentBlock(text, markers);
  if (current === undefined) {
    process.stderr.write(`${name} has no ${markers.begin} … ${markers.end} block to replace\n`);
    return false;
  }
  if (current !== block)
    writeFileSync(
      file,
      text.replace(current, () => block),
    );
  process.stdout.write(current === block ? `${name} is up to date\n` : `${name}: generated block rewritten\n`);
  return true;
}

import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { sha256Of } from "../../src/catalog/digests.ts";
import { tempDir, write } from "../helpers/fs.ts";
import { writeNode } from "../helpers/tree.ts";

/** A decoy private key: no answer and no lock may hold it. */
export const DECOY_KEY = "-----BEGIN DECOY PRIVATE KEY-----\n";
const HOSTS = "decoy.example ssh-ed25519 AAAA\n";
const SKILL_MD = "---\nname: linked\ndescription: A SKILL.md that lives elsewhere.\n---\n\nDecoy steps.\n";

export interface Decoy {
  /** A folder shaped like ~/.ssh. */
  folder: string;
  /** A SKILL.md in a folder of its own, beside a key. */
  skillMd: string;
  /** Names and digests of the decoys' files, none of which a lock may hold. */
  leaks: string[];
}

/** Decoys outside every skills folder. */
export function decoy(): Decoy {
  const outside = tempDir("skillhub-decoy-");
  const folder = join(outside, "secret");
  write(join(folder, "id_decoy"), DECOY_KEY);
  write(join(folder, "known_decoys"), HOSTS);
  const skillMd = write(join(outside, "elsewhere", "SKILL.md"), SKILL_MD);
  write(join(outside, "elsewhere", "beside_decoy"), DECOY_KEY);
  return {
    folder,
    skillMd,
    leaks: [
      "id_decoy",
      "known_decoys",
      "beside_decoy",
      "secret",
      "elsewhere",
      sha256Of(DECOY_KEY),
      sha256Of(HOSTS),
      sha256Of(SKILL_MD),
    ],
  };
}

/**
 * A tree in `skills/tree` whose node `x` has a resource folder that is a link to the decoy folder, beside a
 * node `ok` with a real one; and an Agent Skill `linked` whose SKILL.md is a link to the decoy SKILL.md.
 */
export function linkedTree(skills: string, { folder, skillMd }: Decoy): void {
  const tree = join(skills, "tree");
  writeNode(tree, "x.md", { keywords: ["deploy", "keys"], extra: "assets:\n  - file: id_decoy\n    description: Key" });
  symlinkSync(folder, join(tree, "x"));
  writeNode(tree, "ok.md", { keywords: ["release"], extra: "assets:\n  - file: notes.txt\n    description: Notes" });
  write(join(tree, "ok", "notes.txt"), "release notes\n");
  write(join(skills, "linked", "notes.md"), "linked notes\n");
  symlinkSync(skillMd, join(skills, "linked", "SKILL.md"));
}

/** Which of `leaks` `text` holds. */
export function leaked(text: string, leaks: readonly string[]): string[] {
  return leaks.filter((leak) => text.includes(leak));
}

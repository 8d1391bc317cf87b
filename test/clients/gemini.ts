import { expect } from "bun:test";
import { join } from "node:path";
import { type ClientHome, clientTools, runTool } from "../helpers/client-tools.ts";
import { write } from "../helpers/fs.ts";

/** What test/clients/gemini*.test.ts share: Gemini CLI (pinned, from .tools/) run in a client's world. */
export const gemini = (c: ClientHome, args: string[]) =>
  runTool([...clientTools().gemini, ...args], { env: c.env, cwd: c.project });

/**
 * Gemini CLI starts no MCP server in a folder the user has not trusted (it asks once); this is the
 * answer it stores, for the project and any other folder given.
 */
export function trust(c: ClientHome, ...more: string[]): void {
  const folders = Object.fromEntries([c.project, ...more].map((dir) => [dir, "TRUST_FOLDER"]));
  write(join(c.home, ".gemini", "trustedFolders.json"), JSON.stringify(folders));
}

/** `gemini mcp list`'s line for the skillhub server, which must exist. */
export async function listed(c: ClientHome): Promise<string> {
  const list = await gemini(c, ["mcp", "list"]);
  const line = `${list.out}\n${list.err}`.split("\n").find((l) => / skillhub\b.*\((stdio|http)\)/.test(l));
  if (!line) throw new Error(`gemini mcp list shows no skillhub:\n${list.out}${list.err}`);
  return line;
}

/** The configured stdio server: Disabled until the project folder is trusted, then Connected. */
export async function connectsOnceTrusted(c: ClientHome): Promise<void> {
  expect(await listed(c)).toMatch(/skillhub: .*\(stdio\) - Disabled/);
  trust(c);
  expect(await listed(c)).toMatch(/✓ skillhub: .*\(stdio\) - Connected/);
}

import type { Hub } from "./hub.ts";

/**
 * What a client's lists show, as strings: a change in one is worth exactly
 * one list_changed of that kind. Shared by the per-connection servers and the
 * stateless HTTP handler, so both announce the same changes.
 */
export interface ChangeSignatures {
  tools: string;
  prompts: string;
  resources: string;
}

/**
 * The tools/list signature: the tool set, the skill tool's catalog when it is
 * offered, and any change on disk when the `skills.*` tools are (their
 * contract announces every change, edited bodies included).
 */
export function toolsSignature(hub: Hub): string {
  const names = hub.tools().map((t) => t.name);
  const listed = names.includes("skill") ? hub.catalog.visibleHash : "";
  const sk = names.some((n) => n.startsWith("skills.")) ? hub.catalog.contentHash : "";
  return `${names.join(",")}|${listed}|${sk}`;
}

export function changeSignatures(hub: Hub, extra: { prompts?: () => string; resources?: () => string } = {}) {
  return (): ChangeSignatures => ({
    tools: toolsSignature(hub),
    prompts: extra.prompts?.() ?? "",
    resources: extra.resources?.() ?? "",
  });
}

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

/** The tools/list signature: the tool set, and the skill tool's catalog when it is offered. */
export function toolsSignature(hub: Hub): string {
  const tools = hub.tools();
  return `${tools.map((t) => t.name).join(",")}|${tools.some((t) => t.name === "skill") ? hub.catalog.visibleHash : ""}`;
}

export function changeSignatures(hub: Hub, extra: { prompts?: () => string; resources?: () => string } = {}) {
  return (): ChangeSignatures => ({
    tools: toolsSignature(hub),
    prompts: extra.prompts?.() ?? "",
    resources: extra.resources?.() ?? "",
  });
}

import type { ServerNotifier } from "@modelcontextprotocol/server";
import { toolsSignature } from "../server/change-signatures.ts";
import type { Hub } from "../server/hub.ts";
import { promptsEnabled } from "../server/prompts.ts";

/**
 * Stateless (2026-07-28) HTTP: servers live for one request, so catalog
 * changes are published once on the handler, which delivers them to every
 * open subscriptions/listen stream. One event per kind of change.
 * Returns the unsubscribe function.
 */
export function publishChanges(hub: Hub, notify: ServerNotifier): () => void {
  let tools: string | undefined;
  let skills: string | undefined;
  void hub.ready.then(
    () => {
      tools ??= toolsSignature(hub);
      skills ??= hub.catalog.visibleHash;
    },
    () => undefined,
  );
  return hub.store.onChange(() => {
    const nowTools = toolsSignature(hub);
    if (tools !== undefined && nowTools !== tools) notify.toolsChanged();
    tools = nowTools;
    const nowSkills = hub.catalog.visibleHash;
    if (skills !== undefined && nowSkills !== skills) {
      notify.resourcesChanged();
      if (promptsEnabled(hub)) notify.promptsChanged();
    }
    skills = nowSkills;
  });
}

import type { ServerNotifier } from "@modelcontextprotocol/server";
import { toolsSignature } from "../server/change-signatures.ts";
import type { Hub } from "../server/hub.ts";

/**
 * Stateless (2026-07-28) HTTP: servers live for one request, so catalog
 * changes are published once on the handler, which delivers them to every
 * open subscriptions/listen stream. One event per kind of change.
 * Returns the unsubscribe function.
 */
export function publishChanges(hub: Hub, notify: ServerNotifier): () => void {
  let tools: string | undefined;
  void hub.ready.then(
    () => (tools ??= toolsSignature(hub)),
    () => undefined,
  );
  return hub.store.onChange(() => {
    const now = toolsSignature(hub);
    if (tools !== undefined && now !== tools) notify.toolsChanged();
    tools = now;
  });
}

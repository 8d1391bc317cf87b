import type { Server } from "@modelcontextprotocol/server";
import type { Catalog } from "../catalog/catalog.ts";
import { listChangedReason } from "../tools/support/list-changed-reason.ts";
import { errorMessage } from "../util/errors.ts";
import { toolsSignature, visibleSignature } from "./change-signatures.ts";
import type { Hub } from "./hub.ts";
import { promptsEnabled } from "./prompts.ts";

/** What this connection's client has seen: tools/list answers set `tools`. */
export interface Announced {
  tools?: string;
  initialized: boolean;
}

/**
 * One list_changed per kind of change for one connection (2025: sent
 * directly; 2026 over stdio: the SDK routes them onto subscriptions/listen).
 * Tools are announced only to a client that has listed them (it sees the new
 * list when it does); prompts and resources whenever the served skills'
 * names or descriptions change, or a frozen server's lock changes what it
 * serves. Returns the unsubscribe function.
 */
export function announceChanges(server: Server, hub: Hub, seen: Announced, modern: () => boolean): () => void {
  let skills: string | undefined;
  const send = (what: string, sending: () => Promise<void>) =>
    sending().catch((error) => hub.logger.debug(`${what} list_changed not sent: ${errorMessage(error)}`));
  const announceTools = (previous: Catalog, next: Catalog, why?: string) => {
    if (!seen.initialized && !modern()) return;
    const tools = toolsSignature(hub);
    if (seen.tools === undefined || tools === seen.tools) return;
    seen.tools = tools;
    // With a short reason (an extra param, which clients may ignore): the skills.* tools' contract.
    const reason = why ?? listChangedReason(previous, next);
    void send("tools", () => server.notification({ method: "notifications/tools/list_changed", params: { reason } }));
  };
  const unread = hub.catalog;
  void hub.ready.then(
    () => {
      skills ??= visibleSignature(hub);
      // Tools listed before the first scan ended ("still reading") are stale now, even when the scan found
      // nothing and so changed nothing the store would announce.
      announceTools(unread, hub.catalog);
    },
    () => undefined,
  );
  const announceSkills = () => {
    const now = visibleSignature(hub);
    if (skills === undefined || now === skills) {
      skills = now;
      return;
    }
    skills = now;
    void send("resources", () => server.sendResourceListChanged());
    if (promptsEnabled(hub)) void send("prompts", () => server.sendPromptListChanged());
  };
  const catalogChanged = hub.store.onChange(({ previous, next }) => {
    if (!seen.initialized && !modern()) return;
    announceTools(previous, next);
    // Prompts listed from the last run's snapshot: the first scan is compared with what was listed.
    if (skills === undefined && hub.store.isSeed(previous)) skills = visibleSignature(hub, previous);
    announceSkills();
  });
  // A frozen server's lock changed: the same catalog, other skills served.
  const lockChanged = hub.frozen?.onChange(() => {
    if (!seen.initialized && !modern()) return;
    announceTools(hub.catalog, hub.catalog, "skillhub.lock changed");
    announceSkills();
  });
  return () => {
    catalogChanged();
    lockChanged?.();
  };
}

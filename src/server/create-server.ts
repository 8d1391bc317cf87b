import {
  type CallToolResult,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type Tool,
} from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { ToolContext, ToolDefinition } from "../tools/definition.ts";
import { errorResult, JSON_TEXT_TOOLS, withJsonText } from "../tools/results.ts";
import { pickedSkills, termsOf } from "../usage/picked.ts";
import { pickSkills } from "../usage/skill-pick.ts";
import { errorMessage } from "../util/errors.ts";
import { VERSION } from "../version.ts";
import { type Announced, announceChanges } from "./announce-changes.ts";
import { listingReady } from "./catalog-snapshot.ts";
import { toolsSignature } from "./change-signatures.ts";
import type { Hub } from "./hub.ts";
import { type KeptNamedSkill, NAMED_SKILLS_MAX, type NamedSkill, serverInstructions } from "./instructions.ts";
import { outputJsonSchema, toJsonSchema } from "./json-schema.ts";
import { promptsEnabled, registerPrompts } from "./prompts.ts";
import { registerResourceListing } from "./resource-listing.ts";
import { withSearchHint } from "./search-hints.ts";
import { LIST_TTL_MS, skillsExtension } from "./skills-extension/source.ts";

/** Bytes a tools/list answer aims to stay under, whatever the number of skills. */
export const TOOLS_LIST_BUDGET = 12_000;

/** The 2026-07-28 results that carry cache fields (all of them lists or discovery). */
const CACHEABLE = [
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "server/discover",
] as const;

export interface CreateServerOptions {
  /** serverInfo.version. Default: the build's version. */
  version?: string;
  /**
   * Send list_changed from this instance when the catalog changes. Default true. Off for the
   * per-request instances of stateless HTTP: there the handler publishes one event per change.
   */
  notifyChanges?: boolean;
  /** Skills the instructions name when the first scan has not ended yet (kept from the last run). */
  namedSkills?: readonly KeptNamedSkill[];
}

/** Whether a protocol revision is the stateless 2026 one (no initialize, no server-to-client requests). */
export function isModernRevision(version: string | undefined): boolean {
  return version !== undefined && version >= "2026-";
}

/**
 * One MCP server (one per connection) over the shared hub. Knows no
 * transport. Tool descriptions and the tool set are computed per request
 * from the current catalog, so they are never stale.
 */
export function createServer(hub: Hub, options: CreateServerOptions = {}): McpServer {
  const mcp = new McpServer(
    { name: "skillhub", title: "SkillHub", version: options.version ?? VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true },
        ...(promptsEnabled(hub) ? { prompts: { listChanged: true } } : {}),
      },
      // 2026-07-28 list results carry ttlMs/cacheScope: a user's skills are private; change notifications
      // (subscriptions/listen) tell a listening client sooner than the TTL.
      cacheHints: Object.fromEntries(
        CACHEABLE.map((method) => [method, { ttlMs: LIST_TTL_MS, cacheScope: "private" as const }]),
      ),
      instructions: serverInstructions({
        tools: hub.tools().map((t) => t.name),
        mayOffer: hub.selection.kind === "auto" ? ["get_skill"] : [],
        skills: namedNow(hub, options.namedSkills),
        prompts: promptsEnabled(hub),
      }),
    },
  );
  // Skills as resources (SEP-2640): skills/list, skills/get, resources/*, the extension capability;
  // resources/list paged, from the catalog (resource-listing.ts).
  skillsExtension(hub).attach(mcp);
  registerResourceListing(mcp, hub);
  // Tools are computed per request from the catalog, so they are answered at the protocol layer.
  const server = mcp.server;
  const seen: Announced = { initialized: false };

  const context = (signal?: AbortSignal): ToolContext => {
    const names = new Set(hub.tools().map((t) => t.name));
    return {
      deps: hub,
      session: { clientName: () => server.getClientVersion()?.name },
      signal,
      hasTool: (name) => names.has(name),
    };
  };

  if (promptsEnabled(hub)) registerPrompts(mcp, hub, () => context());

  server.setRequestHandler("tools/list", async () => {
    await listingReady(hub);
    const ctx = context();
    seen.tools = toolsSignature(hub);
    // Every other tool first: the skill tool's catalog gets the room they leave under the list budget.
    const tools = hub.tools();
    const others = tools.filter((t) => t.name !== "skill").map((tool) => describe(tool, ctx));
    const room = TOOLS_LIST_BUDGET - others.reduce((n, t) => n + JSON.stringify(t).length, 0);
    const described = new Map(others.map((t) => [t.name, t]));
    return { tools: tools.map((tool) => described.get(tool.name) ?? describe(tool, { ...ctx, room })) };
  });

  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    await hub.ready;
    const name = request.params.name;
    const tool = hub.tools().find((t) => t.name === name);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool '${name}'. Tools offered: ${hub
          .tools()
          .map((t) => t.name)
          .join(", ")}.`,
      );
    }
    const parsed = tool.inputSchema.safeParse(request.params.arguments ?? {});
    // Seed 003 §8: the tree tools' errors carry JSON text too, argument errors included.
    if (!parsed.success)
      return JSON_TEXT_TOOLS.has(name)
        ? withJsonText(invalidArguments(tool, parsed.error))
        : invalidArguments(tool, parsed.error);
    try {
      return await tool.handler(parsed.data, context(ctx.mcpReq.signal));
    } catch (error) {
      // A bug must not reach the client as a crash: report it as a tool error and log it.
      hub.logger.error(
        `tool ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      const failed = errorResult(
        "INTERNAL_ERROR",
        `SkillHub failed while running ${name}: ${errorMessage(error)}. Retry, or report this with the server's stderr log.`,
      );
      return JSON_TEXT_TOOLS.has(name) ? withJsonText(failed) : failed;
    }
  });

  server.oninitialized = () => {
    seen.initialized = true;
    void fetchRoots();
  };

  server.setNotificationHandler("notifications/roots/list_changed", async () => {
    await fetchRoots();
  });

  async function fetchRoots(): Promise<void> {
    // Roots are a 2025 feature: a 2026 server sends no requests of its own.
    if (!hub.acceptRoots || hub.config.sources.project || !server.getClientCapabilities()?.roots) return;
    if (isModernRevision(server.getNegotiatedProtocolVersion())) return;
    try {
      const timeout = hub.config.server.roots_timeout_seconds * 1000;
      const { roots } = await server.listRoots(undefined, { timeout });
      hub.setClientRoots(roots.map((r) => r.uri));
    } catch (error) {
      hub.logger.debug(
        `roots/list gave no answer (${errorMessage(error)}); keeping the project root ${hub.projectRoot.dir ?? "(none)"}.`,
      );
    }
  }

  if (options.notifyChanges === false) return mcp;
  const unsubscribe = announceChanges(server, hub, seen, () => isModernRevision(server.getNegotiatedProtocolVersion()));
  const previousOnClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    previousOnClose?.();
  };
  return mcp;
}

/**
 * The skills the instructions may name, most useful first: the current catalog's pick, or before the
 * first scan the last run's (its snapshot), picked again with today's usage and project.
 */
function namedNow(hub: Hub, kept: readonly KeptNamedSkill[] | undefined): readonly NamedSkill[] {
  if (!kept) return pickedSkills(hub).slice(0, NAMED_SKILLS_MAX);
  return pickSkills(kept, { usage: hub.usage, projectDir: hub.projectRoot.dir, terms: termsOf(hub.projectRoot.dir) });
}

function describe(tool: ToolDefinition, ctx: ToolContext): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: withSearchHint(tool.name, tool.description(ctx.deps.store.catalog, ctx)),
    inputSchema: toJsonSchema(tool.inputSchema),
    ...(tool.outputSchema ? { outputSchema: outputJsonSchema(tool.outputSchema) } : {}),
    annotations: tool.annotations,
  };
}

function invalidArguments(tool: ToolDefinition, error: z.ZodError): CallToolResult {
  const problems = error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "arguments"}: ${i.message}`);
  const fields = Object.keys(tool.inputSchema.shape);
  return errorResult(
    "INVALID_ARGUMENT",
    `Invalid arguments for ${tool.name}: ${problems.join("; ")}. Expected fields: ${fields.join(", ") || "none"}.`,
    { issues: problems },
  );
}

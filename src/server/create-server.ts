import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  RootsListChangedNotificationSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { ToolContext, ToolDefinition } from "../tools/definition.ts";
import { errorResult, JSON_TEXT_TOOLS, withJsonText } from "../tools/results.ts";
import { listChangedReason } from "../tools/support/list-changed-reason.ts";
import { errorMessage } from "../util/errors.ts";
import { VERSION } from "../version.ts";
import type { Hub } from "./hub.ts";
import { serverInstructions } from "./instructions.ts";
import { outputJsonSchema, toJsonSchema } from "./json-schema.ts";

/** Bytes a tools/list answer aims to stay under, whatever the number of skills. */
export const TOOLS_LIST_BUDGET = 12_000;

export interface CreateServerOptions {
  /** serverInfo.version. Default: the build's version. */
  version?: string;
}

/**
 * One MCP server (one per connection) over the shared hub. Knows no
 * transport. Tool descriptions and the tool set are computed per request
 * from the current catalog, so they are never stale.
 */
export function createServer(hub: Hub, options: CreateServerOptions = {}): Server {
  const server = new Server(
    { name: "skillhub", title: "SkillHub", version: options.version ?? VERSION },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: serverInstructions(
        hub.tools().map((t) => t.name),
        hub.selection.kind === "auto" ? ["get_skill"] : [],
      ),
    },
  );
  let initialized = false;
  let announced: string | undefined;

  const context = (signal?: AbortSignal): ToolContext => {
    const names = new Set(hub.tools().map((t) => t.name));
    return {
      deps: hub,
      session: { clientName: () => server.getClientVersion()?.name },
      signal,
      hasTool: (name) => names.has(name),
    };
  };

  /** What a client's tools/list shows; a change is worth one list_changed. */
  const signature = () => {
    const names = hub.tools().map((t) => t.name);
    // The skill tool's description lists the skills; seed 001's tools announce any change on disk.
    const listed = names.includes("skill") ? hub.catalog.visibleHash : "";
    const sk = names.some((n) => n.startsWith("skills.")) ? hub.catalog.contentHash : "";
    return `${names.join(",")}|${listed}|${sk}`;
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    await hub.ready;
    const ctx = context();
    announced = signature();
    // Every other tool first: the skill tool's catalog gets the room they leave under the list budget.
    const tools = hub.tools();
    const others = tools.filter((t) => t.name !== "skill").map((tool) => describe(tool, ctx));
    const room = TOOLS_LIST_BUDGET - others.reduce((n, t) => n + JSON.stringify(t).length, 0);
    const described = new Map(others.map((t) => [t.name, t]));
    return { tools: tools.map((tool) => described.get(tool.name) ?? describe(tool, { ...ctx, room })) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    await hub.ready;
    const name = request.params.name;
    const tool = hub.tools().find((t) => t.name === name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
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
      return await tool.handler(parsed.data, context(extra.signal));
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
    initialized = true;
    void fetchRoots();
  };

  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await fetchRoots();
  });

  async function fetchRoots(): Promise<void> {
    if (!hub.acceptRoots || hub.config.sources.project || !server.getClientCapabilities()?.roots) return;
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

  const unsubscribe = hub.store.onChange(({ previous, next }) => {
    // Never before initialized; and a client that has not listed yet will see the new list when it does.
    if (!initialized || announced === undefined) return;
    const now = signature();
    if (now === announced) return;
    announced = now;
    // Seed 001: with a short reason string (an extra param, which clients may ignore).
    server
      .notification({
        method: "notifications/tools/list_changed",
        params: { reason: listChangedReason(previous, next) },
      })
      .catch((error) => hub.logger.debug(`list_changed not sent: ${errorMessage(error)}`));
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    previousOnClose?.();
  };
  return server;
}

function describe(tool: ToolDefinition, ctx: ToolContext): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description(ctx.deps.store.catalog, ctx),
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

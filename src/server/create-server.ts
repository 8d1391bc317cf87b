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
import { issueLine } from "../tools/support/issue-line.ts";
import { protoKeyIssue } from "../tools/support/proto-key.ts";
import { pickedSkills, termsOf } from "../usage/picked.ts";
import { pickSkills } from "../usage/skill-pick.ts";
import type { SkillLoads } from "../usage/usage-store.ts";
import { errnoCode, errorMessage } from "../util/errors.ts";
import { jsonBytes } from "../util/json-bytes.ts";
import { timerDelay } from "../util/timer-limit.ts";
import { VERSION } from "../version.ts";
import { type Announced, announceChanges } from "./announce-changes.ts";
import { type AnswerBudget, type AnswerRefusal, buildBounded, refusalAdvice } from "./answer-budget.ts";
import { listingReady, toolsListingReady } from "./catalog-snapshot.ts";
import { toolsSignature } from "./change-signatures.ts";
import type { Hub } from "./hub.ts";
import { type KeptNamedSkill, NAMED_SKILLS_MAX, type NamedSkill, serverInstructions } from "./instructions.ts";
import { outputJsonSchema, toJsonSchema } from "./json-schema.ts";
import { hideServerPaths, type SweepKind } from "./path-sweep/hide-server-paths.ts";
import { promptsEnabled, registerPrompts } from "./prompts.ts";
import { registerResourceListing } from "./resource-listing.ts";
import { withSearchHint } from "./search-hints.ts";
import { serverPaths } from "./server-paths.ts";
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
  /**
   * The client runs on another machine (the HTTP transport says so; stdio's client shares the disk):
   * answers name a skill's folder and files by skill:// URI, never by a path on this server. Default false.
   */
  remote?: boolean;
  /**
   * Whether a list_changed can ever reach this client. Default true. False for 2025 clients of stateless
   * HTTP (no session, no stream to send on): then no capability advertises listChanged.
   */
  canNotify?: boolean;
  /**
   * A session opened again after the server lost it (a restart): its client listed tools from another
   * instance, so the next change of them is announced as if it had listed them here. Default false.
   */
  resumed?: boolean;
  /**
   * For a remote client: the link to a skill's archive (`id`, `version`) that the client reaches this
   * server by, given the HTTP request that asks (undefined when the answer is not to one). Default none:
   * answers then say how to fetch files one by one.
   */
  archiveUrl?: (id: string, version: string, request: Request | undefined) => string | undefined;
  /**
   * The bytes of answers the HTTP transport holds (answer-budget.ts): a tool's result and a resource's
   * content count there until the response carrying them ends, and are refused past it. Default none
   * (stdio: one client, which reads its answers in turn).
   */
  answers?: AnswerBudget;
  /**
   * The loads this client's instructions, skill catalog and prompts are ordered by, and that its loads add
   * to. Default: the hub's, kept in <home>/usage.json across the sessions of the one person a stdio server
   * serves. The HTTP transport gives each session its own (usage/session-usage.ts), and a client with no
   * session none.
   */
  usage?: SkillLoads;
  /**
   * The client's address as per-address shares count it (peerKey), set by the HTTP transport: its analytics
   * events count against that address's share of the queue, whichever session sends them. Default none
   * (stdio: one user).
   */
  address?: string;
  /**
   * A server for one request of a client without a session (each of its requests gets a new one): limits
   * per client (report_usage) count its `address`, not this connection. Default false.
   */
  sessionless?: boolean;
}

/** Connections made in this process: each one's default `client`. */
let connections = 0;

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
  // Advertise only what is delivered: a client no notification can reach re-lists instead.
  const listChanged = options.canNotify ?? true;
  const remote = options.remote ?? false;
  const usage = options.usage ?? hub.usage;
  const client = options.sessionless ? undefined : `connection ${++connections}`;
  const mcp = new McpServer(
    { name: "skillhub", title: "SkillHub", version: options.version ?? VERSION },
    {
      capabilities: {
        tools: { listChanged },
        resources: { listChanged },
        ...(promptsEnabled(hub) ? { prompts: { listChanged } } : {}),
      },
      // 2026-07-28 list results carry ttlMs/cacheScope: a user's skills are private; change notifications
      // (subscriptions/listen) tell a listening client sooner than the TTL.
      cacheHints: Object.fromEntries(
        CACHEABLE.map((method) => [method, { ttlMs: LIST_TTL_MS, cacheScope: "private" as const }]),
      ),
      instructions: serverInstructions({
        tools: hub.tools().map((t) => t.name),
        mayOffer: hub.selection.kind === "auto" ? ["get_skill"] : [],
        // Frozen: the last run's names cannot be checked against the lock (they carry no digest).
        skills: namedNow(hub, usage, hub.frozen ? undefined : options.namedSkills),
        prompts: promptsEnabled(hub),
        remote,
      }),
    },
  );
  // Skills as resources (SEP-2640): skills/list, skills/get, resources/*, the extension capability;
  // resources/list paged, from the catalog (resource-listing.ts).
  skillsExtension(hub, options.answers).attach(mcp);
  registerResourceListing(mcp, hub);
  // Tools are computed per request from the catalog, so they are answered at the protocol layer.
  const server = mcp.server;
  const seen: Announced = { initialized: false, ...(options.resumed ? { tools: "" } : {}) };

  const links = options.archiveUrl;
  const answers = options.answers;
  /** A tool's answer past the bytes of answers held at once: what its client is told instead. */
  const refusedAnswer = (tool: string, refused: AnswerRefusal): CallToolResult => {
    const failed = errorResult(
      refused.kind === "busy" ? "SERVER_BUSY" : "FILE_TOO_LARGE",
      `The answer of ${tool} was not sent: ${refusalAdvice(
        refused,
        hub.tools().some((t) => t.name === "read_skill_file"),
      )}`,
    );
    return JSON_TEXT_TOOLS.has(tool) ? withJsonText(failed) : failed;
  };
  /** `tool`: the tool whose call `request` is, which may count its answer before building it (bounded). */
  const context = (signal?: AbortSignal, meta?: unknown, request?: Request, tool?: string): ToolContext => {
    const names = new Set(hub.tools().map((t) => t.name));
    // A 2026-07-28 request names its client in its own envelope; a 2025 session did so at initialize.
    const named = envelopeClientName(meta);
    const archiveUrl = links && ((id: string, version: string) => links(id, version, request));
    const bounded: ToolContext["bounded"] =
      answers && request && tool
        ? async (build) => {
            const built = await buildBounded(answers, request, build);
            return "refused" in built ? { refused: refusedAnswer(tool, built.refused) } : built;
          }
        : undefined;
    return {
      deps: hub,
      session: {
        clientName: () => named ?? server.getClientVersion()?.name,
        remote,
        ...(archiveUrl ? { archiveUrl } : {}),
        usage,
        client,
        ...(options.address === undefined ? {} : { address: options.address }),
      },
      signal,
      hasTool: (name) => names.has(name),
      ...(bounded ? { bounded } : {}),
    };
  };

  if (promptsEnabled(hub)) registerPrompts(mcp, hub, (request) => context(undefined, undefined, request), answers);

  // A listing may come before the first scan only where list_changed can follow it (not a stateless
  // request's server, which the handler's own events speak for only once a catalog exists).
  const listed = () => (options.notifyChanges === false ? listingReady(hub) : toolsListingReady(hub));
  server.setRequestHandler("tools/list", async (_request, reqCtx) => {
    await listed();
    const ctx = context(undefined, reqCtx.mcpReq.envelope);
    seen.tools = toolsSignature(hub);
    // Every other tool first: the skill tool's catalog gets the room they leave under the list budget.
    const tools = hub.tools();
    const others = tools.filter((t) => t.name !== "skill").map((tool) => describe(tool, ctx));
    const room = TOOLS_LIST_BUDGET - others.reduce((n, t) => n + JSON.stringify(t).length, 0);
    const described = new Map(others.map((t) => [t.name, t]));
    return { tools: tools.map((tool) => described.get(tool.name) ?? describe(tool, { ...ctx, room })) };
  });

  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    const name = request.params.name;
    const result = await callTool(
      name,
      request.params.arguments,
      ctx.mcpReq.signal,
      ctx.mcpReq.envelope,
      ctx.http?.req,
    );
    const answer = remote ? hideServerPaths(result, serverPaths(hub), sweepKind(name)) : result;
    const refused = answers?.take(ctx.http?.req, jsonBytes(answer));
    return refused ? refusedAnswer(name, refused) : answer;
  });

  async function callTool(
    name: string,
    args: unknown,
    signal: AbortSignal,
    meta: unknown,
    request: Request | undefined,
  ): Promise<CallToolResult> {
    await hub.ready;
    await hub.takeTurn();
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
    const parsed = parseArguments(tool, args);
    // The tree tools' errors carry JSON text too, argument errors included.
    if (!parsed.success) {
      const refusal = invalidArguments(tool, parsed.issues);
      return JSON_TEXT_TOOLS.has(name) ? withJsonText(refusal) : refusal;
    }
    try {
      return await tool.handler(parsed.data, context(signal, meta, request, name));
    } catch (error) {
      // A bug must not reach the client as a crash: report it as a tool error and log it.
      hub.logger.error(
        `tool ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      const failed = errorResult(
        "INTERNAL_ERROR",
        // The log has the message; the client gets no server path (a file-system error's message names one).
        `SkillHub failed while running ${name}${failureCode(error)}. Retry, or report this with the server's stderr log, which has the details.`,
      );
      return JSON_TEXT_TOOLS.has(name) ? withJsonText(failed) : failed;
    }
  }

  // The SDK reports here what it could not do, an answer it failed to encode or send among them: that
  // request is left unanswered, so the log says so (the line transport answers it with an error instead).
  server.onerror = (error) => {
    if (/^Failed to (send|encode)/.test(error.message)) hub.logger.error(`mcp: ${error.message}`);
    else hub.logger.debug(`mcp: ${error.message}`);
  };

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
      const timeout = timerDelay(hub.config.server.roots_timeout_seconds * 1000);
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

/** The client's name in a 2026-07-28 request's `_meta` envelope (the SDK hands it over apart), if it has one. */
function envelopeClientName(meta: unknown): string | undefined {
  const info = (meta as Record<string, { name?: unknown } | undefined> | undefined)?.[
    "io.modelcontextprotocol/clientInfo"
  ];
  return typeof info?.name === "string" ? info.name : undefined;
}

/**
 * The skills the instructions may name, most useful first for a client whose loads `usage` counts: the
 * current catalog's pick, or before the first scan the last run's (its snapshot), picked again with
 * today's usage and project.
 */
function namedNow(hub: Hub, usage: SkillLoads, kept: readonly KeptNamedSkill[] | undefined): readonly NamedSkill[] {
  if (!kept) return pickedSkills(hub, usage).slice(0, NAMED_SKILLS_MAX);
  return pickSkills(kept, { usage, projectDir: hub.projectRoot.dir, terms: termsOf(hub.projectRoot.dir) });
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

/** A call's arguments as the tool's schema types them, or the issues that refuse them. */
function parseArguments(
  tool: ToolDefinition,
  args: unknown,
):
  | { success: true; data: z.infer<ToolDefinition["inputSchema"]> }
  | { success: false; issues: readonly z.core.$ZodIssue[] } {
  const parsed = tool.inputSchema.safeParse(args ?? {});
  if (!parsed.success) return { success: false, issues: parsed.error.issues };
  // A `__proto__` key the schema dropped unseen is refused (proto-key.ts); looked for only where the parsed
  // arguments keep an object, so arguments the schema ignores are never walked.
  const dropped = protoKeyIssue(args, parsed.data);
  return dropped ? { success: false, issues: [dropped] } : parsed;
}

function invalidArguments(tool: ToolDefinition, issues: readonly z.core.$ZodIssue[]): CallToolResult {
  const problems = issues.map(issueLine);
  const fields = Object.keys(tool.inputSchema.shape);
  return errorResult(
    "INVALID_ARGUMENT",
    `Invalid arguments for ${tool.name}: ${problems.join("; ")}. Expected fields: ${fields.join(", ") || "none"}.`,
    { issues: problems },
  );
}

/** " (ENOENT)", " (TypeError)": what failed, without the message (which may name a server path). */
function failureCode(error: unknown): string {
  const code = errnoCode(error) ?? (error instanceof Error ? error.name : undefined);
  return code ? ` (${code})` : "";
}

/**
 * What a tool's answer holds (path-sweep/hide-server-paths.ts): read_skill_file and get_asset a file's own bytes, served as
 * they are; skill, load_skill and get_skill a skill's own text, kept as its author wrote it.
 */
function sweepKind(tool: string): SweepKind {
  if (tool === "read_skill_file" || tool === "get_asset") return "file";
  return tool === "skill" || tool === "load_skill" || tool === "get_skill" ? "skill" : "answer";
}

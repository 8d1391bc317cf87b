import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { EventType } from "../analytics/event.ts";
import type { TrackOutcome } from "../analytics/tracker.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { SkillFilter } from "../catalog/filters.ts";
import type { CatalogStore } from "../catalog/store.ts";
import type { Config } from "../config/schema.ts";
import type { ExecHost } from "../exec/host.ts";
import type { FrozenGuard } from "../lock/frozen.ts";
import type { RefreshOutcome } from "../refresh/force-refresh.ts";
import type { SearchService } from "../search/service.ts";
import type { Skill } from "../skills/skill.ts";
import type { FolderEntry } from "../sources/walk-listings.ts";
import type { SkillLoads } from "../usage/usage-store.ts";
import type { Logger } from "../util/logger.ts";
import type { RateLimit } from "../util/rate-limit.ts";

/** Analytics event types (the tree tools', plus skill_loaded and search for the other tools). */
export type { EventType } from "../analytics/event.ts";

/** What tools need from the running hub. The server provides it; tests build one from temp folders. */
export interface ToolDeps {
  config: Config;
  logger: Logger;
  store: CatalogStore;
  filter: SkillFilter;
  /** A skill by name or qualified name in the current snapshot; rescans once on a miss. */
  findSkill(name: string): Promise<Skill | undefined>;
  /** The project root, when one applies. */
  readonly projectRoot: { dir: string | null };
  /** The user's home (HOME, USERPROFILE or the system's). */
  readonly homeDir: string;
  /** Rescan first when the catalog is older than `maxAgeMs`. */
  ensureFresh(maxAgeMs: number): Promise<void>;
  /**
   * Stat what the last scan saw (or wait for a scan under way) and rescan when something differs: the
   * catalog then reflects the disk as it is now (skills.list and skills.search answer from nothing older).
   */
  checkFresh(): Promise<void>;
  /** Full-text search over the current catalog. */
  search: SearchService;
  /**
   * report_usage's reports per client, a burst then a few a minute (rate-limit.ts): `session` counts a
   * connection (SessionInfo.client), `address` a client without one by its address (SessionInfo.address).
   */
  readonly feedbackLimits: { readonly session: RateLimit; readonly address: RateLimit };
  /**
   * Record an analytics event; never blocks, never throws (a no-op when analytics is off). `from`: the
   * client's address (SessionInfo.address), whose events count against its share of the queue. Returns
   * whether it was queued or dropped (analytics/tracker.ts): only a tool that tells its caller needs it.
   */
  track(type: EventType, data: Record<string, unknown>, from: string | undefined): TrackOutcome;
  /** Pull the team repositories when configured, then rescan every folder (refresh_skills). */
  refreshSkills(): Promise<RefreshOutcome>;
  /** Child processes of run_script and run_skill_command: environment, spawn, clock, running groups. */
  readonly exec: ExecHost;
  /** Frozen mode (--frozen / SKILLHUB_FROZEN): serve only skills that match skillhub.lock. Unset: off. */
  readonly frozen?: FrozenGuard;
  /** True until there is a catalog to list (a first start's first scan is under way): listings say so. */
  readonly catalogPending?: boolean;
  /** A folder's entries as the last scan listed it, while its stamp holds (load_skill's file list). */
  knownEntries?(dir: string): Iterable<FolderEntry> | undefined;
}

/** Per-connection facts: who the client is, and where. */
export interface SessionInfo {
  clientName(): string | undefined;
  /**
   * Whether the client runs on another machine (HTTP), set by the transport: it cannot open the
   * server's paths, so answers name a skill's folder and files by skill:// URI and say how to fetch
   * them. False for stdio, whose client shares the server's disk.
   */
  readonly remote: boolean;
  /**
   * A link the client's own shell can download a skill's archive from without the server's token (HTTP):
   * `id` the skill's, `version` what it serves now (support/skill-archive.ts). Undefined over stdio, or
   * when this request gives no address the client reaches the server at.
   */
  readonly archiveUrl?: (id: string, version: string) => string | undefined;
  /**
   * The loads this client's instructions, skill catalog and prompts are ordered by, and that its loads add
   * to: over stdio the hub's counts, kept across the person's sessions (usage-store.ts); over HTTP the
   * session's own (session-usage.ts), never another client's.
   */
  readonly usage: SkillLoads;
  /**
   * The connection limits per client count this one as (ToolDeps.feedbackLimits.session); undefined for a
   * request without a session, which its address counts for (feedbackLimits.address).
   */
  readonly client: string | undefined;
  /**
   * The client's address as per-address shares count it (transports/peer-places.ts peerKey: loopback as
   * one, IPv6 by /64), over HTTP: its analytics events count against that address's share of the queue.
   * Undefined over stdio and on the command line (one user).
   */
  readonly address?: string;
}

export interface ToolContext {
  deps: ToolDeps;
  session: SessionInfo;
  /** Abort signal of the request. */
  signal?: AbortSignal;
  /** Whether another tool is offered in this session (descriptions refer to it only then). */
  hasTool?: (name: string) => boolean;
  /** Characters of tools/list left for this tool's definition by the others (the skill catalog adapts). */
  room?: number;
  /**
   * Build this call's answer within the bytes of answers the transport holds at once (HTTP;
   * server/answer-budget.ts): `build` tells `bound` the least bytes its answer will take (a file's size on
   * disk, or its base64's) before reading them; past the budget the read stops there and the call's refusal
   * comes back instead (SERVER_BUSY, or FILE_TOO_LARGE when no client may be sent that much at once).
   * Undefined where answers are not counted (stdio).
   */
  bounded?: <T>(build: (bound: AnswerBound) => T) => Promise<{ value: T } | { refused: CallToolResult }>;
}

/** Told bytes an answer being built will take at least, before they are read; throws to stop the read (bounded). */
export type AnswerBound = (bytes: number) => void;

/**
 * `build` run within the bytes of answers the transport holds at once (ToolContext.bounded), given the bound
 * to tell; where answers are not counted (stdio), run as it is, with no bound.
 */
export async function withinAnswerBudget<T>(
  ctx: Pick<ToolContext, "bounded">,
  build: (bound?: AnswerBound) => T,
): Promise<{ value: T } | { refused: CallToolResult }> {
  return ctx.bounded ? ctx.bounded(build) : { value: build() };
}

/** One tool: metadata, schemas and a handler. Descriptions may depend on the catalog (the skill tool's does). */
export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: (catalog: Catalog, ctx: ToolContext) => string;
  inputSchema: Input;
  outputSchema?: z.ZodObject;
  annotations: ToolAnnotations;
  handler: (args: z.infer<Input>, ctx: ToolContext) => Promise<CallToolResult>;
}

/** Annotations of a tool that only reads. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * A tool as its file writes it: the schemas are functions that build them. zod builds a schema
 * slowly (each object carries dozens of methods), and building every tool's at start-up cost
 * `initialize` about 3 ms: they are built on first use, by tools/list or a call.
 */
export interface ToolSpec<Input extends z.ZodObject>
  extends Omit<ToolDefinition<Input>, "inputSchema" | "outputSchema"> {
  inputSchema: () => Input;
  outputSchema?: () => z.ZodObject;
}

/** The tool, its schemas built once on first read; the input type erased so tools of different shapes share one list. */
export function defineTool<Input extends z.ZodObject>(spec: ToolSpec<Input>): ToolDefinition {
  const { inputSchema, outputSchema, ...rest } = spec;
  let input: Input | undefined;
  let output: z.ZodObject | undefined;
  const tool = Object.defineProperties(rest, {
    inputSchema: { enumerable: true, get: () => (input ??= inputSchema()) },
    outputSchema: { enumerable: true, get: () => (output ??= outputSchema?.()) },
  });
  return tool as unknown as ToolDefinition;
}

import { Client, InMemoryTransport, type CallToolResult as SdkCallToolResult } from "@modelcontextprotocol/client";
import { resolveConfig } from "../../src/config/resolve.ts";
import type { Config } from "../../src/config/schema.ts";
import { createServer } from "../../src/server/create-server.ts";
import { Hub, type HubOptions } from "../../src/server/hub.ts";
import { createHttpHandler } from "../../src/transports/http-handler.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { closeAfterEach } from "./closers.ts";
import { tempDir } from "./fs.ts";

export interface TestHubOptions {
  /** Environment variables for the config (SKILLS_DIR, SEARCH_LIMIT, ...). */
  env?: Record<string, string>;
  /** Flags, as parsed (e.g. { "skills-dir": [dir] }). */
  flags?: Record<string, unknown>;
  /** What ~/.skillhub/config.yaml would hold, parsed (e.g. { analytics: { max_queue: 100 } }). */
  configFile?: Record<string, unknown>;
  home?: string;
  cwd?: string;
  hub?: Partial<HubOptions>;
}

/** A Hub over temp folders with no timer and no watcher unless asked. */
export function testHub(options: TestHubOptions = {}) {
  const home = options.home ?? tempDir("skillhub-home-");
  const env = { SKILLHUB_RESCAN_SECONDS: "0", SKILLHUB_WATCH: "0", ...options.env };
  const files = options.configFile ? [{ path: "config.yaml", data: options.configFile }] : [];
  const { config } = resolveConfig({ env, flags: options.flags, files, homeDir: home, cwd: options.cwd ?? home });
  const logger = createMemoryLogger();
  // The start-up sync of a repository is waited for in full (not the server's 3 s), unless a test says
  // otherwise: on a loaded machine a call made right after start-up would otherwise race it.
  const git = { startupWaitMs: HANG_MS, ...options.hub?.git };
  const hub = new Hub({ config, logger, env, homeDir: home, cwd: options.cwd ?? home, ...options.hub, git });
  return { hub, logger, home, config: config as Config };
}

export interface ConnectOptions extends TestHubOptions {
  clientName?: string;
  /** Roots the client reports (enables the roots capability). */
  roots?: string[];
  /** A client on another machine, as the HTTP transport marks one (answers name no server path). */
  remote?: boolean;
}

/** An SDK Client connected in memory to a started hub; `close` returns once both have stopped. */
export async function connect(options: ConnectOptions = {}) {
  const { hub, logger, home } = testHub(options);
  const server = createServer(hub, { version: "test", remote: options.remote });
  const client = new Client(
    { name: options.clientName ?? "test-client", version: "1.0.0" },
    { capabilities: options.roots ? { roots: { listChanged: true } } : {} },
  );
  const notifications: string[] = [];
  client.fallbackNotificationHandler = async (n) => {
    notifications.push(n.method);
  };
  if (options.roots) {
    client.setRequestHandler("roots/list", async () => ({
      roots: (options.roots ?? []).map((uri) => ({ uri })),
    }));
  }
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  void hub.start();
  await client.connect(clientTransport);
  await hub.ready;
  const call = (name: string, args: Record<string, unknown> = {}) =>
    // The SDK's own request timeout (60 s) would be a wall-clock limit: a loaded machine gets HANG_MS.
    client.callTool({ name, arguments: args }, { timeout: HANG_MS }) as Promise<CallToolResult>;
  // The hub's last analytics flush is awaited too: a write still running when the test removes its
  // folders would make the analytics file's folder again.
  const close = async () => {
    const shut = hub.shutdown();
    await client.close();
    await shut;
  };
  return { client, server, hub, logger, home, notifications, call, close };
}

/**
 * A tool result as tests read it: SDK 2.x types structuredContent as `{}`, and
 * tests index into it freely.
 */
export type CallToolResult = SdkCallToolResult & {
  structuredContent?: Record<string, any>;
};

/** The text of a tool result. */
export function textOf(result: SdkCallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

import { HANG_MS } from "./wait.ts";

export { eventually, HANG_MS, within } from "./wait.ts";

/**
 * `connect()` for a test file: every session it opens is closed after each
 * test. Call once at the top level of the file.
 */
export function sessions(defaults: ConnectOptions = {}) {
  const open = closeAfterEach();
  return async (options: ConnectOptions = {}) => {
    const session = await connect({ ...defaults, ...options });
    open.push(session.close);
    return session;
  };
}

/**
 * sessions() on one skills folder with every tool: analytics events are
 * recorded, and tools are listed first so the client validates outputs.
 */
export function recordingSessions() {
  const open = sessions();
  return async (dir: string, env: Record<string, string> = {}) => {
    const session = await open({ flags: { "skills-dir": [dir] }, env: { SKILLHUB_TOOLS: "all", ...env } });
    const events: { type: string; data: Record<string, unknown> }[] = [];
    session.hub.track = (type, data) => {
      events.push({ type, data });
      return "queued";
    };
    await session.client.listTools();
    return { ...session, events };
  };
}

/**
 * A started hub over `dirs` behind an HTTP handler in process (client roots ignored, as a shared server
 * does; `stateless` as --stateless), once its first scan is in; `close` stops both, as connect()'s does.
 */
export async function httpHub(
  dirs: string[],
  options: Omit<TestHubOptions, "flags"> & { flags?: Record<string, unknown>; stateless?: boolean } = {},
) {
  const { stateless, ...rest } = options;
  const { hub, logger } = testHub({
    ...rest,
    flags: { "skills-dir": dirs, ...options.flags },
    hub: { acceptRoots: false, ...options.hub },
  });
  const handler = createHttpHandler(hub, { host: "127.0.0.1", stateless });
  void hub.start();
  await hub.ready;
  const close = async () => {
    await handler.close();
    await hub.shutdown();
  };
  return { hub, logger, handler, close };
}

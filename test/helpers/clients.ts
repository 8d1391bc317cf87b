import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { HttpHandler } from "../../src/transports/http-handler.ts";
import type { Closer } from "./closers.ts";
import { httpHub } from "./hub.ts";

/** The protocol revisions SkillHub serves, oldest first. */
export const REVISIONS = ["2025-06-18", "2025-11-25", "2026-07-28"] as const;
export type Revision = (typeof REVISIONS)[number];

/**
 * A real SDK Client speaking `revision` to an HTTP handler in process: the
 * client's fetch is the handler, so every byte goes through the same checks,
 * routing and SDK transports as over a socket. 2026-07-28 is pinned (no
 * fallback), 2025 revisions are the only version the client offers.
 */
export async function httpClient(
  handler: HttpHandler,
  revision: Revision,
  options: {
    onChanged?: (kind: "tools" | "prompts" | "resources") => void;
    name?: string;
    /** The address its requests come from (RequestHooks.peer). Default none. */
    peer?: string;
  } = {},
): Promise<Client> {
  const modern = revision >= "2026-";
  const client = new Client(
    { name: options.name ?? `test-${revision}`, version: "1.0.0" },
    {
      ...(modern ? { versionNegotiation: { mode: { pin: revision } } } : { supportedProtocolVersions: [revision] }),
      ...(options.onChanged
        ? {
            listChanged: {
              tools: { onChanged: () => options.onChanged?.("tools") },
              prompts: { onChanged: () => options.onChanged?.("prompts") },
              resources: { onChanged: () => options.onChanged?.("resources") },
            },
          }
        : {}),
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8000/mcp"), {
    fetch: (input, init) => {
      // A socket would carry Host; a Request built in process must say it.
      const request = new Request(String(input), init);
      request.headers.set("host", new URL(String(input)).host);
      return handler.handle(request, { peer: options.peer });
    },
  });
  await client.connect(transport);
  return client;
}

/**
 * An HTTP handler (in process) over a started hub on `dir`, and SDK clients of
 * it; `closers` (the test file's closeAfterEach()) gets what ends them, clients first.
 */
export async function handlerWithClients(
  dir: string,
  closers: Closer[],
  options: { env?: Record<string, string>; flags?: Record<string, unknown>; stateless?: boolean } = {},
) {
  const { hub, handler, close } = await httpHub([dir], options);
  closers.push(close);
  const client = async (revision: Revision, onChanged?: (kind: string) => void) => {
    const c = await httpClient(handler, revision, { onChanged });
    closers.unshift(() => c.close());
    return c;
  };
  return { hub, handler, client };
}

/**
 * What a client is shown first: the skills its instructions name, its prompts, and whether the skill tool's
 * catalog names `name`.
 */
export async function shownFirst(client: Client, name: string) {
  const instructions = (client.getInstructions() ?? "")
    .split("\n")
    .filter((l) => l.startsWith("- "))
    .map((l) => l.slice(2, l.indexOf(":")));
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  const catalog = (await client.listTools()).tools.find((t) => t.name === "skill")?.description ?? "";
  return { instructions, prompts, catalog: catalog.includes(`<name>${name}</name>`) };
}

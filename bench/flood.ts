/**
 * The server's resident memory before and after N requests of one kind, each asking something no other
 * request asked (a made-up query, skill name, URI, page parameter): what a shared hub's memory does
 * when remote clients ask it things for weeks. Starts the compiled binary over HTTP on port 0.
 * Usage: bun bench/flood.ts --kind search [--n 100000] [--bin dist/skillhub] [--skills skills-example]
 *   [--concurrency 16] [--every 20000]
 * Kinds: see KINDS below; `--kind list` prints them.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startHttpBinary } from "../test/helpers/http-binary.ts";

const { values } = parseArgs({
  options: {
    kind: { type: "string", default: "search" },
    n: { type: "string", default: "100000" },
    bin: { type: "string", default: join(resolve(import.meta.dir, ".."), "dist", "skillhub") },
    skills: { type: "string", default: join(resolve(import.meta.dir, ".."), "skills-example") },
    concurrency: { type: "string", default: "16" },
    every: { type: "string", default: "0" },
    args: { type: "string", default: "" },
  },
});

const TOKEN = "flood-token-0123456789abcdef0123";
const LEGACY = "2025-06-18";

type Ask =
  | { rpc: { method: string; params?: Record<string, unknown> }; modern?: boolean }
  | { get: string }
  | { session: "closed" | "kept" }
  | { cancelled: { method: string; params?: Record<string, unknown> } };
const MODERN = "2026-07-28";

/** A word no other request used: `i` in letters. */
function word(i: number, length = 8): string {
  let s = "";
  for (let n = i + 1; n > 0; n = Math.floor(n / 26)) s += String.fromCharCode(97 + (n % 26));
  return `z${s}`.padEnd(length, "q");
}

const rpcCall = (name: string, args: Record<string, unknown>) => ({
  method: "tools/call",
  params: { name, arguments: args },
});
const call = (name: string, args: Record<string, unknown>): Ask => ({ rpc: rpcCall(name, args) });

const KINDS: Record<string, (i: number) => Ask> = {
  search: (i) => call("search_skills", { query: `find ${word(i)} for invoices` }),
  "search-long": (i) => call("search_skills", { query: word(i, 2000) }),
  "search-words": (i) =>
    call("search_skills", { query: Array.from({ length: 200 }, (_, k) => word(i * 200 + k)).join(" ") }),
  skill: (i) => call("skill", { name: word(i) }),
  "load-skill": (i) => call("load_skill", { skill_name: word(i) }),
  "get-skill": (i) => call("get_skill", { context: `${word(i)} helper` }),
  "read-file": (i) => call("read_skill_file", { skill_name: "git-commit-messages", file_path: `${word(i)}.md` }),
  "list-skills": (i) => call("list_skills", { flat: true, query: word(i) }),
  "list-path": (i) => call("list_skills", { path: word(i) }),
  "list-cursor": (i) => call("list_skills", { flat: true, cursor: Buffer.from(word(i)).toString("base64url") }),
  "get-asset": (i) => call("get_asset", { skill_path: "git-commit-messages", file: `${word(i)}.txt` }),
  refresh: () => call("refresh_skills", {}),
  "report-usage": (i) => call("report_usage", { skill_path: word(i), useful: false }),
  "resource-read": (i) => ({ rpc: { method: "resources/read", params: { uri: `skill://${word(i)}/SKILL.md` } } }),
  "resource-file": (i) => ({
    rpc: { method: "resources/read", params: { uri: `skill://git-commit-messages/${word(i)}.md` } },
  }),
  "prompt-get": (i) => ({ rpc: { method: "prompts/get", params: { name: word(i), arguments: { x: word(i) } } } }),
  complete: (i) => ({
    rpc: {
      method: "completion/complete",
      params: { ref: { type: "ref/prompt", name: word(i) }, argument: { name: "a", value: word(i) } },
    },
  }),
  "set-level": (i) => ({ rpc: { method: "logging/setLevel", params: { level: i % 2 ? "debug" : "info" } } }),
  subscribe: (i) => ({ rpc: { method: "resources/subscribe", params: { uri: `skill://${word(i)}/SKILL.md` } } }),
  "skills-get": (i) => ({ rpc: { method: "skills/get", params: { name: word(i) } } }),
  "dir-read": (i) => ({ rpc: { method: "resources/directory/read", params: { uri: `skill://${word(i)}/` } } }),
  "tools-list": () => ({ rpc: { method: "tools/list" } }),
  "modern-search": (i) => ({ ...call("search_skills", { query: `find ${word(i)} for invoices` }), modern: true }),
  "modern-skill": (i) => ({ ...call("skill", { name: word(i) }), modern: true }),
  sessions: () => ({ session: "closed" }),
  "sessions-kept": () => ({ session: "kept" }),
  cancelled: (i) => ({ cancelled: rpcCall("search_skills", { query: `find ${word(i)} for invoices` }) }),
  "ui-search": (i) => ({ get: `/ui/api/search?q=${word(i)}+invoice` }),
  "ui-skills": (i) => ({ get: `/ui/api/skills?q=${word(i)}&page=${i}` }),
  "ui-skill": (i) => ({ get: `/ui/api/skill?id=${word(i)}` }),
  "ui-file": (i) => ({ get: `/ui/api/file?id=git-commit-messages&path=${word(i)}.md` }),
  "ui-usage": (i) => ({ get: `/ui/api/usage?days=${7 + (i % 360)}` }),
  "ui-page": (i) => ({ get: `/?q=${word(i)}` }),
};

if (values.kind === "list") {
  process.stdout.write(`${Object.keys(KINDS).join("\n")}\n`);
  process.exit(0);
}
const chosen = KINDS[values.kind];
if (!chosen) throw new Error(`unknown kind ${values.kind}; --kind list`);
const make = chosen;

const home = mkdtempSync(join(tmpdir(), "skillhub-flood-"));
const server = await startHttpBinary(
  values.bin,
  ["--skills-dir", values.skills, ...values.args.split(" ").filter(Boolean)],
  {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      SKILLHUB_HOME: join(home, ".skillhub"),
      SKILLHUB_HTTP_TOKEN: TOKEN,
    },
    cwd: home,
  },
);
const headers = {
  authorization: `Bearer ${TOKEN}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

async function openSession(): Promise<string> {
  const response = await fetch(server.url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "flood", version: "1" } },
    }),
  });
  await response.text();
  const id = response.headers.get("mcp-session-id");
  if (!id) throw new Error(`no session: ${response.status}`);
  await (
    await fetch(server.url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": id, "mcp-protocol-version": LEGACY },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
  ).text();
  return id;
}

function rssMb(): number {
  const status = readFileSync(`/proc/${server.proc.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
}

const session = await openSession();
let sample = "";
async function send(i: number): Promise<void> {
  const ask = make(i);
  if ("session" in ask) {
    const id = await openSession();
    if (ask.session === "closed")
      await (await fetch(server.url, { method: "DELETE", headers: { ...headers, "mcp-session-id": id } })).text();
    return;
  }
  if ("cancelled" in ask) {
    // The request and its cancellation in one body: the cancellation is read before the call starts, so
    // the call is never answered (and its stream sends nothing, not even headers); the client gives up.
    const abort = new AbortController();
    const id = i + 1;
    const gaveUp = setTimeout(() => abort.abort(), 100);
    await fetch(server.url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": LEGACY },
      body: JSON.stringify([
        { jsonrpc: "2.0", id, ...ask.cancelled },
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "flood" } },
      ]),
      signal: abort.signal,
    })
      .then((response) => response.text())
      .catch(() => undefined);
    clearTimeout(gaveUp);
    return;
  }
  if ("get" in ask) {
    const text = await (await fetch(`${server.base}${ask.get}`, { headers })).text();
    if (i === 0) sample = text.slice(0, 300);
    return;
  }
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "flood", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const response = await fetch(server.url, {
    method: "POST",
    headers: ask.modern
      ? {
          ...headers,
          "mcp-protocol-version": MODERN,
          "mcp-method": ask.rpc.method,
          ...(typeof ask.rpc.params?.name === "string" ? { "mcp-name": ask.rpc.params.name } : {}),
        }
      : { ...headers, "mcp-session-id": session, "mcp-protocol-version": LEGACY },
    body: JSON.stringify(
      ask.modern
        ? { jsonrpc: "2.0", id: i + 1, method: ask.rpc.method, params: { ...ask.rpc.params, _meta: envelope } }
        : { jsonrpc: "2.0", id: i + 1, ...ask.rpc },
    ),
  });
  const text = await response.text();
  if (i === 0) sample = `${response.status} ${text.slice(0, 300)}`;
}

/** RSS once garbage is collected: the last page of resources/list asks the hub to give memory back when quiet. */
async function settledRssMb(): Promise<number> {
  await (
    await fetch(server.url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": LEGACY },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "resources/list" }),
    })
  ).text();
  await Bun.sleep(4000);
  return rssMb();
}

// Warm up: the index built, the first answers made, then a settle.
for (let i = 0; i < 50; i++) await send(1_000_000_000 + i);
const before = await settledRssMb();
const n = Number(values.n);
const every = Number(values.every);
const started = performance.now();
let next = 0;
const workers = Array.from({ length: Number(values.concurrency) }, async () => {
  for (let i = next++; i < n; i = next++) {
    await send(i);
    if (every > 0 && (i + 1) % every === 0)
      process.stderr.write(
        `  ${i + 1}: ${rssMb().toFixed(0)} MB (${((performance.now() - started) / 1000).toFixed(0)} s)\n`,
      );
  }
});
await Promise.all(workers);
const seconds = (performance.now() - started) / 1000;
const after = await settledRssMb();
process.stdout.write(
  `${values.kind}: ${n} requests in ${seconds.toFixed(0)} s; RSS ${before.toFixed(0)} MB -> ${after.toFixed(0)} MB (+${(after - before).toFixed(0)} MB)\n  first answer: ${sample.replace(/\s+/g, " ")}\n`,
);
await server.stop();
rmSync(home, { recursive: true, force: true });

import { describe, expect, test } from "bun:test";
import { parseJSONRPCMessage } from "@modelcontextprotocol/server";
import { toJSONRPCMessage } from "../../src/transports/jsonrpc-message.ts";

/** What a function gives for `value`: its result, or that it threw. */
function outcome(parse: (value: unknown) => unknown, value: unknown): { ok: unknown } | { threw: true } {
  try {
    return { ok: parse(value) };
  } catch {
    return { threw: true };
  }
}

describe("toJSONRPCMessage: the SDK's JSON-RPC message schema, the usual message checked by hand", () => {
  const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "skill", arguments: { name: "pdf" } } };
  const lines = [
    call,
    { ...call, id: "seven" },
    { ...call, id: 0 },
    { ...call, id: -3 },
    { ...call, id: 1.5 },
    { ...call, id: 2 ** 60 },
    { ...call, id: null },
    { ...call, id: true },
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3, reason: "gone" } },
    { ...call, params: [] },
    { ...call, params: null },
    { ...call, params: "x" },
    { ...call, params: { _meta: { progressToken: 9 }, name: "skill" } },
    { ...call, params: { _meta: { progressToken: { bad: 1 } } } },
    { ...call, extra: 1 },
    { ...call, jsonrpc: "1.0" },
    { id: 1, method: "ping" },
    { jsonrpc: "2.0", id: 1, method: 5 },
    { jsonrpc: "2.0", id: 1, result: {} },
    { jsonrpc: "2.0", id: 1, result: { content: [] }, extra: 1 },
    { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "bad", extra: 1 } },
    { jsonrpc: "2.0", error: { code: 1.5, message: "bad" } },
    JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"x":1}}'),
    [call],
    "a string",
    42,
    null,
  ];

  test("accepts and refuses what the schema does, and gives an equal message", () => {
    for (const [i, line] of lines.entries())
      expect({ i, ...outcome(toJSONRPCMessage, line) }).toEqual({ i, ...outcome(parseJSONRPCMessage, line) });
  });

  test("params with an own __proto__ key go through the schema, which drops it", () => {
    const line = JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s","__proto__":{"x":1}}}');
    const message = toJSONRPCMessage(line) as { params: Record<string, unknown> };
    expect(Object.keys(message.params)).toEqual(
      Object.keys((parseJSONRPCMessage(line) as { params: Record<string, unknown> }).params),
    );
    expect(Object.hasOwn(message.params, "__proto__")).toBe(false);
  });

  test("the usual request is taken as it is, without the schema's copy", () => {
    const value = structuredClone(call);
    expect(toJSONRPCMessage(value) as unknown).toBe(value);
    // A message the schema must see is the schema's copy.
    const withMeta = { ...call, params: { _meta: { progressToken: 1 } } };
    expect(toJSONRPCMessage(withMeta) as unknown).not.toBe(withMeta);
  });
});

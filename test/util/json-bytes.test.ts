import { describe, expect, test } from "bun:test";
import { escapeBytes, jsonBytes } from "../../src/util/json-bytes.ts";

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

describe("jsonBytes", () => {
  test("counts what JSON.stringify writes, escapes and UTF-8 included, without writing it", () => {
    const values: unknown[] = [
      "",
      "plain text",
      'quotes " and \\ backslashes',
      "\x01\x02\x1f controls \b\t\n\f\r",
      "héllo wörld — 日本語 😀",
      [],
      {},
      [1, "two", null, true, { three: [3.5, -4] }],
      { content: [{ type: "text", text: "a\nb" }], structuredContent: { size: 12, nested: { ok: false } } },
      { skipped: undefined, kept: "x" },
    ];
    for (const value of values) expect(jsonBytes(value), JSON.stringify(value)).toBe(bytesOf(value));
  });

  test("a control character is six bytes, so a file of them costs six times its size as text", () => {
    expect(jsonBytes("\x01".repeat(1000))).toBe(6002);
  });

  test("bytes count as the base64 string they are sent as", () => {
    for (const size of [0, 1, 2, 3, 4, 1000])
      expect(jsonBytes(new Uint8Array(size))).toBe(bytesOf(Buffer.alloc(size).toString("base64")));
  });

  test("escapeBytes counts, on UTF-8 bytes, what JSON's escapes add to their text, in any chunks", () => {
    const text = 'quotes " and \\ \x01\x02\x1f controls \b\t\n\f\r héllo 日本語 😀';
    const bytes = Buffer.from(text, "utf8");
    const added = bytesOf(text) - bytes.length - 2;
    expect(escapeBytes(bytes)).toBe(added);
    expect(escapeBytes(bytes.subarray(0, 11)) + escapeBytes(bytes.subarray(11))).toBe(added);
  });
});

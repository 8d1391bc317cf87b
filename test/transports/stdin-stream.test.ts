import { describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { type InputStream, standardInput } from "../../src/transports/stdin-stream.ts";

/** Everything `stream` gives until it ends, or the error that ends it. */
function drain(stream: InputStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    stream.on("end", () => resolve(text));
    stream.on("error", (error) => reject(error));
  });
}

const errno = (code: string) => Object.assign(new Error(`${code}: read`), { code });

describe("standard input (issue 16: a 256 KiB buffer per message)", () => {
  test("what the descriptor gives is passed on, then its end", async () => {
    const file = new PassThrough();
    const input = standardInput(file, () => {
      throw new Error("no fallback expected");
    });
    const text = drain(input);
    file.write('{"id":1}\n');
    file.end('{"id":2}\n');
    expect(await text).toBe('{"id":1}\n{"id":2}\n');
  });

  test("what arrives before the transport listens waits for it", async () => {
    const file = new PassThrough();
    const input = standardInput(file, () => new PassThrough());
    file.write('{"id":1}\n');
    await Bun.sleep(10);
    const text = drain(input);
    file.end();
    expect(await text).toBe('{"id":1}\n');
  });

  test("a descriptor left non-blocking (EAGAIN) hands over to process.stdin's polling reader, nothing lost", async () => {
    const file = new PassThrough();
    const polled = new PassThrough();
    let fellBack = 0;
    const input = standardInput(file, () => {
      fellBack++;
      return polled;
    });
    const text = drain(input);
    file.write('{"id":1}\n');
    await Bun.sleep(10);
    file.emit("error", errno("EAGAIN"));
    polled.write('{"id":2}\n');
    polled.end('{"id":3}\n');
    expect(await text).toBe('{"id":1}\n{"id":2}\n{"id":3}\n');
    expect(fellBack).toBe(1);
  });

  test("any other read error ends the input with that error", async () => {
    const file = new PassThrough();
    const input = standardInput(file, () => new PassThrough());
    const text = drain(input);
    file.emit("error", errno("EIO"));
    await expect(text).rejects.toThrow("EIO");
  });
});

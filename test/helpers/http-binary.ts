import type { Subprocess } from "bun";
import { HANG_MS } from "./wait.ts";

/** What the server logs once it listens: "listening on http://HOST:PORT/mcp". */
export const LISTENING = /listening on (http:\/\/\S+\/mcp)/;

export interface HttpBinary {
  /** The MCP endpoint the server reported. */
  url: string;
  /** http://HOST:PORT, for /healthz. */
  base: string;
  proc: Subprocess<"ignore", "ignore", "pipe">;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number>;
}

/**
 * Start `bin serve --transport http --port 0 ...args` and wait for the URL it
 * logs to stderr (the port is picked by the OS, so the log is the only source).
 * Used by the binary end-to-end test, `make conformance` and `make bench-http`.
 */
export async function startHttpBinary(
  bin: string,
  args: string[],
  options: { env: Record<string, string>; cwd?: string; timeoutMs?: number; logLevel?: "DEBUG" | "INFO" },
): Promise<HttpBinary> {
  // The URL is logged at INFO: a quieter LOG_LEVEL in `env` must not hide it.
  const proc = Bun.spawn(
    [bin, "serve", "--transport", "http", "--port", "0", "--log-level", options.logLevel ?? "INFO", ...args],
    {
      env: options.env,
      cwd: options.cwd,
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  let text = "";
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  const deadline = Date.now() + (options.timeoutMs ?? HANG_MS);
  let url: string | undefined;
  while (!url) {
    url = LISTENING.exec(text)?.[1];
    if (url) break;
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`skillhub did not report a URL (exit ${proc.exitCode}); stderr:\n${text}`);
    }
    await Bun.sleep(20);
  }
  return {
    url,
    base: url.replace(/\/mcp$/, ""),
    proc,
    stderr: () => text,
    async stop() {
      proc.kill("SIGTERM");
      const code = await proc.exited;
      await pump.catch(() => undefined);
      return code;
    },
  };
}

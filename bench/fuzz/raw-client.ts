/**
 * A JSON-RPC client that talks to the binary over raw stdio lines, so it can
 * send what no SDK client would (garbage, oversized lines) and check that
 * every stdout line is JSON.
 */
export type Message = { id?: unknown; result?: unknown; error?: { code: number; message: string }; method?: string };

export class RawStdio {
  readonly proc: ReturnType<typeof Bun.spawn>;
  /** Every stdout line that is not a JSON object. */
  readonly nonJson: string[] = [];
  stdoutText = "";
  stderrText = "";
  private nextId = 1;
  private readonly waiting = new Map<string, (m: Message) => void>();

  constructor(command: string[], env: Record<string, string>, cwd: string) {
    this.proc = Bun.spawn(command, { env, cwd, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    void this.readStdout(this.proc.stdout as ReadableStream<Uint8Array>);
    void this.readStderr(this.proc.stderr as ReadableStream<Uint8Array>);
  }

  /** Send a line as is (a string) or a JSON value. */
  send(message: unknown): void {
    const sink = this.proc.stdin as import("bun").FileSink;
    sink.write(typeof message === "string" ? `${message}\n` : `${JSON.stringify(message)}\n`);
    void sink.flush();
  }

  /** A request; resolves with the response, or "timeout" after `ms`. */
  request(method: string, params: unknown, ms = 10_000): Promise<Message | "timeout"> {
    const id = `f${this.nextId++}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve("timeout");
      }, ms);
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  async initialize(): Promise<boolean> {
    const init = await this.request(
      "initialize",
      {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "skillhub-fuzz", version: "1" },
      },
      30_000,
    );
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return init !== "timeout" && init.result !== undefined;
  }

  /** Alive and answering: a ping within `ms`. */
  async alive(ms = 10_000): Promise<boolean> {
    const pong = await this.request("ping", {}, ms);
    return pong !== "timeout" && pong.error === undefined;
  }

  /** Close stdin; the exit code, or "hang" when it has not exited within `ms`. */
  async end(ms = 5_000): Promise<number | "hang"> {
    (this.proc.stdin as import("bun").FileSink).end();
    const code = await Promise.race([this.proc.exited, Bun.sleep(ms).then(() => "hang" as const)]);
    if (code === "hang") this.proc.kill("SIGKILL");
    return code;
  }

  private async readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      this.stdoutText += text;
      buffer += text;
      let nl = buffer.indexOf("\n");
      while (nl >= 0) {
        this.onLine(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf("\n");
      }
    }
    if (buffer.trim() !== "") this.onLine(buffer);
  }

  private onLine(line: string): void {
    if (line.trim() === "") return;
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
      if (typeof message !== "object" || message === null) throw new Error("not an object");
    } catch {
      this.nonJson.push(line.slice(0, 200));
      return;
    }
    const id = typeof message.id === "string" ? message.id : undefined;
    if (id && this.waiting.has(id)) {
      const resolve = this.waiting.get(id);
      this.waiting.delete(id);
      resolve?.(message);
    }
  }

  private async readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) if (this.stderrText.length < 20_000_000) this.stderrText += decoder.decode(chunk);
  }
}

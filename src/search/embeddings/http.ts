import { errorMessage } from "../../util/errors.ts";
import { EmbeddingError, scrubSecrets } from "./errors.ts";

/** I/O and time, injected so tests control them. */
export interface HttpDeps {
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  /** Waits between retries. */
  sleep: (ms: number) => Promise<void>;
  /** Clock in epoch milliseconds (Retry-After as an HTTP date). */
  now: () => number;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export const defaultHttpDeps: HttpDeps = {
  fetch: (input, init) => fetch(input, init),
  sleep: (ms) => Bun.sleep(ms),
  now: Date.now,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** How hard to try: 429 and 5xx are always retried up to `attempts`; timeouts and network errors only if `retryTransport`. */
export interface RetryPolicy {
  /** Requests at most, the first included. */
  attempts: number;
  /** First backoff in ms, doubled each retry. */
  baseDelayMs: number;
  /** Longest wait between two attempts, in ms; a longer Retry-After ends the retries. */
  maxDelayMs: number;
  retryTransport: boolean;
}

/** Background embedding of skills: patient (nobody waits for it; full text answers meanwhile). */
export const BACKGROUND_RETRY: RetryPolicy = {
  attempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  retryTransport: true,
};
/** Embedding a query: someone is waiting, so one quick retry on 429/5xx, then full text. */
export const QUERY_RETRY: RetryPolicy = { attempts: 2, baseDelayMs: 200, maxDelayMs: 1_000, retryTransport: false };

export interface JsonPost {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** Milliseconds for one attempt, response body included. */
  timeoutMs: number;
  /** Values scrubbed from every message (the API key). */
  secrets: readonly (string | undefined)[];
  /** The caller's cancellation (shutdown). */
  signal?: AbortSignal;
}

/** POST JSON, parse the JSON answer; time-limited, retried with backoff on 429/5xx honouring Retry-After. */
export async function postJson(request: JsonPost, policy: RetryPolicy, deps: HttpDeps): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(request, deps);
    if (outcome.ok) return outcome.value;
    const { error, retryAfterMs } = outcome;
    const retryable = outcome.transport ? policy.retryTransport : outcome.retryable;
    if (!retryable || attempt >= policy.attempts) throw error;
    if (retryAfterMs !== undefined && retryAfterMs > policy.maxDelayMs) throw error;
    await deps.sleep(retryAfterMs ?? Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)));
    if (request.signal?.aborted) throw new EmbeddingError("EMBEDDING_ABORTED", "embedding request cancelled");
  }
}

type Attempt =
  | { ok: true; value: unknown }
  /** `transport`: a timeout or network error (retried only if the policy says so); else `retryable` decides. */
  | { ok: false; error: EmbeddingError; retryable: boolean; transport?: boolean; retryAfterMs?: number };

/** One request within its own time limit, body included. Never throws. */
async function attemptOnce(req: JsonPost, io: HttpDeps): Promise<Attempt> {
  const where = hostOf(req.url);
  const controller = new AbortController();
  let timedOut = false;
  const timer = io.setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, req.timeoutMs);
  const onCancel = () => controller.abort();
  req.signal?.addEventListener("abort", onCancel, { once: true });
  try {
    const response = await io.fetch(req.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...req.headers },
      body: JSON.stringify(req.body),
      signal: controller.signal,
    });
    const text = await response.text();
    if (!response.ok) {
      const retryable = response.status === 429 || response.status >= 500;
      const message = scrubSecrets(`HTTP ${response.status} from ${where}${excerpt(text)}`, req.secrets);
      const error = new EmbeddingError("EMBEDDING_HTTP_ERROR", message, { status: response.status });
      return { ok: false, error, retryable, retryAfterMs: retryAfter(response.headers.get("retry-after"), io.now()) };
    }
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (cause) {
      return {
        ok: false,
        retryable: false,
        error: new EmbeddingError("EMBEDDING_BAD_RESPONSE", `${where} answered with something other than JSON`, {
          cause,
        }),
      };
    }
  } catch (cause) {
    if (req.signal?.aborted)
      return {
        ok: false,
        retryable: false,
        error: new EmbeddingError("EMBEDDING_ABORTED", "embedding request cancelled", { cause }),
      };
    if (timedOut) {
      const error = new EmbeddingError(
        "EMBEDDING_TIMEOUT",
        `${where} did not answer within ${formatSeconds(req.timeoutMs)} (EMBEDDING_TIMEOUT_SECONDS)`,
        { cause },
      );
      return { ok: false, error, retryable: true, transport: true };
    }
    const error = new EmbeddingError(
      "EMBEDDING_UNREACHABLE",
      scrubSecrets(`cannot reach ${where}: ${errorMessage(cause)}`, req.secrets),
      { cause },
    );
    return { ok: false, error, retryable: true, transport: true };
  } finally {
    io.clearTimeout(timer);
    req.signal?.removeEventListener("abort", onCancel);
  }
}

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfter(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** scheme://host[:port] only: paths may carry a model name, never a key, but keep logs short. */
function hostOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "the embedding server";
  }
}

/** The start of an error body, on one line: APIs explain themselves there ("model not found"). */
function excerpt(body: string): string {
  let text = body;
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof json.error === "string" ? json.error : (json.error?.message ?? json.message);
    if (typeof message === "string") text = message;
  } catch {
    // Not JSON: show the text itself.
  }
  const line = text.replace(/\s+/g, " ").trim();
  return line ? `: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}` : "";
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

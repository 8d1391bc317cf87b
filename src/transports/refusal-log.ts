import type { Logger } from "../util/logger.ts";
import { loggedPath } from "./archive-links.ts";

/** How often one address's refusals of one status are said: once a minute. */
const EVERY_MS = 60_000;

/** Addresses remembered at most; past it, the memory starts over. */
const KEPT = 1000;

/**
 * Refused requests (by default 401: the token; 403: Host or Origin) said in the log at INFO, so whoever
 * runs a hub sees why a client cannot connect. Once a minute per address and status: a client retrying,
 * or a flood of bad requests, writes a line a minute.
 */
export class RefusalLog {
  private readonly last = new Map<string, number>();

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    /** The statuses said. */
    private readonly statuses: readonly number[] = [401, 403],
  ) {}

  async note(request: Request, response: Response, peer: string): Promise<void> {
    if (!this.statuses.includes(response.status)) return;
    const key = `${peer}\0${response.status}`;
    const now = this.now();
    const last = this.last.get(key);
    if (last !== undefined && now - last < EVERY_MS) return;
    if (this.last.size >= KEPT) this.last.clear();
    this.last.set(key, now);
    const reason = await response
      .clone()
      .json()
      .then((body) => (body as { error?: { message?: unknown } }).error?.message)
      .catch(() => undefined);
    this.log.info(
      `http: refused ${request.method} ${loggedPath(request)} from ${peer || "a client"} (${response.status}${typeof reason === "string" ? `: ${reason}` : ""}); said once a minute per address`,
    );
  }
}

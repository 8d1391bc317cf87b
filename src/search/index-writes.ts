import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";

/**
 * The saves of one index file, in order and never two at once; a failed write is logged and reported,
 * so that the index is saved again later.
 */
export class IndexWrites {
  private inFlight?: Promise<void>;

  constructor(
    private readonly logger: Logger,
    private readonly failed: () => void,
  ) {}

  /** Run `writing` (of `file`) once the write in flight has ended. */
  queue(file: string, writing: () => Promise<void>): Promise<void> {
    const previous = this.inFlight ?? Promise.resolve();
    this.inFlight = previous.then(async () => {
      try {
        await writing();
      } catch (error) {
        this.failed();
        this.logger.warn(`could not save the search index to ${file}: ${errorMessage(error)}`);
      }
    });
    return this.inFlight;
  }

  /** Resolves when no write is in flight. */
  async idle(): Promise<void> {
    while (this.inFlight) {
      const current = this.inFlight;
      await current;
      if (this.inFlight === current) this.inFlight = undefined;
    }
  }
}

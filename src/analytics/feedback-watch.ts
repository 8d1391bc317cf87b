import type { Logger } from "../util/logger.ts";

export interface FeedbackWatchOptions {
  logger: Logger;
  /** "Not useful" reports on one skill that raise a warning (and every multiple of it). Default 3. */
  threshold?: number;
  /** Most distinct skill paths remembered, so a client cannot grow memory without bound. Default 10,000. */
  maxSkills?: number;
}

/**
 * Repeated negative feedback on a skill is a signal in the
 * logs. Counts per process, whether or not analytics is on.
 */
export class FeedbackWatch {
  private readonly negatives = new Map<string, number>();
  private readonly threshold: number;
  private readonly maxSkills: number;

  constructor(private readonly options: FeedbackWatchOptions) {
    this.threshold = Math.max(1, options.threshold ?? 3);
    this.maxSkills = options.maxSkills ?? 10_000;
  }

  /** Record one report; returns the skill's "not useful" count in this process. */
  record(skillPath: string, useful: boolean, comment?: string): number {
    if (useful) return this.negatives.get(skillPath) ?? 0;
    const known = this.negatives.has(skillPath);
    if (!known && this.negatives.size >= this.maxSkills) return 0;
    const count = (this.negatives.get(skillPath) ?? 0) + 1;
    this.negatives.set(skillPath, count);
    if (count % this.threshold === 0) {
      const latest = comment ? ` (latest comment: ${JSON.stringify(comment.slice(0, 200))})` : "";
      this.options.logger.warn(
        `skill ${JSON.stringify(skillPath)} was reported "not useful" ${count} times in this session${latest}; it may need better instructions or keywords. \`skillhub stats\` lists the comments.`,
      );
    }
    return count;
  }
}

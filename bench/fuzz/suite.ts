/** Case bookkeeping for the fuzz suite: pass, fail, or an expected failure with its reason. */
export interface CaseOutcome {
  name: string;
  status: "passed" | "failed" | "expected-fail" | "unexpected-pass";
  detail?: string;
}

export class Suite {
  readonly outcomes: CaseOutcome[] = [];
  private readonly deadline: number;

  constructor(seconds: number) {
    this.deadline = Date.now() + seconds * 1000;
  }

  get outOfTime(): boolean {
    return Date.now() > this.deadline;
  }

  /**
   * Run one case: it passes when `fn` returns true (or nothing) and throws
   * nothing. `expectedFail` names the pending work that makes it fail today.
   */
  async check(name: string, fn: () => Promise<boolean | undefined> | boolean | undefined, expectedFail?: string) {
    if (this.outOfTime) {
      this.outcomes.push({ name, status: "failed", detail: "not run: FUZZ_SECONDS ran out" });
      return;
    }
    let ok = false;
    let detail: string | undefined;
    try {
      ok = (await fn()) !== false;
    } catch (error) {
      detail = error instanceof Error ? error.message : String(error);
    }
    const status = expectedFail ? (ok ? "unexpected-pass" : "expected-fail") : ok ? "passed" : "failed";
    this.outcomes.push({ name, status, detail: expectedFail && !ok ? expectedFail : detail });
    if (status === "failed") process.stderr.write(`FAIL ${name}${detail ? `: ${detail}` : ""}\n`);
  }

  /** The closing lines; `N passed, N failed` is the last one. */
  summary(): { text: string; failed: number } {
    const count = (s: CaseOutcome["status"]) => this.outcomes.filter((o) => o.status === s).length;
    const lines = this.outcomes
      .filter((o) => o.status !== "passed")
      .map((o) => `  ${o.status.padEnd(15)} ${o.name}${o.detail ? ` — ${o.detail}` : ""}`);
    const failed = count("failed");
    const xfail = count("expected-fail");
    const xpass = count("unexpected-pass");
    const extra = [xfail ? `${xfail} expected failures` : "", xpass ? `${xpass} unexpected passes` : ""]
      .filter(Boolean)
      .join(", ");
    lines.push(`${count("passed")} passed, ${failed} failed${extra ? ` (${extra})` : ""}`);
    return { text: lines.join("\n"), failed };
  }
}

/** Assertion helper: throws with `message` when `condition` is false. */
export function must(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

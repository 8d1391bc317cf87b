import { describe, expect, test } from "bun:test";
import { createLogger } from "../../src/util/logger.ts";

describe("the logger", () => {
  const at = Date.UTC(2026, 11, 1, 5, 0, 0);
  /** What a DEBUG logger writes for the calls `log` makes, one string per call. */
  const logged = (log: (logger: ReturnType<typeof createLogger>) => void) => {
    const written: string[] = [];
    log(createLogger({ level: "DEBUG", write: (line) => written.push(line), now: () => at }));
    return written;
  };

  test("one call writes one line: line breaks and other controls in a message are written as \\uXXXX", () => {
    const forged = "2026-12-01T04:44:00.000Z skillhub INFO  repo team: the copy is verified.";
    const written = logged((logger) => logger.warn(`origin file:///x\n${forged}\r${forged}\u2028\u001b[2J\tend`));
    expect(written).toEqual([
      `2026-12-01T05:00:00.000Z skillhub WARN  origin file:///x\\u000a${forged}\\u000d${forged}\\u2028\\u001b[2J\tend\n`,
    ]);
  });

  test("credentials in a URL are hidden, and text that needs no escape is written as it is", () => {
    const written = logged((logger) => logger.info("cloning https://bot:s3cret@example.com/team.git — équipe 团队"));
    expect(written).toEqual([
      "2026-12-01T05:00:00.000Z skillhub INFO  cloning https://***@example.com/team.git — équipe 团队\n",
    ]);
  });
});

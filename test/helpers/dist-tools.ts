/**
 * System tools some distribution tests need: zip and unzip (the Windows release archive) and ruby
 * (the Homebrew formula). `make test` installs no system package, so a test that needs a missing one
 * is skipped, and the whole run says so once, on one line. `.ci/run` installs them with apt-get.
 */
export type DistTool = "zip" | "unzip" | "ruby";

const ALL: readonly DistTool[] = ["zip", "unzip", "ruby"];

/** Which of `tools` are not on `path`. */
export function missingTools(tools: readonly DistTool[], path = process.env.PATH ?? ""): DistTool[] {
  return tools.filter((tool) => !Bun.which(tool, { PATH: path }));
}

// One line per run, not per test file: bun test loads every file into one process.
const reported = globalThis as { __skillhubDistToolsReported?: boolean };

/**
 * True when every tool in `tools` is on PATH. The first call of a run that finds any dist tool
 * missing prints the one line naming all of them and how to get them.
 */
export function haveTools(...tools: DistTool[]): boolean {
  const missing = missingTools(ALL);
  if (missing.length > 0 && !reported.__skillhubDistToolsReported) {
    reported.__skillhubDistToolsReported = true;
    process.stderr.write(
      `skipping the test/distribution tests that need ${missing.join(", ")} (not on PATH): ` +
        `install them (apt-get install ${missing.join(" ")}, or brew install ${missing.join(" ")}) to run them; .ci/run does\n`,
    );
  }
  return missingTools(tools).length === 0;
}

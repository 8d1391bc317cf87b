import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureNpmTool, type InstallOptions, npmToolInstalled } from "../../scripts/npm-tools.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";
import { eventually } from "../helpers/hub.ts";

afterAll(cleanupTemp);

const NAME = "@example/fake-tool";
const VERSION = "1.2.3";

/**
 * An npm that installs NAME into --prefix as the real one lays a package out, in one of four ways:
 * `ok`; `cut` (the package.json is there, then the run dies, as on a full disk); `stub` (npm exits 0,
 * but the executable a postinstall should have put in place only fails); `truncated` (the executable
 * is a cut-off native file the system refuses to start). Each call is logged, one line.
 */
const FAKE_NPM = `#!/bin/sh
mode="$1"; log="$2"; shift 2
echo "$*" >> "$log"
while [ "$#" -gt 1 ]; do
  if [ "$1" = "--prefix" ]; then prefix="$2"; fi
  shift
done
spec="$1"; name="\${spec%@*}"; version="\${spec##*@}"
dir="$prefix/node_modules/$name"
mkdir -p "$dir/bin"
printf '{"name":"%s","version":"%s","bin":{"fake-tool":"bin/fake-tool"}}' "$name" "$version" > "$dir/package.json"
case "$mode" in
  gated) while [ ! -e "$log.go" ]; do sleep 0.05; done
    printf '#!/bin/sh\\necho %s\\n' "$version" > "$dir/bin/fake-tool" ;;
  ok) printf '#!/bin/sh\\necho %s\\n' "$version" > "$dir/bin/fake-tool" ;;
  cut) exit 1 ;;
  stub) printf '#!/bin/sh\\necho "the native executable is missing" >&2\\nexit 1\\n' > "$dir/bin/fake-tool" ;;
  truncated) printf '\\177ELF\\002\\001' > "$dir/bin/fake-tool" ;;
esac
chmod +x "$dir/bin/fake-tool"
`;

/** A checkout with no tools yet, and an npm behaving as `mode`; `calls()` counts its runs. */
function machine() {
  const root = tempDir("skillhub-npm-tools-");
  const script = join(root, "fake-npm.sh");
  const log = join(root, "npm-calls.log");
  writeFileSync(script, FAKE_NPM);
  const options = (mode: "ok" | "cut" | "stub" | "truncated" | "gated"): InstallOptions => ({
    root,
    npm: ["/bin/sh", script, mode, log],
    check: { bin: "fake-tool", args: ["--version"] },
  });
  const calls = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").length : 0);
  const prefix = join(root, ".tools", "npm", `@example+fake-tool@${VERSION}`);
  return { root, options, calls, prefix, log };
}

/** Runs ensureNpmTool with stderr's "Installing …" line kept out of the test output. */
function ensure(options: InstallOptions): string {
  const write = process.stderr.write;
  process.stderr.write = () => true;
  try {
    return ensureNpmTool(NAME, VERSION, options);
  } finally {
    process.stderr.write = write;
  }
}

describe("the pinned tools in .tools/npm count as installed only once their install has completed", () => {
  test("a complete install is kept: the second call runs no npm", () => {
    const m = machine();
    const dir = ensure(m.options("ok"));
    expect(dir).toBe(join(m.prefix, "node_modules", NAME));
    expect(npmToolInstalled(NAME, VERSION, m.options("ok"))).toBe(true);
    expect(ensure(m.options("ok"))).toBe(dir);
    expect(m.calls()).toBe(1);
  });

  test("a folder an install cut short left (its package.json there, no stamp) is installed again, not taken as done", () => {
    const m = machine();
    // What an interrupted run leaves: the package's package.json, an executable that cannot run.
    const dir = join(m.prefix, "node_modules", NAME);
    mkdirSync(join(dir, "bin"), { recursive: true });
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: NAME, version: VERSION, bin: { "fake-tool": "bin/fake-tool" } }),
    );
    writeFileSync(join(dir, "bin", "fake-tool"), "\x7fELF\x02");
    expect(npmToolInstalled(NAME, VERSION, m.options("ok"))).toBe(false);
    ensure(m.options("ok"));
    expect(m.calls()).toBe(1);
    expect(
      Bun.spawnSync([join(dir, "bin", "fake-tool")])
        .stdout.toString()
        .trim(),
    ).toBe(VERSION);
    expect(npmToolInstalled(NAME, VERSION, m.options("ok"))).toBe(true);
  });

  test("npm dying mid-install fails, removes what it left, and the next run installs afresh", () => {
    const m = machine();
    expect(() => ensure(m.options("cut"))).toThrow(
      `npm could not install ${NAME}@${VERSION}; the partial install is removed, and the next run installs it again`,
    );
    expect(existsSync(m.prefix)).toBe(false);
    expect(npmToolInstalled(NAME, VERSION, m.options("ok"))).toBe(false);
    ensure(m.options("ok"));
    expect(npmToolInstalled(NAME, VERSION, m.options("ok"))).toBe(true);
    expect(m.calls()).toBe(2);
  });

  test("npm exits 0 but the executable fails its check: not installed, and the error says which command failed", () => {
    const m = machine();
    expect(() => ensure(m.options("stub"))).toThrow(
      "the installed fake-tool does not run (`fake-tool --version` exited 1: the native executable is missing)",
    );
    expect(npmToolInstalled(NAME, VERSION, m.options("ok"))).toBe(false);
    expect(existsSync(m.prefix)).toBe(false);
  });

  test("a truncated native executable the system refuses to start fails the check too", () => {
    const m = machine();
    expect(() => ensure(m.options("truncated"))).toThrow("the installed fake-tool does not run (`fake-tool --version`");
    expect(npmToolInstalled(NAME, VERSION, m.options("ok"))).toBe(false);
    ensure(m.options("ok"));
    expect(npmToolInstalled(NAME, VERSION, m.options("ok"))).toBe(true);
  });

  test("two runs at once install once: the second waits for the first's install, then uses it", async () => {
    const m = machine();
    const run = (mode: "ok" | "gated") =>
      Bun.spawn(
        [
          process.execPath,
          "-e",
          `const { ensureNpmTool } = await import(${JSON.stringify(join(import.meta.dir, "../../scripts/npm-tools.ts"))});
           ensureNpmTool(${JSON.stringify(NAME)}, ${JSON.stringify(VERSION)}, ${JSON.stringify(m.options(mode))});`,
        ],
        { stdout: "pipe", stderr: "pipe" },
      );
    const first = run("gated");
    let err = "";
    let second: ReturnType<typeof run> | undefined;
    try {
      await eventually(() => m.calls() === 1);
      second = run("ok");
      const said = second.stderr.getReader();
      while (!err.includes("Waiting for another run's install")) {
        const { value, done } = await said.read();
        if (done) break;
        err += new TextDecoder().decode(value);
      }
      expect(err).toContain("Waiting for another run's install");
    } finally {
      // The first run's npm waits for this word, whatever happened above.
      writeFileSync(`${m.log}.go`, "");
    }
    expect(await first.exited).toBe(0);
    expect(await second?.exited).toBe(0);
    // The second run saw the first's finished install: npm ran once, the stamp is there.
    expect(m.calls()).toBe(1);
    expect(npmToolInstalled(NAME, VERSION, m.options("ok"))).toBe(true);
    expect(existsSync(`${m.prefix}.lock`)).toBe(false);
  });
});

import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { compileArgs } from "../../scripts/build.ts";
import { bundleName } from "../../scripts/release/mcpb.ts";
import { readSums, sha256File } from "../../scripts/release/pack.ts";
import { archiveName, checkVersion, TARGETS, targetById } from "../../scripts/release/targets.ts";
import { smoke } from "../../scripts/smoke.ts";
import { binary } from "../helpers/binary.ts";
import { haveTools } from "../helpers/dist-tools.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";
import { fakeRelease } from "./fake-release.ts";

afterAll(cleanupTemp);
// Every target means a Windows .zip too.
const zip = haveTools("zip");
const unzip = haveTools("zip", "unzip");

const sh = (argv: string[], cwd?: string) => {
  const proc = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode, out: proc.stdout.toString(), err: proc.stderr.toString() };
};

describe("release archives", () => {
  test.if(zip)(
    "one archive and one MCP Bundle per target, named skillhub-<version>-<os>-<arch>, listed in a sha256sum-compatible SHA256SUMS",
    async () => {
      const dir = await fakeRelease(tempDir("skillhub-release-"), "1.2.3");
      expect(TARGETS.map((t) => t.id)).toEqual([
        "linux-x64",
        "linux-arm64",
        "linux-x64-musl",
        "darwin-x64",
        "darwin-arm64",
        "windows-x64",
      ]);
      const sums = readSums(join(dir, "SHA256SUMS"));
      expect([...sums.keys()].sort()).toEqual(
        TARGETS.flatMap((t) => [archiveName("1.2.3", t), bundleName("1.2.3", t)]).sort(),
      );
      for (const [name, sha] of sums) expect(await sha256File(join(dir, name))).toBe(sha);
      const checked = sh(["sha256sum", "-c", "SHA256SUMS"], dir);
      expect(checked.code).toBe(0);
      expect(checked.out).toContain("skillhub-1.2.3-windows-x64.zip: OK");
      expect(checked.out).toContain("skillhub-1.2.3-darwin-arm64.mcpb: OK");
    },
  );

  test(".tar.gz holds the executable and a skillhub-mcp symlink, owned by root, with no top folder", async () => {
    const dir = await fakeRelease(tempDir("skillhub-release-"), "1.2.3", [targetById("linux-arm64")]);
    const listing = sh(["tar", "-tvzf", join(dir, "skillhub-1.2.3-linux-arm64.tar.gz")])
      .out.trim()
      .split("\n");
    expect(listing).toHaveLength(2);
    expect(listing[0]).toMatch(/^-rwxr-xr-x 0\/0 .* skillhub$/);
    expect(listing[1]).toMatch(/^lrwxrwxrwx 0\/0 .* skillhub-mcp -> skillhub$/);
  });

  test.if(unzip)(".zip for Windows holds skillhub.exe and a skillhub-mcp.exe copy", async () => {
    const dir = await fakeRelease(tempDir("skillhub-release-"), "1.2.3", [targetById("windows-x64")]);
    const listing = sh(["unzip", "-Z1", join(dir, "skillhub-1.2.3-windows-x64.zip")])
      .out.trim()
      .split("\n");
    expect(listing).toEqual(["skillhub.exe", "skillhub-mcp.exe"]);
  });

  test.if(zip)("the same binaries give byte-identical archives", async () => {
    const a = await fakeRelease(tempDir("skillhub-release-a-"), "1.2.3");
    await Bun.sleep(1100); // a later mtime on the inputs must not leak into the archives
    const b = await fakeRelease(tempDir("skillhub-release-b-"), "1.2.3");
    expect(readFileSync(join(b, "SHA256SUMS"), "utf8")).toBe(readFileSync(join(a, "SHA256SUMS"), "utf8"));
  });
});

describe("compile flags (scripts/build.ts)", () => {
  test("bytecode builds are ESM, because src/cli.ts has a top-level await", () => {
    const args = compileArgs({ bytecode: true, version: "1.2.3", target: "bun-darwin-arm64", outfile: "out/x" });
    expect(args).toContain("--bytecode");
    expect(args).toContain("--format=esm");
    expect(args).toContain("--target=bun-darwin-arm64");
    expect(args).toContain('SKILLHUB_VERSION="1.2.3"');
    expect(args).toContain("--no-compile-autoload-dotenv");
    expect(compileArgs({ bytecode: false })).not.toContain("--bytecode");
    expect(compileArgs({ executablePath: "/rt/bun" })).toContain("--compile-executable-path=/rt/bun");
  });

  test("versions are plain semver; a leading v is dropped", () => {
    expect(checkVersion("v1.2.3")).toBe("1.2.3");
    expect(checkVersion("1.0.0-rc.1")).toBe("1.0.0-rc.1");
    expect(() => checkVersion("1.2")).toThrow("not a semver version");
    expect(() => checkVersion("1.2.3/../x")).toThrow();
  });
});

describe("the release smoke test (scripts/smoke.ts, run by make release and the release workflow)", () => {
  test("passes for the built binary: --version, initialize, tools/list", async () => {
    await smoke(binary(), process.env.VERSION ?? pkg.version);
  });

  test("fails when the binary reports another version", async () => {
    await expect(smoke(binary(), "9.9.9")).rejects.toThrow('expected "9.9.9"');
  });
});

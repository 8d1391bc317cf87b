import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { HOMEPAGE, TARGETS } from "../../scripts/release/targets.ts";
import { haveTools } from "../helpers/dist-tools.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";
import { selfSignedCert } from "../helpers/git.ts";
import { fakeRelease, serveReleases, tamper } from "./fake-release.ts";

const ROOT = join(import.meta.dir, "..", "..");
const SCRIPT = join(ROOT, "install.sh");
// dash is Debian's /bin/sh: no bashisms get through.
const SHELL = Bun.which("dash") ?? "/bin/sh";
const VERSION = "0.9.1";

let server: ReturnType<typeof Bun.serve>;
let secure: ReturnType<typeof Bun.serve> | undefined;
let caFile: string;
let requests: string[] = [];
let good: string;
let tampered: string;
let broken: string;

// The fake release holds every target, the Windows .zip too.
const ready = haveTools("zip");

beforeAll(async () => {
  if (!ready) return;
  good = await fakeRelease(tempDir("skillhub-install-good-"), VERSION);
  // Same SHA256SUMS, but one archive's bytes changed after the sums were written.
  tampered = await fakeRelease(tempDir("skillhub-install-bad-"), VERSION);
  tamper(tampered, `skillhub-${VERSION}-linux-x64.tar.gz`);
  broken = await fakeRelease(
    tempDir("skillhub-install-broken-"),
    VERSION,
    undefined,
    "#!/bin/sh\necho 'Error loading shared library libstdc++.so.6' >&2\nexit 127\n",
  );
  ({ server, requests } = serveReleases(() => ({ good, tampered, broken })));
  const tls = selfSignedCert();
  if (!tls) return;
  caFile = join(tempDir("skillhub-install-ca-"), "ca.pem");
  writeFileSync(caFile, tls.cert);
  // An https mirror: /good/<file> serves the release; /to-https/ and /to-http/ redirect there, or to the
  // plain-http server, as a mirror or a CDN in the middle could.
  secure = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls,
    fetch(request) {
      const [, which, name = ""] = new URL(request.url).pathname.split("/");
      if (which === "to-https") return Response.redirect(`https://127.0.0.1:${secure?.port}/good/${name}`, 302);
      if (which === "to-http") return Response.redirect(`http://127.0.0.1:${server.port}/good/${name}`, 302);
      if (which !== "good" || !existsSync(join(good, name))) return new Response("not found", { status: 404 });
      return new Response(Bun.file(join(good, name)));
    },
  });
});
afterAll(async () => {
  server?.stop(true);
  secure?.stop(true);
  await cleanupTemp();
});

/**
 * Run install.sh as a user would, with a fresh HOME and the machine's tools on PATH; with `piped`, that text
 * read by the shell from its stdin, as `curl … | sh` gives it.
 */
async function install(env: Record<string, string>, release = "good", piped?: string) {
  const home = tempDir("skillhub-install-home-");
  const installDir = join(home, ".local", "bin");
  const proc = Bun.spawn(piped === undefined ? [SHELL, SCRIPT] : [SHELL], {
    ...(piped === undefined ? {} : { stdin: Buffer.from(piped) }),
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      SKILLHUB_DOWNLOAD_URL: `http://127.0.0.1:${server.port}/${release}`,
      SKILLHUB_UNAME_S: "Linux",
      SKILLHUB_UNAME_M: "x86_64",
      SKILLHUB_LIBC: "glibc",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, out, err] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, out, err, installDir: env.INSTALL_DIR ?? installDir };
}

const runInstalled = (path: string, arg: string) =>
  Bun.spawnSync([path, arg], { stdout: "pipe" }).stdout.toString().trim();

describe.if(ready)("install.sh", () => {
  test("installs the latest release for this platform into ~/.local/bin and says what to do next", async () => {
    const r = await install({});
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const bin = join(r.installDir, "skillhub");
    expect(runInstalled(bin, "--version")).toBe(VERSION);
    expect(runInstalled(bin, "serve")).toBe("fake skillhub linux-x64 serve");
    expect(lstatSync(join(r.installDir, "skillhub-mcp")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(r.installDir, "skillhub-mcp"))).toBe("skillhub");
    expect(r.out).toContain(`Installed SkillHub ${VERSION} to ${bin}`);
    expect(r.out).toContain(`${bin} print-config claude-desktop`);
    expect(r.out).toContain("is not on your PATH");
  });

  test("takes VERSION (with or without v), INSTALL_DIR, and picks the musl build on musl", async () => {
    const dir = join(tempDir("skillhub-install-dir-"), "my tools");
    const r = await install({ VERSION: `v${VERSION}`, INSTALL_DIR: dir, SKILLHUB_LIBC: "musl" });
    expect(r.err).toBe("");
    expect(runInstalled(join(dir, "skillhub"), "x")).toBe("fake skillhub linux-x64-musl x");
    expect(requests).toContain(`/good/skillhub-${VERSION}-linux-x64-musl.tar.gz`);
    // The next step, quoted so that it can be pasted.
    expect(r.out).toContain(`\n  '${dir}/skillhub' print-config claude-desktop\n`);
  });

  test("maps macOS on Apple silicon to darwin-arm64, and SKILLHUB_PLATFORM skips detection", async () => {
    const mac = await install({ SKILLHUB_UNAME_S: "Darwin", SKILLHUB_UNAME_M: "arm64" });
    expect(runInstalled(join(mac.installDir, "skillhub"), "x")).toBe("fake skillhub darwin-arm64 x");
    const forced = await install({ SKILLHUB_PLATFORM: "linux-arm64", SKILLHUB_UNAME_S: "Plan9" });
    expect(runInstalled(join(forced.installDir, "skillhub"), "x")).toBe("fake skillhub linux-arm64 x");
  });

  test("refuses an archive whose checksum does not match, and leaves the installed version alone", async () => {
    const dir = tempDir("skillhub-install-keep-");
    writeFileSync(join(dir, "skillhub"), "previous version");
    const r = await install({ INSTALL_DIR: dir }, "tampered");
    expect(r.code).toBe(1);
    expect(r.err).toContain(`checksum mismatch for skillhub-${VERSION}-linux-x64.tar.gz`);
    expect(r.err).toContain("nothing was installed");
    expect(readFileSync(join(dir, "skillhub"), "utf8")).toBe("previous version");
    expect(existsSync(join(dir, "skillhub-mcp"))).toBe(false);
  });

  test("a copy into the install folder cut short (a full disk) leaves no partial binary there", async () => {
    const dir = tempDir("skillhub-install-full-");
    writeFileSync(join(dir, "skillhub"), "previous version");
    const fakeBin = tempDir("skillhub-install-cp-");
    writeFileSync(
      join(fakeBin, "cp"),
      `#!/bin/sh\nhead -c 1000 "$1" > "$2"\necho "cp: error writing '$2': No space left on device" >&2\nexit 1\n`,
    );
    chmodSync(join(fakeBin, "cp"), 0o755);
    const r = await install({ INSTALL_DIR: dir, PATH: `${fakeBin}:${process.env.PATH}` });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`cannot write to ${dir}`);
    expect(readdirSync(dir)).toEqual(["skillhub"]);
    expect(readFileSync(join(dir, "skillhub"), "utf8")).toBe("previous version");
  });

  test("the script cut short anywhere, as `curl | sh` runs what it got, downloads and installs nothing", async () => {
    const text = readFileSync(SCRIPT, "utf8");
    expect((await install({}, "good", text)).code).toBe(0);
    const before = requests.length;
    for (let end = text.indexOf("\n"); end < text.length - 1; end = text.indexOf("\n", end + 1)) {
      const r = await install({}, "good", text.slice(0, end + 1));
      const line = text.slice(0, end).split("\n").length;
      expect({ line, downloads: requests.length - before, out: r.out, installed: existsSync(r.installDir) }).toEqual({
        line,
        downloads: 0,
        out: "",
        installed: false,
      });
    }
  });

  test("refuses an unknown platform with a clear message, before downloading anything", async () => {
    const before = requests.length;
    const os = await install({ SKILLHUB_UNAME_S: "SunOS" });
    expect(os.code).toBe(1);
    expect(os.err).toBe(
      "skillhub install: unsupported operating system: SunOS. SkillHub has builds for Linux, macOS and Windows.\n",
    );
    const cpu = await install({ SKILLHUB_UNAME_M: "riscv64" });
    expect(cpu.err).toContain("unsupported CPU architecture: riscv64");
    const muslArm = await install({ SKILLHUB_UNAME_M: "aarch64", SKILLHUB_LIBC: "musl" });
    expect(muslArm.err).toContain("there is no SkillHub build for linux-arm64-musl");
    const windows = await install({ SKILLHUB_UNAME_S: "MINGW64_NT-10.0" });
    expect(windows.err).toContain("use install.ps1");
    expect(requests.length).toBe(before);
    expect(existsSync(os.installDir)).toBe(false);
  });

  test("asks ldd whether the C library is musl", async () => {
    const fakeBin = tempDir("skillhub-install-ldd-");
    for (const [answer, expected] of [
      ["musl libc (x86_64)\nVersion 1.2.4", "linux-x64-musl"],
      ["ldd (Debian GLIBC 2.36-9+deb12u14) 2.36", "linux-x64"],
    ]) {
      writeFileSync(join(fakeBin, "ldd"), `#!/bin/sh\nprintf '%s\\n' '${answer}' >&2\nexit 1\n`);
      chmodSync(join(fakeBin, "ldd"), 0o755);
      const r = await install({ SKILLHUB_LIBC: "", PATH: `${fakeBin}:${process.env.PATH}` });
      expect(runInstalled(join(r.installDir, "skillhub"), "x")).toBe(`fake skillhub ${expected} x`);
    }
  });

  test("refuses a binary that does not run here, and says why", async () => {
    const r = await install({ SKILLHUB_LIBC: "musl" }, "broken");
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      "the downloaded binary does not run on this machine: Error loading shared library libstdc++.so.6",
    );
    expect(r.err).toContain("apk add libstdc++ libgcc");
    expect(existsSync(join(r.installDir, "skillhub"))).toBe(false);
  });

  test("says so when the requested version is not in the release", async () => {
    const r = await install({ VERSION: "0.0.7" });
    expect(r.code).toBe(1);
    expect(r.err).toContain("lists no skillhub-0.0.7-linux-x64.tar.gz");
  });

  test("knows the same platforms and release URL as scripts/release/targets.ts", () => {
    const text = readFileSync(SCRIPT, "utf8");
    const unix = TARGETS.filter((t) => t.os !== "windows").map((t) => t.id);
    expect(text).toContain(`PLATFORMS="${unix.join(" ")}"`);
    expect(text).toContain(`RELEASES="${HOMEPAGE}/releases"`);
  });
});

/** A PATH of links to every program on this one but `left`: a machine without it. */
function pathWithout(left: string): string {
  const bin = tempDir(`skillhub-install-no-${left}-`);
  const seen = new Set([left]);
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(":")) {
    if (!dir.startsWith("/") || !existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (seen.has(name)) continue;
      seen.add(name);
      symlinkSync(join(dir, name), join(bin, name));
    }
  }
  return bin;
}

describe.if(ready && selfSignedCert() !== undefined)("install.sh over https", () => {
  // Both tools trust the test's certificate; curl reads CURL_CA_BUNDLE, wget its WGETRC file.
  const trusting = () => {
    const wgetrc = join(tempDir("skillhub-install-wgetrc-"), "wgetrc");
    writeFileSync(wgetrc, `ca_certificate = ${caFile}\n`);
    return { CURL_CA_BUNDLE: caFile, WGETRC: wgetrc };
  };
  const mirror = (which: string) => ({ SKILLHUB_DOWNLOAD_URL: `https://127.0.0.1:${secure?.port}/${which}` });

  for (const tool of ["curl", "wget"]) {
    test(`with ${tool}, follows a redirect to https and refuses one to plain http, installing nothing`, async () => {
      const env = { ...trusting(), ...(tool === "wget" ? { PATH: pathWithout("curl") } : {}) };
      if (tool === "wget") expect(Bun.which("wget", { PATH: env.PATH })).not.toBeNull();

      const followed = await install({ ...env, ...mirror("to-https") });
      expect(followed.err).toBe("");
      expect(runInstalled(join(followed.installDir, "skillhub"), "--version")).toBe(VERSION);

      const before = requests.length;
      const downgraded = await install({ ...env, ...mirror("to-http") });
      expect(downgraded.code).toBe(1);
      expect(downgraded.err).toContain(
        tool === "curl"
          ? `could not download ${mirror("to-http").SKILLHUB_DOWNLOAD_URL}/SHA256SUMS`
          : "was redirected to a URL that is not https: refused, nothing was installed",
      );
      expect(existsSync(downgraded.installDir)).toBe(false);
      // curl does not even ask the plain-http server; wget asks, and what it got is thrown away.
      if (tool === "curl") expect(requests.length).toBe(before);
    });
  }
});

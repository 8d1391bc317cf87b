/**
 * What a release contains: one row per platform, and where its files are published.
 * install.sh, install.ps1, the Homebrew formula and the npm packages all follow this table
 * (test/distribution checks that they agree with it).
 */

/** The GitHub repository releases are published from. */
export const REPOSITORY = "skillhub-dev/skillhub";
export const HOMEPAGE = `https://github.com/${REPOSITORY}`;
/** The folder holding one version's archives and SHA256SUMS. */
export const downloadBase = (version: string) => `${HOMEPAGE}/releases/download/v${version}`;
/** The Homebrew tap repository (`brew install skillhub-dev/tap/skillhub`). */
export const TAP = "skillhub-dev/homebrew-tap";
/** npm scope of the per-platform packages that carry the binaries. */
export const NPM_SCOPE = "@skillhub-dev";

export interface Target {
  /** `<os>-<arch>[-musl]`, the suffix of archive names. */
  id: string;
  /**
   * Bun's compile target. x64 Linux and Windows use Bun's "baseline" build (no AVX2) so that old
   * CPUs and VMs that hide AVX get a working binary rather than "Illegal instruction"; every Mac
   * that runs a supported macOS has AVX2.
   */
  bun: string;
  os: "linux" | "darwin" | "windows";
  arch: "x64" | "arm64";
  libc?: "glibc" | "musl";
  /** ".exe" on Windows. */
  exe: "" | ".exe";
  /** ".zip" on Windows, where tar is not always at hand; ".tar.gz" elsewhere. */
  archive: ".tar.gz" | ".zip";
}

export const TARGETS: readonly Target[] = [
  {
    id: "linux-x64",
    bun: "bun-linux-x64-baseline",
    os: "linux",
    arch: "x64",
    libc: "glibc",
    exe: "",
    archive: ".tar.gz",
  },
  { id: "linux-arm64", bun: "bun-linux-arm64", os: "linux", arch: "arm64", libc: "glibc", exe: "", archive: ".tar.gz" },
  {
    id: "linux-x64-musl",
    bun: "bun-linux-x64-musl-baseline",
    os: "linux",
    arch: "x64",
    libc: "musl",
    exe: "",
    archive: ".tar.gz",
  },
  { id: "darwin-x64", bun: "bun-darwin-x64", os: "darwin", arch: "x64", exe: "", archive: ".tar.gz" },
  { id: "darwin-arm64", bun: "bun-darwin-arm64", os: "darwin", arch: "arm64", exe: "", archive: ".tar.gz" },
  { id: "windows-x64", bun: "bun-windows-x64-baseline", os: "windows", arch: "x64", exe: ".exe", archive: ".zip" },
];

/** `skillhub-<version>-<target>` without extension. */
export const archiveStem = (version: string, target: Target) => `skillhub-${version}-${target.id}`;
export const archiveName = (version: string, target: Target) => archiveStem(version, target) + target.archive;

/** The row for `id`, or an error naming the known ones. */
export function targetById(id: string): Target {
  const target = TARGETS.find((t) => t.id === id);
  if (!target) throw new Error(`unknown target "${id}"; known: ${TARGETS.map((t) => t.id).join(", ")}`);
  return target;
}

/** The target this machine runs, if it is one we release for (glibc assumed on Linux unless musl is seen). */
export function hostTarget(): Target | undefined {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const musl =
    process.platform === "linux" &&
    !(process.report?.getReport() as { header?: { glibcVersionRuntime?: string } })?.header?.glibcVersionRuntime;
  return TARGETS.find(
    (t) => t.os === os && t.arch === process.arch && (t.os !== "linux" || (t.libc === "musl") === musl),
  );
}

/** Semver without a leading "v"; rejects anything else so that names and URLs stay predictable. */
export function checkVersion(version: string): string {
  const v = version.replace(/^v/, "");
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(v)) throw new Error(`"${version}" is not a semver version (x.y.z)`);
  return v;
}

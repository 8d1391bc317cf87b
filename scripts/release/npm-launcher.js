#!/usr/bin/env node

// `npx skillhub`: run the native binary that npm installed for this platform as an optional
// dependency (the esbuild and biome layout). stdio is passed straight through: stdout is MCP.
// scripts/npm-packages.ts fills in PACKAGES; SKILLHUB_BINARY points at another binary.
const { spawn } = require("node:child_process");

const PACKAGES = /* PACKAGES */ {};

function fail(message) {
  process.stderr.write(`skillhub: ${message}\n`);
  process.exit(1);
}

function platformIds() {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const id = `${os}-${process.arch}`;
  if (process.platform !== "linux") return [id];
  // No glibc version in the report means musl (Alpine); try the other build if that one is missing.
  const header = process.report?.getReport().header;
  return header?.glibcVersionRuntime ? [id, `${id}-musl`] : [`${id}-musl`, id];
}

function binaryPath() {
  if (process.env.SKILLHUB_BINARY) return process.env.SKILLHUB_BINARY;
  const ids = platformIds().filter((id) => PACKAGES[id]);
  if (ids.length === 0)
    fail(`there is no SkillHub build for ${platformIds()[0]}; builds: ${Object.keys(PACKAGES).join(", ")}`);
  for (const id of ids) {
    try {
      return require.resolve(`${PACKAGES[id].name}/bin/${PACKAGES[id].file}`);
    } catch {}
  }
  const wanted = PACKAGES[ids[0]].name;
  return fail(
    `${wanted} is not installed. npm installs it as an optional dependency: reinstall without --omit=optional / --no-optional, or install ${wanted} yourself.`,
  );
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit", windowsHide: true });
const forward = (signal) => child.kill(signal);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, forward);
child.on("error", (error) => fail(`cannot run ${child.spawnfile}: ${error.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so whoever started us sees what happened to the server.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code === null ? 1 : code);
});

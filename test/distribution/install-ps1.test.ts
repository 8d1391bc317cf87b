import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HOMEPAGE, targetById } from "../../scripts/release/targets.ts";
import { CLIENTS } from "../../src/commands/client-configs.ts";

// No PowerShell here: install.ps1 is reviewed by hand and run by users; these checks keep it in step
// with the release layout and with install.sh.
const ps1 = readFileSync(join(import.meta.dir, "..", "..", "install.ps1"), "utf8");
const sh = readFileSync(join(import.meta.dir, "..", "..", "install.sh"), "utf8");

describe("install.ps1", () => {
  test("downloads the windows-x64 zip and SHA256SUMS from the release the packer writes", () => {
    const windows = targetById("windows-x64");
    expect(windows.archive).toBe(".zip");
    expect(ps1).toContain(`$Releases = '${HOMEPAGE}/releases'`);
    expect(ps1).toContain(`$Platform = '${windows.id}'`);
    expect(ps1).toContain('"$base/SHA256SUMS"');
    expect(ps1).toContain("-$Platform\\.zip)$");
  });

  test("verifies the checksum, refuses a mismatch, and never exits the caller's session", () => {
    expect(ps1).toContain("Get-FileHash -Algorithm SHA256");
    expect(ps1).toMatch(/if \(\$actual -ne \$expected\) \{\s+throw "skillhub install: checksum mismatch/);
    expect(ps1).not.toMatch(/^\s*exit\b/m);
  });

  test("takes an archive name with no slash from SHA256SUMS, and keeps the user's Path unexpanded", () => {
    expect(ps1).toContain("[ *](skillhub-([0-9A-Za-z.+-]+)-$Platform\\.zip)$");
    expect(ps1).not.toContain("skillhub-(.+)");
    expect(ps1).toContain("[Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames");
    expect(ps1).toContain("[Microsoft.Win32.RegistryValueKind]::ExpandString");
    expect(ps1).not.toContain("GetEnvironmentVariable('Path'");
  });

  test("both installers name every client print-config knows", () => {
    const list = `${CLIENTS.join(", ")}`;
    expect(ps1).toContain(`$Clients = '${list}'`);
    expect(sh).toContain(`CLIENTS="${list}"`);
  });
});

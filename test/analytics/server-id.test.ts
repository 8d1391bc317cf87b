import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { serverId } from "../../src/analytics/event.ts";
import { runCli } from "../helpers/cli.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";

afterAll(cleanupTemp);

describe("analytics server_id: dev-<user>", () => {
  test("without USER, USERNAME or LOGNAME it is the system's name for the user, as id -un gives it", async () => {
    const id = Bun.spawnSync(["id", "-un"]);
    const user = id.stdout.toString().trim();
    const home = tempDir("skillhub-id-home-");
    // runCli's environment holds HOME and what is given, no USER.
    const doctor = await runCli(["doctor"], { HOME: home, SKILLHUB_ANALYTICS_FILE: join(home, "events.jsonl") });
    if (id.exitCode === 0 && user) expect(doctor.out).toContain(`as dev-${user.replace(/[^A-Za-z0-9._-]/g, "-")}`);
    expect(doctor.out).not.toContain("dev-unknown");
  });

  test("USER wins; a user id with no name is dev-unknown", () => {
    expect(serverId({ USER: "alice" }, () => "root")).toBe("dev-alice");
    expect(serverId({ LOGNAME: "bob smith" }, () => "root")).toBe("dev-bob-smith");
    expect(serverId({}, () => "carol")).toBe("dev-carol");
    expect(
      serverId({}, () => {
        throw new Error("uid 12345 has no name");
      }),
    ).toBe("dev-unknown");
  });
});

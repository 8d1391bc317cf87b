import { describe, expect, test } from "bun:test";
import { resolveConfig } from "../../src/config/resolve.ts";
import { argVariable, childEnv, LIBRARY_PATH_ENV, STARTUP_HOOK_ENV } from "../../src/exec/env.ts";
import { looksLikeCredential, SERVER_SECRET_ENV, withoutSecrets } from "../../src/util/secret-env.ts";

const config = (env: Record<string, string> = {}) => resolveConfig({ env, homeDir: "/h", cwd: "/h" }).config;

describe("environment hygiene", () => {
  test("the server's secrets are dropped by name, case-insensitively, and configured names too", () => {
    const env = {
      PATH: "/bin",
      HOME: "/h",
      GITHUB_TOKEN: "a",
      github_token: "b",
      SKILLHUB_HTTP_TOKEN: "c",
      OPENAI_API_KEY: "d",
      GEMINI_API_KEY: "e",
      EMBEDDING_API_KEY: "f",
      MY_DB_PASSWORD: "g",
    };
    expect(withoutSecrets(env, { names: ["my_db_password"] })).toEqual({ PATH: "/bin", HOME: "/h" });
    expect(SERVER_SECRET_ENV).toEqual([
      "GITHUB_TOKEN",
      "SKILLHUB_HTTP_TOKEN",
      "OPENAI_API_KEY",
      "GEMINI_API_KEY",
      "EMBEDDING_API_KEY",
    ]);
  });

  test("a variable carrying a secret's value under another name is dropped too (short values are not matched)", () => {
    expect(
      withoutSecrets(
        { GH_TOKEN: "ghp_0123456789", SHORT: "abc", OTHER: "x" },
        { values: ["ghp_0123456789", "abc", undefined] },
      ),
    ).toEqual({ SHORT: "abc", OTHER: "x" });
  });

  test("childEnv: secrets from the environment and the config gone, stale SKILL_ARG_* gone, arguments and runner variables added", () => {
    const cfg = config({ SKILLHUB_SECRETS: "DB_URL", GITHUB_TOKEN: "ghp_secret_value" });
    const env = childEnv(
      {
        PATH: "/bin",
        GITHUB_TOKEN: "ghp_secret_value",
        COPY: "ghp_secret_value",
        DB_URL: "postgres://",
        SKILL_ARG_STALE: "old",
        LANG: "C",
      },
      cfg,
      { config_path: "./a.ts", "dry-run": "yes" },
      { BUN_BE_BUN: "1" },
    );
    expect(env).toEqual({
      PATH: "/bin",
      LANG: "C",
      SKILL_ARG_CONFIG_PATH: "./a.ts",
      SKILL_ARG_DRY_RUN: "yes",
      PYTHONDONTWRITEBYTECODE: "1",
      BUN_BE_BUN: "1",
    });
  });

  test("childEnv: every interpreter start-up hook is dropped, unless pass_env names it", () => {
    const hooks = Object.fromEntries(STARTUP_HOOK_ENV.map((name) => [name, "./hook"]));
    expect(childEnv({ PATH: "/bin", ...hooks, NODE_PATH: "/lib" }, config())).toEqual({
      PATH: "/bin",
      NODE_PATH: "/lib",
      PYTHONDONTWRITEBYTECODE: "1",
    });
    expect(childEnv({ BASH_ENV: "./a", NODE_OPTIONS: "--x" }, config({ SKILLHUB_PASS_ENV: "node_options" }))).toEqual({
      NODE_OPTIONS: "--x",
      PYTHONDONTWRITEBYTECODE: "1",
    });
  });

  test("childEnv: bash's exported functions are dropped, unless pass_env names one", () => {
    const inherited = { "BASH_FUNC_ls%%": "() { echo hooked; }", "BASH_FUNC_git%%": "() { :; }", PATH: "/bin" };
    expect(childEnv(inherited, config())).toEqual({ PATH: "/bin", PYTHONDONTWRITEBYTECODE: "1" });
    expect(childEnv(inherited, config({ SKILLHUB_PASS_ENV: "BASH_FUNC_git%%" }))).toEqual({
      "BASH_FUNC_git%%": "() { :; }",
      PATH: "/bin",
      PYTHONDONTWRITEBYTECODE: "1",
    });
  });

  test("childEnv: a PATH with no absolute entry is removed, not left empty (read as the working folder), in any case", () => {
    for (const name of ["PATH", "Path"]) {
      expect(childEnv({ [name]: ":.:bin" }, config())).toEqual({ PYTHONDONTWRITEBYTECODE: "1" });
      expect(childEnv({ [name]: ".:/usr/bin:" }, config())).toEqual({
        [name]: "/usr/bin",
        PYTHONDONTWRITEBYTECODE: "1",
      });
    }
  });

  test("childEnv: library search paths keep their absolute entries only (none left: gone), unless pass_env names them", () => {
    const inherited = { PYTHONPATH: ":lib", NODE_PATH: "/opt/node:./node_modules", CLASSPATH: ".", RUBYLIB: "/r" };
    expect(childEnv(inherited, config())).toEqual({
      NODE_PATH: "/opt/node",
      RUBYLIB: "/r",
      PYTHONDONTWRITEBYTECODE: "1",
    });
    expect(childEnv(inherited, config({ SKILLHUB_PASS_ENV: "pythonpath,CLASSPATH" }))).toEqual({
      PYTHONPATH: ":lib",
      NODE_PATH: "/opt/node",
      CLASSPATH: ".",
      RUBYLIB: "/r",
      PYTHONDONTWRITEBYTECODE: "1",
    });
    for (const name of LIBRARY_PATH_ENV) expect(childEnv({ [name]: "::." }, config())).not.toHaveProperty(name);
  });

  test("argVariable: upper case, anything but [A-Z0-9_] becomes _", () => {
    expect(argVariable("config_path")).toBe("SKILL_ARG_CONFIG_PATH");
    expect(argVariable("out.dir-name")).toBe("SKILL_ARG_OUT_DIR_NAME");
    expect(argVariable("a=b")).toBe("SKILL_ARG_A_B");
  });
});

describe("credential-looking names", () => {
  test("looksLikeCredential: *_KEY, *_TOKEN, *_SECRET, *_PASSWORD, AWS_SECRET*, any case; not KEYBOARD or TOKENS_DIR", () => {
    for (const name of [
      "ANTHROPIC_API_KEY",
      "gitlab_token",
      "X_SECRET",
      "DB_PASSWORD",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_SECRETS",
    ])
      expect({ name, secret: looksLikeCredential(name) }).toEqual({ name, secret: true });
    for (const name of ["KEYBOARD", "TOKENS_DIR", "PASSWORD_STORE_DIR", "SECRETARY", "AWS_REGION", "KEY"])
      expect({ name, secret: looksLikeCredential(name) }).toEqual({ name, secret: false });
  });

  test("childEnv drops them and any copy of their values; pass_env lets one through, never a server secret", () => {
    const cfg = config({ SKILLHUB_PASS_ENV: "NPM_TOKEN,GITHUB_TOKEN" });
    const env = childEnv(
      {
        PATH: "/bin",
        ANTHROPIC_API_KEY: "sk-ant-0123456789",
        HEADER: "x-api-key: sk-ant-0123456789",
        NPM_TOKEN: "npm_0123456789",
        GITHUB_TOKEN: "ghp_0123456789",
      },
      cfg,
    );
    expect(env).toEqual({ PATH: "/bin", NPM_TOKEN: "npm_0123456789", PYTHONDONTWRITEBYTECODE: "1" });
  });
});

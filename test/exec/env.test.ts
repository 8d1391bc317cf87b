import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { resolveConfig } from "../../src/config/resolve.ts";
import {
  argVariable,
  childEnv,
  configSecrets,
  LIBRARY_PATH_ENV,
  SERVER_URL_ENV,
  STARTUP_HOOK_ENV,
} from "../../src/exec/env.ts";
import { GitRunner } from "../../src/refresh/git/git-runner.ts";
import { looksLikeCredential, SERVER_SECRET_ENV, secretVariables, withoutSecrets } from "../../src/util/secret-env.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { fakeGit } from "../helpers/fake-git.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { connect } from "../helpers/hub.ts";
import { writeScriptTree } from "../helpers/scripts.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

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
      "SKILLHUB_ADMIN_TOKEN",
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

  test("childEnv: SkillHub's own URLs are dropped by name (pass_env keeps one), and hidden from the initial environment", () => {
    const inherited = {
      PATH: "/bin",
      ANALYTICS_ENDPOINT: "https://collect.example.com/x?api_key=k1",
      embedding_base_url: "http://127.0.0.1:11434/v1?key=k2",
      OPENAI_BASE_URL: "https://gateway.example.com/v1",
      SKILLHUB_PUBLIC_URL: "https://skills.example.com",
      SKILLS_REPO: "https://github.com/acme/skills.git",
      // Not a setting: a variable a tool of the user's own reads is kept, only the key in its query hidden.
      OLLAMA_HOST: "http://127.0.0.1:11434/v1?key=k2",
    };
    expect(SERVER_URL_ENV).toEqual([
      "SKILLHUB_PUBLIC_URL",
      "EMBEDDING_BASE_URL",
      "OPENAI_BASE_URL",
      "SKILLS_REPO",
      "ANALYTICS_ENDPOINT",
    ]);
    expect(childEnv(inherited, config())).toEqual({
      PATH: "/bin",
      OLLAMA_HOST: "http://127.0.0.1:11434/v1?key=***",
      PYTHONDONTWRITEBYTECODE: "1",
    });
    expect(childEnv(inherited, config({ SKILLHUB_PASS_ENV: "openai_base_url" })).OPENAI_BASE_URL).toBe(
      inherited.OPENAI_BASE_URL,
    );
    // What the server overwrites in its own /proc/<pid>/environ (commands/context.ts).
    expect(secretVariables(inherited, configSecrets(config())).sort()).toEqual(
      [
        "ANALYTICS_ENDPOINT",
        "OLLAMA_HOST",
        "OPENAI_BASE_URL",
        "SKILLHUB_PUBLIC_URL",
        "SKILLS_REPO",
        "embedding_base_url",
      ].sort(),
    );
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

  test("looksLikeCredential: what hands over a credential by reference (an agent's socket, an askpass program, a header, a key file)", () => {
    for (const name of [
      "SSH_AUTH_SOCK",
      "gpg_agent_info",
      "KRB5CCNAME",
      "VSCODE_GIT_IPC_HANDLE",
      "GIT_ASKPASS",
      "SSH_ASKPASS",
      "SUDO_ASKPASS",
      "SKILLHUB_AUTHORIZATION",
      "AUTHORIZATION",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "AWS_SHARED_CREDENTIALS_FILE",
      "POSTGRES_PASSWORD_FILE",
      "AWS_WEB_IDENTITY_TOKEN_FILE",
      "TLS_KEY_FILE",
      "PGPASSWORD",
      "PGPASSFILE",
      "MYSQL_PWD",
      "npm_config__auth",
      "NPM_CONFIG__AUTHTOKEN",
      "CI_JOB_JWT",
      "GNOME_KEYRING_CONTROL",
      "DOCKER_AUTH_CONFIG",
      "GH_PAT",
      "azure_devops_pat",
      "DOCKER_PASS",
      "REGISTRY_PASS_FILE",
      "FTP_PASSWD",
      "GPG_PASSPHRASE",
      "FOO_APIKEY",
      "AZURE_CREDENTIAL",
      "SECRET_KEY_BASE",
      "BW_SESSION",
      "OP_SESSION_my",
      "SLACK_WEBHOOK_URL",
      "DISCORD_WEBHOOK",
    ])
      expect({ name, secret: looksLikeCredential(name) }).toEqual({ name, secret: true });
    // Configuration that merely may point at credentials a script could read as the user anyway, or a process id.
    for (const name of [
      "SSH_AGENT_PID",
      "SSH_ASKPASS_REQUIRE",
      "DOCKER_HOST",
      "KUBECONFIG",
      "GNUPGHOME",
      "DBUS_SESSION_BUS_ADDRESS",
      "DESKTOP_SESSION",
      "WEBHOOK_TIMEOUT_SECONDS",
      "XDG_RUNTIME_DIR",
      "SSL_CERT_FILE",
      "GIT_SSH_COMMAND",
      "NOT_AUTHORIZATION_DIR",
      "PROFILE",
      "PWD",
      "OLDPWD",
      "OAUTH_CALLBACK_PORT",
      "MANPATH",
      "XDG_DATA_PATH",
      "SEARCH_PATTERN",
      "BYPASS",
      "PASSES",
    ])
      expect({ name, secret: looksLikeCredential(name) }).toEqual({ name, secret: false });
  });

  test("childEnv drops the SSH agent, GPG agent, askpass programs and the hub's bearer header; pass_env lets a named one through", () => {
    const base = {
      PATH: "/bin",
      SSH_AUTH_SOCK: "/tmp/ssh-XXXXabcd/agent.4242",
      SSH_AGENT_PID: "4243",
      GPG_AGENT_INFO: "/run/user/1000/gnupg/S.gpg-agent:0:1",
      GIT_ASKPASS: "/usr/share/code/resources/app/extensions/git/dist/askpass.sh",
      VSCODE_GIT_IPC_HANDLE: "/run/user/1000/vscode-git-fe6f77ad41.sock",
      SKILLHUB_AUTHORIZATION: "Bearer s3cret-token-value",
      // A copy of the socket's path under another name goes too.
      GIT_SSH_COMMAND: "ssh -o IdentityAgent=/tmp/ssh-XXXXabcd/agent.4242",
    };
    expect(childEnv(base, config())).toEqual({ PATH: "/bin", SSH_AGENT_PID: "4243", PYTHONDONTWRITEBYTECODE: "1" });
    const passed = childEnv(base, config({ SKILLHUB_PASS_ENV: "SSH_AUTH_SOCK" }));
    expect(passed.SSH_AUTH_SOCK).toBe("/tmp/ssh-XXXXabcd/agent.4242");
    expect(passed.GIT_SSH_COMMAND).toBe("ssh -o IdentityAgent=/tmp/ssh-XXXXabcd/agent.4242");
    expect(passed.SKILLHUB_AUTHORIZATION).toBeUndefined();
    // git keeps the agent (a repository fetched over SSH needs it): the name rule is the scripts' only.
    expect(withoutSecrets(base).SSH_AUTH_SOCK).toBe("/tmp/ssh-XXXXabcd/agent.4242");
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

describe("credentials in bare names, git headers and connection strings", () => {
  test("childEnv: a credential's word alone is a credential's name; KEY, PWD, PAT and MAX_TOKENS are not", () => {
    const credentials = {
      TOKEN: "decoy-token-0001",
      secret: "decoy-secret-0002",
      SECRETS: '{"a":"decoy-0003"}',
      PASSWD: "decoy-passwd-0004",
      PASS: "decoy-pass-0005",
      CREDENTIALS: "decoy-cred-0006",
      CREDENTIAL: "decoy-cred-0007",
      AUTH: "decoy-auth-0008",
      AUTHTOKEN: "decoy-auth-0009",
      JWT: "decoy-jwt-0010",
      TOKEN_FILE: "/run/secrets/token",
      GITHUB_SECRETS: "decoy-0011",
      // `_KEY` after any word, and `APIKEY` whole.
      API_KEY: "decoy-key-0012",
      APIKEY: "decoy-key-0013",
      PRIVATE_KEY: "decoy-key-0014",
      ACCESS_KEY: "decoy-key-0015",
      PASSWORD: "decoy-password-0016",
    };
    const harmless = {
      PATH: "/bin",
      KEY: "sort-by-name",
      PWD: "/home/u/project",
      OLDPWD: "/home/u",
      PAT: "Pat Smith",
      KEYBOARD: "us",
      MAX_TOKENS: "4096",
      OPENAI_MAX_TOKENS: "1024",
      AUTHOR: "Ada",
      OAUTH_CALLBACK_PORT: "8765",
      TOKENIZERS_PARALLELISM: "false",
      SECRETARY: "none",
    };
    expect(childEnv({ ...credentials, ...harmless }, config())).toEqual({ ...harmless, PYTHONDONTWRITEBYTECODE: "1" });
    expect(childEnv({ TOKEN: "decoy-token-0001" }, config({ SKILLHUB_PASS_ENV: "token" })).TOKEN).toBe(
      "decoy-token-0001",
    );
    // Hidden from the server's own /proc/<pid>/environ too.
    expect(secretVariables({ ...credentials, ...harmless }, configSecrets(config())).sort()).toEqual(
      Object.keys(credentials).sort(),
    );
  });

  test("childEnv: git configuration handing over a credential in a header goes; GIT_CONFIG_COUNT's other entries are numbered again", () => {
    const parameters = "'http.https://git.example.com/.extraheader'='Authorization: Bearer decoy-header-0021'";
    const counted = {
      GIT_CONFIG_COUNT: "2",
      GIT_CONFIG_KEY_0: "safe.directory",
      GIT_CONFIG_VALUE_0: "/srv/repo",
      GIT_CONFIG_KEY_1: "http.extraHeader",
      GIT_CONFIG_VALUE_1: "PRIVATE-TOKEN: decoy-glpat-0022",
    };
    expect(childEnv({ PATH: "/bin", GIT_CONFIG_PARAMETERS: parameters, ...counted }, config())).toEqual({
      PATH: "/bin",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "safe.directory",
      GIT_CONFIG_VALUE_0: "/srv/repo",
      PYTHONDONTWRITEBYTECODE: "1",
    });
    const headerFirst = {
      GIT_CONFIG_COUNT: "2",
      GIT_CONFIG_KEY_0: "http.extraHeader",
      GIT_CONFIG_VALUE_0: "Authorization: Bearer decoy-header-0025",
      GIT_CONFIG_KEY_1: "safe.directory",
      GIT_CONFIG_VALUE_1: "*",
    };
    // A count git would refuse, or far above the entries set, costs nothing: only the entries there are read.
    expect(childEnv({ ...headerFirst, GIT_CONFIG_COUNT: "99999999999" }, config())).toEqual({
      PYTHONDONTWRITEBYTECODE: "1",
    });
    expect(childEnv({ ...headerFirst, GIT_CONFIG_COUNT: "999999" }, config()).GIT_CONFIG_KEY_0).toBe("safe.directory");
    expect(childEnv(headerFirst, config())).toEqual({
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "safe.directory",
      GIT_CONFIG_VALUE_0: "*",
      PYTHONDONTWRITEBYTECODE: "1",
    });
    for (const header of ["authorization: Basic ZGVjb3k6MDAyMw==", "X-Api-Key: decoy-0024", "Proxy-Authorization: x"])
      expect(childEnv({ GIT_CONFIG_PARAMETERS: `'http.extraheader'='${header}'` }, config())).toEqual({
        PYTHONDONTWRITEBYTECODE: "1",
      });
    // git configuration without a credential stays, so a script's own git works as the user's does.
    const plain = {
      GIT_CONFIG_PARAMETERS: "'core.autocrlf'='false' 'url.git@github.com:.insteadof'='https://github.com/'",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.extraHeader",
      GIT_CONFIG_VALUE_0: "Accept-Language: en",
    };
    expect(childEnv(plain, config())).toEqual({ ...plain, PYTHONDONTWRITEBYTECODE: "1" });
    // pass_env keeps a named one (and with its entry, the set).
    const passed = config({ SKILLHUB_PASS_ENV: "GIT_CONFIG_PARAMETERS,GIT_CONFIG_VALUE_1" });
    expect(childEnv({ GIT_CONFIG_PARAMETERS: parameters, ...counted }, passed)).toEqual({
      GIT_CONFIG_PARAMETERS: parameters,
      ...counted,
      PYTHONDONTWRITEBYTECODE: "1",
    });
    // Hidden from the server's own /proc/<pid>/environ: the header's entry, and the count that named it.
    const env = { GIT_CONFIG_PARAMETERS: parameters, ...counted, NOTE: "safe.directory" };
    expect(secretVariables(env, configSecrets(config())).sort()).toEqual(
      ["GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_1", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_VALUE_1"].sort(),
    );
  });

  test("childEnv: a password written in a connection string, a URL or an option is hidden, the rest kept", () => {
    const cases: [string, string][] = [
      [
        "Server=db.example.com;Database=app;User Id=sa;Password=decoy-Pw-0031;Encrypt=true",
        "Server=db.example.com;Database=app;User Id=sa;Password=***;Encrypt=true",
      ],
      ['Server=db;Password="de;coy""0032";Trusted=no', "Server=db;Password=***;Trusted=no"],
      [
        "Driver={ODBC Driver 18};Server=db;UID=sa;PWD={de;coy}}0033};",
        "Driver={ODBC Driver 18};Server=db;UID=sa;PWD=***;",
      ],
      ["Server=db;Password=decoy pass 0034;Port=1433", "Server=db;Password=***;Port=1433"],
      ["host=db port=5432 password='decoy \\' 0035' dbname=app", "host=db port=5432 password=*** dbname=app"],
      ["host=db password=decoy0036 port=5432", "host=db password=*** port=5432"],
      ["postgres://app:decoy0037@db:5432/app", "postgres://app:***@db:5432/app"],
      [
        "mongodb+srv://app:decoy0038@cluster0.example.net/app?retryWrites=true",
        "mongodb+srv://app:***@cluster0.example.net/app?retryWrites=true",
      ],
      [
        "jdbc:postgresql://db/app?user=app&password=decoy0039&ssl=true",
        "jdbc:postgresql://db/app?user=app&password=***&ssl=true",
      ],
      [
        "-Xmx1g -Djavax.net.ssl.trustStorePassword=decoy0040 -Dfile.encoding=UTF-8",
        "-Xmx1g -Djavax.net.ssl.trustStorePassword=*** -Dfile.encoding=UTF-8",
      ],
      ["https://feeds.example.com/a.xml?token=decoy0041&limit=5", "https://feeds.example.com/a.xml?token=***&limit=5"],
      // The options after a hidden one are kept.
      [
        "-Djavax.net.ssl.trustStorePassword=decoy0042 -Xmx2g -XX:+UseG1GC",
        "-Djavax.net.ssl.trustStorePassword=*** -Xmx2g -XX:+UseG1GC",
      ],
      [
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=decoy0043==;EndpointSuffix=core.windows.net",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=***;EndpointSuffix=core.windows.net",
      ],
      [
        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=decoy0044",
        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=***",
      ],
      [
        "https://acme.blob.core.windows.net/c?sv=2022-11-02&sig=decoy0045%2B&X-Amz-Signature=decoy0046",
        "https://acme.blob.core.windows.net/c?sv=2022-11-02&sig=***&X-Amz-Signature=***",
      ],
      ["//registry.npmjs.org/:_authToken=decoy0047", "//registry.npmjs.org/:_authToken=***"],
      // In a URL's query, `key` is one too (Google APIs'), in the first field or a later one, a fragment's too.
      [
        "https://maps.googleapis.com/maps/api/geocode/json?key=AIzaSyDecoy0048&alt=json",
        "https://maps.googleapis.com/maps/api/geocode/json?key=***&alt=json",
      ],
      ["http://127.0.0.1:11434/v1?alt=json&KEY=decoy0049#top", "http://127.0.0.1:11434/v1?alt=json&KEY=***#top"],
      [
        "https://app.example.com/cb?next=https://api.example.com/x?key=decoy0050#access_token=decoy0055&state=s",
        "https://app.example.com/cb?next=https://api.example.com/x?key=***#access_token=***&state=s",
      ],
      // A password's own words after a space stay hidden, a dash or a switch's word among them too.
      ["Server=db;Password=correct -horse on;Database=x", "Server=db;Password=***;Database=x"],
      ["password=on port=5432", "password=*** port=5432"],
    ];
    const env = Object.fromEntries(cases.map(([value], i) => [`VALUE_${i}`, value]));
    const expected = Object.fromEntries(cases.map(([, shown], i) => [`VALUE_${i}`, shown]));
    expect(childEnv(env, config())).toEqual({ ...expected, PYTHONDONTWRITEBYTECODE: "1" });
    const untouched = {
      // `key` outside a URL's query is an ordinary word, and so is a query's field that merely holds it.
      LS_COLORS: "rs=0:di=01;34:*.key=01;31",
      SORT_OPTIONS: "sort=key=name key=id --sort=key=asc",
      LIST_URL: "https://api.example.com/items?sort=key&order=key=desc&keys=3",
      GIT_SSH_COMMAND: "ssh -o IdentitiesOnly=yes",
      EMPTY: "Server=db;Password=;",
      PROSE: "the password is not here",
      // Build switches named like credentials.
      CFLAGS: "-O2 -DENABLE_AUTH=1 -Wall",
      CMAKE_ARGS: "-DUSE_AUTH=ON -DWITH_TOKEN=true -DBUILD_TESTING=OFF",
    };
    expect(childEnv(untouched, config())).toEqual({ ...untouched, PYTHONDONTWRITEBYTECODE: "1" });
    // pass_env hands a named variable over as it is, for a skill that is meant to reach the database.
    expect(
      childEnv({ DATABASE_URL: "postgres://app:decoy0037@db/app" }, config({ SKILLHUB_PASS_ENV: "database_url" })),
    ).toEqual({ DATABASE_URL: "postgres://app:decoy0037@db/app", PYTHONDONTWRITEBYTECODE: "1" });
    expect(secretVariables({ ...env, ...untouched }, configSecrets(config())).sort()).toEqual(Object.keys(env).sort());
  });

  test("childEnv: a proxy written without a scheme loses its user information as an http URL does; git's children keep it", async () => {
    const proxies = {
      http_proxy: "user:decoy-proxy-0071@proxy.corp:3128",
      HTTPS_PROXY: "user:decoy-proxy-0072@proxy.corp:3128/",
      // A password holding `@` is hidden whole, as in a URL.
      npm_config_https_proxy: "u:p@ss-decoy0073@proxy.corp:8080",
      // A user name alone may be a token, as in an http URL.
      npm_config_proxy: "decoy-proxy-token-0075@proxy.corp:8080",
      // An empty user name: curl and urllib read the password.
      rsync_proxy: ":decoy-proxy-0076@proxy.corp:873",
      // With a scheme, the URL rule hides it.
      All_Proxy: "socks5h://user:decoy-proxy-0074@proxy.corp:1080",
    };
    const kept = {
      no_proxy: "localhost,127.0.0.1,.corp",
      FTP_PROXY: "proxy.corp:3128",
      // Only a proxy's value is read as one: elsewhere `name:…@` is other text.
      CONTACT: "mailto:ada@example.com",
      // No user information at all: nothing to hide.
      socks_proxy: "@proxy.corp:1080",
    };
    expect(childEnv({ ...proxies, ...kept }, config())).toEqual({
      http_proxy: "***@proxy.corp:3128",
      HTTPS_PROXY: "***@proxy.corp:3128/",
      npm_config_https_proxy: "***@proxy.corp:8080",
      npm_config_proxy: "***@proxy.corp:8080",
      rsync_proxy: "***@proxy.corp:873",
      All_Proxy: "socks5h://user:***@proxy.corp:1080",
      ...kept,
      PYTHONDONTWRITEBYTECODE: "1",
    });
    expect(secretVariables({ ...proxies, ...kept }, configSecrets(config())).sort()).toEqual(
      Object.keys(proxies).sort(),
    );
    const git = fakeGit('env > "$FAKE_GIT_DIR/env"');
    await new GitRunner({ env: { ...git.env, ...proxies }, git: join(git.dir, "git") }).run(["status"]);
    const lines = git.lines("env");
    for (const [name, value] of Object.entries(proxies)) expect(lines).toContain(`${name}=${value}`);
  });

  test("childEnv: git configuration handing over a cookie goes as an Authorization header does", () => {
    const headers = [
      "Cookie: sid=decoy-cookie-0081",
      "set-cookie: sid=decoy-cookie-0082; HttpOnly",
      "Cookie2: $Version=1",
    ];
    for (const header of headers)
      expect(childEnv({ GIT_CONFIG_PARAMETERS: `'http.extraheader'='${header}'` }, config())).toEqual({
        PYTHONDONTWRITEBYTECODE: "1",
      });
    const counted = {
      GIT_CONFIG_COUNT: "2",
      GIT_CONFIG_KEY_0: "http.extraHeader",
      GIT_CONFIG_VALUE_0: "COOKIE: session=decoy-cookie-0083",
      GIT_CONFIG_KEY_1: "safe.directory",
      GIT_CONFIG_VALUE_1: "/srv/repo",
    };
    expect(childEnv(counted, config())).toEqual({
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "safe.directory",
      GIT_CONFIG_VALUE_0: "/srv/repo",
      PYTHONDONTWRITEBYTECODE: "1",
    });
  });

  test("childEnv: a megabyte of braced values that never close is scrubbed in one pass, fields before and after it too", () => {
    // Every `name={` here has no `}` after it: a pattern looking for one scans to the end from each of them.
    const unclosed = "a={x;".repeat(200_000);
    const env = { ODBC: `PWD={de;coy}}0091};${unclosed}password=decoy0092`, LIST: `${unclosed}b={x` };
    expect(childEnv(env, config())).toEqual({
      ODBC: `PWD=***;${unclosed}password=***`,
      LIST: env.LIST,
      PYTHONDONTWRITEBYTECODE: "1",
    });
    // A braced value closes at its first odd run of `}`; with none, before the last `}` (its pairs read as `}`).
    const closing = {
      ONE: "PWD={a}}b}}}c;d}",
      TWO: "PWD={a}}b};x=1",
      PAIRS: "PWD={a}}b}};x=1",
    };
    expect(childEnv(closing, config())).toEqual({
      ONE: "PWD=***c;d}",
      TWO: "PWD=***;x=1",
      PAIRS: "PWD=***};x=1",
      PYTHONDONTWRITEBYTECODE: "1",
    });
  });

  test("childEnv: a field after a literal \\n, \\r or \\t (printf's, echo -e's) is a field; a Windows path only where a folder reads as one", () => {
    const helper = String.raw`!f() { printf 'username=x\npassword=decoy0091'; }; f`;
    const helperShown = String.raw`!f() { printf 'username=x\npassword=***; }; f`;
    const cases: [string, string][] = [
      [helper, helperShown],
      [
        String.raw`!f() { printf 'protocol=https\r\nhost=h\r\npassword=decoy0092\r\n'; }; f`,
        String.raw`!f() { printf 'protocol=https\r\nhost=h\r\npassword=***; }; f`,
      ],
      [String.raw`echo -e "user=x\tpassword=decoy0093"`, String.raw`echo -e "user=x\tpassword=***`],
      // A password holding a backslash and a letter is hidden whole: only a field's name and `=` end it there.
      [String.raw`Server=db;Password=ab\ncd\tdecoy0094;Port=1433`, String.raw`Server=db;Password=***;Port=1433`],
      // A folder whose name reads as a field after an escape is hidden to its end: too much, never too little.
      [String.raw`C:\runs\npassword=draft\notes.txt`, String.raw`C:\runs\npassword=***`],
    ];
    const env = Object.fromEntries(cases.map(([value], i) => [`VALUE_${i}`, value]));
    const expected = Object.fromEntries(cases.map(([, shown], i) => [`VALUE_${i}`, shown]));
    expect(childEnv(env, config())).toEqual({ ...expected, PYTHONDONTWRITEBYTECODE: "1" });
    // A credential helper given to git in the environment keeps its entry, without the password.
    const entry = { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "credential.helper", GIT_CONFIG_VALUE_0: helper };
    expect(childEnv(entry, config())).toEqual({
      ...entry,
      GIT_CONFIG_VALUE_0: helperShown,
      PYTHONDONTWRITEBYTECODE: "1",
    });
    const untouched = {
      LOG_FILE: String.raw`C:\new\password.txt`,
      DB: String.raw`Data Source=C:\new\reports\token.db;Mode=ReadOnly`,
      TOOLS: String.raw`C:\tools\token=old\run.cmd`,
    };
    expect(childEnv(untouched, config())).toEqual({ ...untouched, PYTHONDONTWRITEBYTECODE: "1" });
  });

  test("git's children keep them: credential helpers, headers and what its helpers read", async () => {
    const git = fakeGit('env > "$FAKE_GIT_DIR/env"');
    const kept = {
      TOKEN: "decoy-token-0051",
      GIT_CONFIG_PARAMETERS: "'credential.helper'='!f() { echo password=decoy0052; }; f'",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.extraHeader",
      GIT_CONFIG_VALUE_0: "Authorization: Bearer decoy-header-0053",
      DB: "Server=db;Password=decoy0054;",
    };
    await new GitRunner({ env: { ...git.env, ...kept }, git: join(git.dir, "git") }).run(["status"]);
    const lines = git.lines("env");
    for (const [name, value] of Object.entries(kept))
      if (name !== "GIT_CONFIG_COUNT") expect(lines).toContain(`${name}=${value}`);
  });

  test("run_script: a script prints its environment without any of them", async () => {
    const session = await connect({
      flags: { "skills-dir": [writeScriptTree(tempDir())] },
      env: { SKILLHUB_TOOLS: "all" },
      hub: {
        exec: {
          env: {
            ...process.env,
            TOKEN: "decoy-token-0061",
            PASSWD: "decoy-passwd-0062",
            GIT_CONFIG_PARAMETERS: "'http.extraheader'='Authorization: Bearer decoy-header-0063'",
            DATABASE_URL: "postgres://app:decoy0064@db.example.com/app",
            MSSQL: "Server=db;User Id=sa;Password=decoy0065;",
            KEYBOARD: "visible",
          },
        },
      },
    });
    closers.push(session.close);
    const result = await session.call("run_script", { skill_path: "tools/echo", file: "scripts/env.sh" });
    const stdout = String(result.structuredContent?.stdout);
    expect(stdout).toContain("KEYBOARD=visible");
    expect(stdout).toContain("DATABASE_URL=postgres://app:***@db.example.com/app\n");
    expect(stdout).toContain("MSSQL=Server=db;User Id=sa;Password=***;\n");
    expect(stdout).not.toMatch(/^(TOKEN|PASSWD|GIT_CONFIG_PARAMETERS)=/m);
    expect(stdout).not.toContain("decoy");
  });

  test("childEnv: GNU make's jobserver in MAKEFLAGS is kept whatever its form; a password given to make is not", () => {
    const kept = {
      MAKEFLAGS: " -j8 --jobserver-auth=3,4",
      FIFO: " -j8 --jobserver-auth=fifo:/tmp/GMfifo123",
      WINDOWS: "-j8 --jobserver-auth=gmake_semaphore_1234",
      BEFORE_4_2: "ks -j --jobserver-fds=3,4",
    };
    expect(childEnv(kept, config())).toEqual({ ...kept, PYTHONDONTWRITEBYTECODE: "1" });
    expect(childEnv({ MAKEFLAGS: " -j2 --jobserver-auth=3,4 -- V=1 DB_PASSWORD=decoy0101" }, config())).toEqual({
      MAKEFLAGS: " -j2 --jobserver-auth=3,4 -- V=1 DB_PASSWORD=***",
      PYTHONDONTWRITEBYTECODE: "1",
    });
  });

  test.skipIf(!Bun.which("make"))(
    "run_script: a script's make runs under the MAKEFLAGS a make -j2 gave the server",
    async () => {
      // What a real `make -j2` hands its recipes, as it would a server started from one.
      const parent = tempDir();
      write(join(parent, "Makefile"), 'all:\n\t@printf "%s" "$$MAKEFLAGS"\n');
      const { MAKEFLAGS: _, MAKELEVEL: __, ...clean } = process.env;
      const made = Bun.spawnSync(["make", "-s", "-j2", "-C", parent], { env: clean });
      const makeflags = made.stdout.toString();
      expect(makeflags).toContain("--jobserver-");
      expect(childEnv({ MAKEFLAGS: makeflags }, config()).MAKEFLAGS).toBe(makeflags);

      const dir = tempDir();
      writeNode(dir, "build.md", {
        extra: ["scripts:", "  - file: scripts/build.sh", "    description: Runs make", "    execution: server"].join(
          "\n",
        ),
      });
      write(join(dir, "build/scripts/build.sh"), 'exec make -s -f "$(dirname "$0")/child.mk"\n');
      write(join(dir, "build/scripts/child.mk"), "all:\n\t@echo child make ran\n");
      const session = await connect({
        flags: { "skills-dir": [dir] },
        env: { SKILLHUB_TOOLS: "all" },
        // The form make 4.3 writes; the script's make finds no jobserver there and runs its jobs one at a time.
        hub: { exec: { env: { ...clean, MAKEFLAGS: " -j2 --jobserver-auth=3,4" } } },
      });
      closers.push(session.close);
      const result = await session.call("run_script", { skill_path: "build", file: "scripts/build.sh" });
      expect(result.structuredContent).toMatchObject({ success: true, stdout: "child make ran\n" });
    },
  );
});

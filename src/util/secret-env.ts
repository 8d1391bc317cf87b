import { scrubCredentialFields, scrubUrlQueryFields } from "./credential-fields.ts";
import { scrubUrlCredentials } from "./url-credentials.ts";

/**
 * Environment hygiene for every child process SkillHub starts (git, run_script,
 * run_skill_command): the server's own secrets never reach a child.
 */

/** Variables that hold SkillHub's secrets (git token, HTTP bearer tokens, embedding API keys). */
export const SERVER_SECRET_ENV: readonly string[] = [
  "GITHUB_TOKEN",
  "SKILLHUB_HTTP_TOKEN",
  "SKILLHUB_ADMIN_TOKEN",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "EMBEDDING_API_KEY",
];

/** Secret values shorter than this are not matched by value (too likely to collide with ordinary values). */
const MIN_SECRET_VALUE = 8;

/**
 * Variables that hand over a credential by reference, each named exactly. Security: whoever has one acts as
 * the user without ever reading a secret: SSH_AUTH_SOCK is the SSH agent's socket (sign as the user: push
 * to their repositories, log in to their servers), GPG_AGENT_INFO the GnuPG agent's (GnuPG before 2.1),
 * KRB5CCNAME a Kerberos ticket cache kept where its default is not, VSCODE_GIT_IPC_HANDLE the socket on
 * which VS Code's git extension answers with the user's GitHub credentials (set in its terminals, so in
 * any client started there), GNOME_KEYRING_CONTROL the GNOME keyring's, DOCKER_AUTH_CONFIG registries'
 * logins. SSH_AGENT_PID is only the agent's process id, which any process may list.
 */
const CREDENTIAL_REFERENCES: ReadonlySet<string> = new Set([
  "SSH_AUTH_SOCK",
  "GPG_AGENT_INFO",
  "KRB5CCNAME",
  "VSCODE_GIT_IPC_HANDLE",
  "GNOME_KEYRING_CONTROL",
  "DOCKER_AUTH_CONFIG",
]);

/**
 * Whether a variable's name says it holds a credential or hands one over (case-insensitive): it ends in
 * `_KEY`, `_TOKEN`, `_SECRET(S)`, `_PASSWORD`, `_CREDENTIAL(S)`, `_PWD` (`MYSQL_PWD`), `_JWT` (`CI_JOB_JWT`),
 * `_AUTH` or `_AUTHTOKEN` (npm's `NPM_CONFIG__AUTH`), `_PAT` (a personal access token: `GH_PAT`), `_PASS`
 * or `_PASSWD` (`DOCKER_PASS`), each also followed by `_FILE` (a file holding one:
 * `POSTGRES_PASSWORD_FILE`, `GOOGLE_APPLICATION_CREDENTIALS`); is one of those words alone (`TOKEN`,
 * `SECRET`, `PASSWD`, `CREDENTIALS`, `AUTH`, `TOKEN_FILE`…) but `KEY`, `PWD` and `PAT`, ordinary words
 * alone (a lookup key, the shell's working folder, a name); ends in `PASSWORD`, `PASSPHRASE` or `PASSFILE`
 * (`PGPASSWORD`, `GPG_PASSPHRASE`, `PGPASSFILE`), `APIKEY`, `WEBHOOK` or `WEBHOOK_URL` (a URL holding its
 * token: `SLACK_WEBHOOK_URL`), `AUTHORIZATION` (a ready header: `SKILLHUB_AUTHORIZATION`, the hub's
 * bearer token for mcp-remote) or `ASKPASS` (a program that answers a password prompt, maybe from a
 * keyring: `GIT_ASKPASS`, `SSH_ASKPASS`, `SUDO_ASKPASS`); starts with `AWS_SECRET` or `SECRET_KEY`
 * (`SECRET_KEY_BASE`); is a password manager's session (`BW_SESSION`, `OP_SESSION_<account>`); or is one
 * of CREDENTIAL_REFERENCES. Configuration that may point at credentials (`KUBECONFIG`, `DOCKER_HOST`,
 * `GNUPGHOME`) is not: a script running as the user reads their defaults anyway. Pure.
 */
export function looksLikeCredential(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    /(^|_)(TOKEN|SECRETS?|PASSWORD|CREDENTIALS?|JWT|AUTH|AUTHTOKEN|PASS|PASSWD)(_FILE)?$/.test(upper) ||
    /_(KEY|PWD|PAT)(_FILE)?$/.test(upper) ||
    /(AUTHORIZATION|ASKPASS|PASSWORD|PASSPHRASE|PASSFILE|APIKEY|WEBHOOK|WEBHOOK_URL)$/.test(upper) ||
    /^(AWS_SECRET|SECRET_KEY|OP_SESSION_|BW_SESSION$)/.test(upper) ||
    CREDENTIAL_REFERENCES.has(upper)
  );
}

/**
 * Whether a variable is git configuration given in the environment (`GIT_CONFIG_PARAMETERS`, which
 * `git -c` sets, or a `GIT_CONFIG_VALUE_<n>`) whose value holds a header that carries a credential
 * (`http.extraHeader=Authorization: Bearer …`, `PRIVATE-TOKEN: …`, `X-Api-Key: …`, `Cookie: …`): a
 * header's name is `Cookie`, `Cookie2` or `Set-Cookie`, or one looksLikeCredential accepts, `-` read as `_`. `upper`
 * is the variable's name upper-cased. Pure.
 */
function givesGitCredentialHeader(upper: string, value: string | undefined): boolean {
  if (!value || !GIT_CONFIG_VALUE.test(upper)) return false;
  for (const [, header] of value.matchAll(HEADER))
    if (header && (COOKIE_HEADER.test(header) || looksLikeCredential(header.replaceAll("-", "_")))) return true;
  return false;
}

/** A cookie's header: a session's cookie logs in as its owner, though no word of its name says so. */
const COOKIE_HEADER = /^(set-)?cookie2?$/i;

const GIT_CONFIG_VALUE = /^GIT_CONFIG_(PARAMETERS|VALUE_\d+)$/;
/** A header's name: at the start, or after a space, a quote or `=` (`'http.extraheader'='Authorization: …'`). */
const HEADER = /(?:^|[\s'"=])([A-Za-z][\w-]*)\s*:/g;
/** The set of entries GIT_CONFIG_COUNT counts. */
const GIT_CONFIG_ENTRY = /^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)$/i;

/** A field of a value (`Password=…` in a connection string, `?token=…` in a URL) that holds a credential. */
function isCredentialField(name: string): boolean {
  // ODBC's and ADO.NET's password field (a variable of that name is the shell's working folder), Azure's
  // storage and Service Bus keys, a signed URL's signature (`sig=`, `X-Amz-Signature=`).
  return CREDENTIAL_FIELDS.has(name) || name.endsWith("SIGNATURE") || looksLikeCredential(name);
}

const CREDENTIAL_FIELDS: ReadonlySet<string> = new Set(["PWD", "ACCOUNTKEY", "SHAREDACCESSKEY", "SIG"]);

/**
 * A field of a URL's query that holds a credential: one isCredentialField takes, or `key` (Google APIs'
 * `?key=AIza…`), which elsewhere is an ordinary word (`sort=key=name`, LS_COLORS' `*.key=01;31`).
 */
function isQueryCredentialField(name: string): boolean {
  return name === "KEY" || isCredentialField(name);
}

export interface SecretSpec {
  /** Further variable names to drop (config `secrets` / SKILLHUB_SECRETS). */
  names?: readonly string[];
  /**
   * Scripts' and commands' rules, off by default: git does not get them (its credential helpers read
   * such variables, and a helper written inline in its configuration may hold a `password=` line).
   * Every variable whose name looks like a credential's (looksLikeCredential) is dropped, and so is git
   * configuration handing a credential over in a header (givesGitCredentialHeader); in every other
   * variable, a field named like a credential has its value hidden (`Password=***;`, `?token=***`:
   * util/credential-fields.ts). A variable named in `except` (config `pass_env` / SKILLHUB_PASS_ENV) is
   * handed over as it is, credentials in its URLs too, unless it holds a secret the server keeps.
   */
  credentialNames?: { except: readonly string[] };
  /**
   * Names dropped by name alone: settings children need not get, whose values are no secret to look for
   * elsewhere (the server's own URLs). Matched in any case.
   */
  dropped?: readonly string[];
  /** Secret values the server holds (tokens, API keys from the config): any variable carrying one is dropped too. */
  values?: readonly (string | undefined)[];
  /** Keep credentials in *_proxy variables (git needs its proxy; scripts do not). Default false. */
  keepProxyCredentials?: boolean;
}

/**
 * A copy of `env` without the server's secrets. Pure.
 *
 * Security: names are compared case-insensitively (Windows environments are),
 * and a variable is also dropped when its value is one of the secrets the
 * server holds, so a token copied under another name (GH_TOKEN, a config
 * file's api_key exported by a wrapper) does not leak either.
 */
export function withoutSecrets(
  env: Readonly<Record<string, string | undefined>>,
  spec: SecretSpec = {},
): Record<string, string> {
  const names = secretNames(env, spec);
  const dropped = new Set((spec.dropped ?? []).map((n) => n.toUpperCase()));
  const passed = new Set((spec.credentialNames?.except ?? []).map((n) => n.trim().toUpperCase()));
  // The values of secret-named variables count as secret values too: a copy under another name goes as well.
  const values = new Set(knownSecretValues(env, spec));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (names.has(upper) || dropped.has(upper)) continue;
    if (values.has(value)) continue;
    // Security: a secret inside a longer value ("Bearer <token>", a URL with the token) drops the variable too.
    if (containsAny(value, values)) continue;
    const asIs = passed.has(upper) || (spec.keepProxyCredentials && upper.endsWith("_PROXY"));
    out[name] = asIs ? value : withoutCredentials(upper, value, spec);
  }
  return withoutGitConfigGap(env, out);
}

/**
 * Security: credentials written in a URL in any variable (SKILLS_REPO, a proxy, a pip index) or before a
 * proxy's address (`http_proxy=user:pass@proxy:3128`) are hidden, and for scripts and commands those in a
 * field (a connection string's `Password=`, a query's `token=` or `key=`). `upper` is the variable's name
 * upper-cased.
 */
function withoutCredentials(upper: string, value: string, spec: SecretSpec): string {
  const scrubbed = scrubUrlCredentials(upper.endsWith("_PROXY") ? withoutProxyPassword(value) : value);
  if (!spec.credentialNames) return scrubbed;
  return scrubCredentialFields(scrubUrlQueryFields(scrubbed, isQueryCredentialField), isCredentialField);
}

/**
 * A proxy's address written without a scheme (`user:pass@proxy.corp:3128`, which curl and Python's urllib
 * take as http://) with its user information replaced by `***`, as an http URL's (`***@proxy.corp:3128`:
 * a user name alone may be a token). The user information ends at the last `@` of the first word, so a
 * password holding an `@` is hidden whole; an address with a scheme is the URL rule's. Pure.
 */
function withoutProxyPassword(value: string): string {
  return value.replace(PROXY_USERINFO, "***@");
}

/**
 * User information at the start of a value; `//` after a colon is a scheme's. The user name may be empty
 * (`:pass@proxy.corp:3128`: curl and urllib read the password), but not the whole of it (a bare `@` hides
 * nothing). Linear: one anchored try.
 */
const PROXY_USERINFO = /^(?!@)[^\s/@:]*(?::(?!\/\/)\S*)?@/;

/**
 * `out` with GIT_CONFIG_COUNT's entries (GIT_CONFIG_KEY_<n>, GIT_CONFIG_VALUE_<n>) numbered again when one
 * was dropped: git refuses to run at all when an entry below the count is missing, so the entries left
 * (both halves kept) are numbered from 0 and counted, and a child's `git` keeps them (a `safe.directory`).
 */
function withoutGitConfigGap(env: Readonly<Record<string, string | undefined>>, out: Record<string, string>) {
  const entries = Object.keys(env).filter((name) => env[name] !== undefined && GIT_CONFIG_ENTRY.test(name));
  if (!entries.some((name) => !Object.hasOwn(out, name))) return out;
  const left: [string, string][] = [];
  // git takes digits only; no entry lies beyond those set (a huge count would only spin here).
  const given = env.GIT_CONFIG_COUNT ?? "";
  const count = /^\d{1,6}$/.test(given) ? Math.min(Number(given), entries.length) : 0;
  for (let i = 0; i < count; i++) {
    const key = out[`GIT_CONFIG_KEY_${i}`];
    const value = out[`GIT_CONFIG_VALUE_${i}`];
    if (key !== undefined && value !== undefined) left.push([key, value]);
  }
  for (const name of entries) delete out[name];
  for (const [i, [key, value]] of left.entries()) {
    out[`GIT_CONFIG_KEY_${i}`] = key;
    out[`GIT_CONFIG_VALUE_${i}`] = value;
  }
  if (left.length > 0) out.GIT_CONFIG_COUNT = String(left.length);
  return out;
}

/** Whether the secret values the server holds appear anywhere in the process environment or a text. */
export function containsAny(text: string, values: ReadonlySet<string>): boolean {
  for (const v of values) if (text.includes(v)) return true;
  return false;
}

/**
 * Names of the variables of `env` that hold a secret: a secret name, a secret value (whole or inside), a
 * URL with credentials, a credential field or header (with `spec.credentialNames`), or a name
 * `spec.dropped` lists. Pure.
 */
export function secretVariables(env: Readonly<Record<string, string | undefined>>, spec: SecretSpec = {}): string[] {
  const kept = withoutSecrets(env, spec);
  return Object.keys(env).filter((name) => env[name] !== undefined && kept[name] !== env[name]);
}

/** The secret values the server holds: `spec.values` and the values of secret-named variables of `env`. Pure. */
export function knownSecretValues(env: Readonly<Record<string, string | undefined>>, spec: SecretSpec = {}): string[] {
  const names = secretNames(env, spec);
  const out = new Set<string>();
  for (const v of spec.values ?? []) if (typeof v === "string" && v.length >= MIN_SECRET_VALUE) out.add(v);
  for (const [name, v] of Object.entries(env))
    if (v && v.length >= MIN_SECRET_VALUE && names.has(name.toUpperCase())) out.add(v);
  return [...out];
}

/**
 * The upper-cased names of `env`'s variables that hold a secret under `spec`: the server's, `spec.names`,
 * and with `spec.credentialNames` every credential-looking name and git configuration with a credential
 * header not excepted. Pure.
 */
function secretNames(env: Readonly<Record<string, string | undefined>>, spec: SecretSpec): Set<string> {
  const names = new Set(
    [...SERVER_SECRET_ENV, ...(spec.names ?? [])].map((n) => n.trim().toUpperCase()).filter(Boolean),
  );
  const rule = spec.credentialNames;
  if (rule) {
    const except = new Set(rule.except.map((n) => n.trim().toUpperCase()));
    for (const [name, value] of Object.entries(env)) {
      const upper = name.toUpperCase();
      const credential = looksLikeCredential(upper) || givesGitCredentialHeader(upper, value);
      // Security: pass_env lifts the name rule only; the server's own secrets never go.
      if (credential && !except.has(upper)) names.add(upper);
    }
  }
  return names;
}

/** `text` with every known secret value, and every URL's credentials, replaced by `***`. Pure. */
export function scrubSecretText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= MIN_SECRET_VALUE) out = out.split(secret).join("***");
  return scrubUrlCredentials(out);
}

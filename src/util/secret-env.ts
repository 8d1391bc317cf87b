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
 * `_KEY`, `_TOKEN`, `_SECRET`, `_PASSWORD`, `_CREDENTIAL(S)`, `_PWD` (`MYSQL_PWD`), `_JWT` (`CI_JOB_JWT`),
 * `_AUTH` or `_AUTHTOKEN` (npm's `NPM_CONFIG__AUTH`), `_PAT` (a personal access token: `GH_PAT`), `_PASS`
 * or `_PASSWD` (`DOCKER_PASS`), each also followed by `_FILE` (a file holding one:
 * `POSTGRES_PASSWORD_FILE`, `GOOGLE_APPLICATION_CREDENTIALS`), or in `PASSWORD`, `PASSPHRASE` or `PASSFILE`
 * (`PGPASSWORD`, `GPG_PASSPHRASE`, `PGPASSFILE`), `APIKEY`, `WEBHOOK` or `WEBHOOK_URL` (a URL holding its
 * token: `SLACK_WEBHOOK_URL`), `AUTHORIZATION` (a ready header: `SKILLHUB_AUTHORIZATION`, the hub's bearer token for
 * mcp-remote) or `ASKPASS` (a program that answers a password prompt, maybe from a keyring: `GIT_ASKPASS`,
 * `SSH_ASKPASS`, `SUDO_ASKPASS`),
 * starts with `AWS_SECRET` or `SECRET_KEY` (`SECRET_KEY_BASE`), is a password manager's session (`BW_SESSION`,
 * `OP_SESSION_<account>`), or is one of CREDENTIAL_REFERENCES. Configuration that may point at
 * credentials (`KUBECONFIG`, `DOCKER_HOST`, `GNUPGHOME`) is not: a script running as the user reads
 * their defaults anyway. Pure.
 */
export function looksLikeCredential(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    /_(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?|PWD|JWT|AUTH|AUTHTOKEN|PAT|PASS|PASSWD)(_FILE)?$/.test(upper) ||
    /(AUTHORIZATION|ASKPASS|PASSWORD|PASSPHRASE|PASSFILE|APIKEY|WEBHOOK|WEBHOOK_URL)$/.test(upper) ||
    /^(AWS_SECRET|SECRET_KEY|OP_SESSION_|BW_SESSION$)/.test(upper) ||
    CREDENTIAL_REFERENCES.has(upper)
  );
}

export interface SecretSpec {
  /** Further variable names to drop (config `secrets` / SKILLHUB_SECRETS). */
  names?: readonly string[];
  /**
   * Also drop every variable whose name looks like a credential's (looksLikeCredential), except the
   * names in `except` (config `pass_env` / SKILLHUB_PASS_ENV). Scripts and commands get this rule;
   * git does not (its credential helpers read such variables). Default: off.
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
  // The values of secret-named variables count as secret values too: a copy under another name goes as well.
  const values = new Set(knownSecretValues(env, spec));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (names.has(name.toUpperCase()) || dropped.has(name.toUpperCase())) continue;
    if (values.has(value)) continue;
    // Security: a secret inside a longer value ("Bearer <token>", a URL with the token) drops the variable too.
    if (containsAny(value, values)) continue;
    // Security: credentials written in a URL in any variable (SKILLS_REPO, a proxy, a pip index) are hidden.
    out[name] = spec.keepProxyCredentials && /_proxy$/i.test(name) ? value : scrubUrlCredentials(value);
  }
  return out;
}

/** Whether the secret values the server holds appear anywhere in the process environment or a text. */
export function containsAny(text: string, values: ReadonlySet<string>): boolean {
  for (const v of values) if (text.includes(v)) return true;
  return false;
}

/**
 * Names of the variables of `env` that hold a secret: a secret name, a
 * secret value (whole or inside), a URL with credentials, or a name `spec.dropped` lists. Pure.
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
 * and with `spec.credentialNames` every credential-looking name not excepted. Pure.
 */
function secretNames(env: Readonly<Record<string, string | undefined>>, spec: SecretSpec): Set<string> {
  const names = new Set(
    [...SERVER_SECRET_ENV, ...(spec.names ?? [])].map((n) => n.trim().toUpperCase()).filter(Boolean),
  );
  const rule = spec.credentialNames;
  if (rule) {
    const except = new Set(rule.except.map((n) => n.trim().toUpperCase()));
    for (const name of Object.keys(env)) {
      const upper = name.toUpperCase();
      // Security: pass_env lifts the name rule only; the server's own secrets never go.
      if (looksLikeCredential(upper) && !except.has(upper)) names.add(upper);
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

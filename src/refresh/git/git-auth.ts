import type { RepoSpec } from "./git-url.ts";

/** A git config entry given to one git process only, never written to disk. */
export interface GitConfigEntry {
  key: string;
  value: string;
}

export interface RepoAuth {
  /** Config entries for the git child (an Authorization header scoped to the repository's origin). */
  config: GitConfigEntry[];
  /** Every form of the secret that could show up in output, for scrubbing. */
  secrets: string[];
  /** Variables for the git child that reaches the repository (the transports a project's may use). */
  env?: Record<string, string>;
}

/**
 * Security: the transports a project's repository (named by a cloned project's skillhub.yaml) may use,
 * whatever the user's git config allows: no `ext::` (a command git runs) and no remote helper. The
 * user's own repositories follow the user's git config (a remote helper such as `codecommit::` works).
 */
const PROJECT_TRANSPORTS = { GIT_ALLOW_PROTOCOL: "file:git:http:https:ssh" };

/**
 * The credentials for one repository: the user:password written in its URL,
 * else GITHUB_TOKEN for https:// URLs. No token → git's own
 * credential helpers and SSH keys, untouched.
 *
 * Security: the token becomes an `http.<origin>/.extraHeader` entry handed to
 * the git child through its environment (GIT_CONFIG_COUNT/KEY/VALUE, or `-c`
 * on git older than 2.31). It is never in the remote URL, so it is never in
 * `.git/config`, in `ps` output of the URL, or in git's messages about the
 * URL. The header is scoped to the repository's scheme, host and port, so a
 * redirect or submodule on another host does not receive it, and it is only
 * ever sent over https.
 */
export function repoAuth(spec: RepoSpec, token: string | undefined, project = false): RepoAuth {
  const auth = userAuth(spec, project ? undefined : token);
  return project ? { ...auth, env: PROJECT_TRANSPORTS } : auth;
}

function userAuth(spec: RepoSpec, token: string | undefined): RepoAuth {
  const secrets: string[] = [];
  let basic: string | undefined;
  if (spec.credentials && (spec.credentials.password || spec.credentials.username)) {
    const { username, password } = spec.credentials;
    basic = `${username}:${password}`;
    if (password) secrets.push(password, encodeURIComponent(password));
    else secrets.push(username, encodeURIComponent(username));
  } else if (token && spec.https) {
    // GitHub's documented form for tokens over HTTPS (as actions/checkout sends it).
    basic = `x-access-token:${token}`;
    secrets.push(token, encodeURIComponent(token));
  }
  if (!basic) return { config: [], secrets };
  const encoded = Buffer.from(basic, "utf8").toString("base64");
  secrets.push(encoded);
  const origin = safeOrigin(spec.url);
  if (!origin) return { config: [], secrets };
  return { config: [{ key: `http.${origin}/.extraHeader`, value: `Authorization: Basic ${encoded}` }], secrets };
}

function safeOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

import { z } from "zod";
import { checkCommandName } from "../exec/command-args.ts";

/** Value shapes the configuration's schemas share (schema.ts, schema-search.ts). */

export const positiveInt = () => z.number().int().min(1);
export const nonNegativeInt = () => z.number().int().min(0);
export const fraction = () => z.number().min(0).max(1);
export const stringList = () => z.array(z.string());
/**
 * Output kept per stream of a script or command: held in memory, and no answer carries more than a few
 * hundred KB (SKILLHUB_RESULT_BUDGET). Security: a repository's config.yaml may set it, and the server
 * holds several times the output it keeps while it builds the answer.
 */
export const MAX_OUTPUT_LIMIT = 16 * 1024 * 1024;
export const outputBytes = () => positiveInt().max(MAX_OUTPUT_LIMIT);
/**
 * Largest file one asset read holds. Security: get_asset reads the whole file, then sends it (base64 for a
 * binary one) in one JSON-RPC line, twice (the result's JSON and its text) and for an image once more, so
 * the server holds several times this while it answers; a content repository's config.yaml may set it.
 */
export const MAX_ASSET_LIMIT = 16 * 1024 * 1024;
export const assetBytes = () => positiveInt().max(MAX_ASSET_LIMIT);

/** A branch name git accepts and that cannot be read as an option. */
export const BRANCH_NAME = /^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]{1,200}(?<![./])$/;
/** A tag name git accepts and that cannot be read as an option; a full commit hash is one too. */
const TAG_NAME = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9._/+@-]{1,200}(?<![./])$/;
export const isGitRef = (ref: string) => TAG_NAME.test(ref);
export const branchName = () => z.string().regex(BRANCH_NAME, "expected a branch name");
export const gitRef = () => z.string().refine(isGitRef, "expected a tag name or a full commit hash (40 hex)");
// A URL the fetch would refuse (`https://exa mple.com`, `http://[::1`) fails at start-up, not at every send.
export const httpUrl = () =>
  z
    .string()
    .regex(/^https?:\/\/[^\s/]+/i, "expected an http:// or https:// URL")
    .refine((url) => URL.canParse(url), "expected an http:// or https:// URL");

/**
 * server.public_url: where clients reach the server, `https://skills.example.com[/prefix]` (no query,
 * fragment or user): download links are this followed by `/archive/…`.
 */
export const publicUrl = () =>
  httpUrl().refine((value) => {
    // httpUrl's own checks do not stop this one: a value they refuse is left to their message.
    if (!URL.canParse(value)) return true;
    const url = new URL(value);
    return url.username === "" && url.password === "" && url.search === "" && url.hash === "" && !/[?#]/.test(value);
  }, "expected the URL clients reach this server at, such as https://skills.example.com or https://example.com/skillhub (no query, fragment or user)");

/**
 * server.allowed_origins: origins as a browser sends them, `https://tools.example.com[:port]` (no path,
 * query or user). One the HTTP server could never match fails at start-up rather than being skipped.
 */
export const originList = () =>
  z.array(
    z
      .string()
      .refine(isOrigin, "expected an origin such as https://tools.example.com (scheme, host and port, no path)"),
  );

function isOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    (url.protocol === "http:" || url.protocol === "https:") &&
    url.hostname !== "" &&
    url.username === "" &&
    url.password === "" &&
    url.pathname === "/" &&
    url.search === "" &&
    url.hash === "" &&
    !/[?#]/.test(value)
  );
}

/** server.allowed_hosts: a host name or address, with `:port` to pin a port, as the Host header carries it. */
export const hostList = () =>
  z.array(
    z
      .string()
      .refine(
        (value) => !/[\s/@?#\\]/.test(value) && value !== "" && URL.canParse(`http://${value}`),
        "expected a host name such as skills.example.com or skills.example.com:8000 (no scheme, path or spaces)",
      ),
  );

/** commands.allowed: bare command names, as run_skill_command compares them (a path never matches one). */
export const commandList = () =>
  z.array(
    z
      .string()
      .refine(
        (value) => checkCommandName(value).ok,
        "expected a bare command name such as python or ls (no path, no spaces)",
      ),
  );

import { z } from "zod";
import { once } from "../util/once.ts";

/**
 * The settings of the lockfile, pinning, trust and plugin skills (docs/lockfile.md): part
 * of the configuration's schema (schema.ts), each built on first use; defaults in defaults.ts.
 */

export const LockConfig = once(() =>
  z.strictObject({
    /** SKILLHUB_LOCK: the lockfile. Unset: <project>/skillhub.lock, else <home>/skillhub.lock. */
    file: z.string().min(1).optional(),
    /** --frozen / SKILLHUB_FROZEN: serve only skills whose digests match the lock; sync keeps every locked commit. */
    frozen: z.boolean(),
  }),
);

export const TrustConfig = once(() =>
  z.strictObject({
    /** SKILLHUB_ALLOWED_SIGNERS: an SSH allowed-signers file; sync then accepts only commits signed by a listed key. */
    allowed_signers: z.string().min(1).optional(),
  }),
);

export const PluginsConfig = once(() =>
  z.strictObject({
    /** SKILLHUB_PLUGINS: serve the skills of installed Claude Code plugins (lowest priority). Default true. */
    enabled: z.boolean(),
    /** Claude Code's plugins folder. Default ~/.claude/plugins. */
    dir: z.string().min(1).optional(),
  }),
);

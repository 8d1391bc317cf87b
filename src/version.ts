import pkg from "../package.json" with { type: "json" };

declare const SKILLHUB_VERSION: string | undefined;

/** The version, injected by `bun build --define SKILLHUB_VERSION=...`; package.json when run from source. */
export const VERSION: string = typeof SKILLHUB_VERSION === "string" ? SKILLHUB_VERSION : pkg.version;

/** True inside the compiled binary, whose modules live under Bun's embedded `$bunfs` root. */
export const COMPILED = import.meta.url.includes("$bunfs");

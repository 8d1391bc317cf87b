/**
 * The longest argument or environment string Linux's exec takes: MAX_ARG_STRLEN (128 KiB) counts its
 * terminating NUL, so one of 131,072 bytes fails with E2BIG.
 */
export const MAX_ARG_BYTES = 128 * 1024 - 1;
/**
 * All of a call's arguments together. Security: run_skill_command's path check costs a file-system look per
 * place a path may start in a short option's letters, so a request's worth of them could hold the server for
 * seconds; and exec refuses arguments and environment past a limit of its own (E2BIG).
 */
export const MAX_ARGS_BYTES = 256 * 1024;

/**
 * Why `args` are too large to start a program with, or undefined: each is the label a message names it by,
 * the value given, and the bytes exec is given around it (a script's `SKILL_ARG_<NAME>=`); `what` names the
 * program ("command"), `advice` what to do instead for one argument and for all. Sizes are the values'. Pure.
 */
export function argsTooLarge(
  args: readonly (readonly [label: string, text: string, around?: number])[],
  what: string,
  advice: { one: string; all: string },
): string | undefined {
  let total = 0;
  for (const [label, text, around = 0] of args) {
    const bytes = Buffer.byteLength(text);
    if (bytes + around > MAX_ARG_BYTES)
      return `Argument ${label} is ${bytes} bytes; a ${what} takes at most ${MAX_ARG_BYTES - around} bytes in it. ${advice.one}`;
    total += bytes + around;
  }
  if (total > MAX_ARGS_BYTES)
    return `The arguments are ${total} bytes together; a ${what} takes at most ${MAX_ARGS_BYTES}. ${advice.all}`;
  return undefined;
}

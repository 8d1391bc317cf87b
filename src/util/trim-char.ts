/**
 * `text` without any run of `char` at its start and end. A loop, not
 * `/^c+|c+$/`: that regex retries `c+$` at every position of a long run that
 * does not reach the end, which is quadratic on hostile input. Pure.
 */
export function trimChar(text: string, char: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === char) start++;
  while (end > start && text[end - 1] === char) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** `text` without a run of `char` at its end (see trimChar). Pure. */
export function trimEndChar(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return end === text.length ? text : text.slice(0, end);
}

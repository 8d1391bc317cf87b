/** Resolves on a later turn of the event loop: between two slices of long work, requests are answered. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Turns taken one after another: each call of the returned function resolves on a later turn of the event
 * loop than the call before it resolved on. Work started together (the calls of one batch) then runs one
 * piece per turn, with I/O answered between two pieces. One `nextTurn` each would not do: the callbacks of a
 * turn all run before any I/O, so a hundred calls waiting on one turn still run back to back.
 */
export function turns(): () => Promise<void> {
  let last = Promise.resolve();
  return () => {
    last = last.then(nextTurn);
    return last;
  };
}

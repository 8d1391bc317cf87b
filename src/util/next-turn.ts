/** Resolves on a later turn of the event loop: between two slices of long work, requests are answered. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

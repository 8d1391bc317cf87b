import { type FSWatcher, watch as fsWatch } from "node:fs";

/**
 * A recursive watcher on `dir`: `onChange` for any change below it, `onError`
 * once when it stops working (the refresher then stats every file at each
 * timer tick instead of a slice). Injectable for tests.
 */
export type WatchFn = (dir: string, onChange: () => void, onError?: (error: unknown) => void) => { close(): void };

/** fs.watch, recursive, not keeping the process alive. */
export const defaultWatch: WatchFn = (dir, onChange, onError) => {
  const watcher: FSWatcher = fsWatch(dir, { recursive: true, persistent: false }, () => onChange());
  watcher.on("error", (error) => {
    watcher.close();
    onError?.(error);
  });
  return watcher;
};

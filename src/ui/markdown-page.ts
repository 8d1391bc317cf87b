import { errorMessage } from "../util/errors.ts";
import { workerScript } from "../util/worker-task.ts";
import { escapeHtml } from "./escape.ts";
import { renderMarkdown } from "./markdown.ts";
import { type PageLinks, pageLinkPolicy } from "./markdown-links.ts";
import type { RenderReply, RenderRequest } from "./markdown-worker.ts";

/**
 * The web page's Markdown, rendered so that no page can hold the server: the renderer is linear
 * (markdown.ts), a short text is rendered in place, and a longer one in a worker thread
 * (markdown-worker.ts) with a time budget; past it the worker is ended and the page is shown as
 * escaped plain text. `/healthz` and MCP calls are answered meanwhile, whatever the page holds.
 */

/** Texts up to this many characters are rendered in place: the linear renderer takes well under a millisecond. */
export const IN_PLACE_CHARS = 16_384;
/** Milliseconds a page's render may take in its worker before the page is shown as plain text. */
export const RENDER_BUDGET_MS = 10_000;
/** Renders running at once; further pages wait for one to end (each holds a thread and its memory). */
export const MAX_RENDERS = 2;

/** A rendered page: its HTML, and whether it is the plain-text fallback (over budget, or the worker failed). */
export interface RenderedPage {
  html: string;
  /** Why the page is shown as plain text, when it is. */
  plain?: string;
}

export interface PageRenderOptions {
  /** Milliseconds before the plain-text fallback. Default RENDER_BUDGET_MS. */
  budgetMs?: number;
  /** The worker script. Default markdown-worker.ts. */
  script?: string;
  /** Longest text rendered in place. Default IN_PLACE_CHARS. */
  inPlaceChars?: number;
  /** Starts the budget's timer; returns its cancel. Default setTimeout. */
  timer?: (fire: () => void, ms: number) => () => void;
}

/** Render `source` for the page: see the module comment. Never rejects. */
export async function renderPage(
  source: string,
  links?: PageLinks,
  options: PageRenderOptions = {},
): Promise<RenderedPage> {
  if (source.length <= (options.inPlaceChars ?? IN_PLACE_CHARS))
    return { html: renderMarkdown(source, pageLinkPolicy(links)) };
  await slots.take();
  try {
    return await inWorker(source, links, options);
  } finally {
    slots.give();
  }
}

/** The fallback: the page's text, escaped, as preformatted text (linear, and nothing in it is markup). */
export function plainPage(source: string, why: string): RenderedPage {
  return { html: `<pre class="plain">${escapeHtml(source)}</pre>`, plain: why };
}

function inWorker(source: string, links: PageLinks | undefined, options: PageRenderOptions): Promise<RenderedPage> {
  const budgetMs = options.budgetMs ?? RENDER_BUDGET_MS;
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(options.script ?? workerScript("ui/markdown-worker.ts"));
    } catch (error) {
      resolve(plainPage(source, `the renderer could not start (${errorMessage(error)})`));
      return;
    }
    let settled = false;
    const end = (page: RenderedPage) => {
      if (settled) return;
      settled = true;
      cancel();
      worker.terminate();
      resolve(page);
    };
    const timer =
      options.timer ??
      ((fire: () => void, ms: number) => {
        const handle = setTimeout(fire, ms);
        return () => clearTimeout(handle);
      });
    // Security: the budget ends the render whatever the text makes the renderer do.
    const cancel = timer(
      () => end(plainPage(source, `it took more than ${Math.round(budgetMs / 1000)} s to render`)),
      budgetMs,
    );
    worker.onmessage = (event: MessageEvent<RenderReply>) => {
      const reply = event.data;
      end("html" in reply ? { html: reply.html } : plainPage(source, `the renderer failed (${reply.error})`));
    };
    worker.onerror = (event) => end(plainPage(source, `the renderer failed (${event.message})`));
    worker.addEventListener("close", () => end(plainPage(source, "the renderer stopped without an answer")));
    const request: RenderRequest = { source, ...(links ? { links } : {}) };
    worker.postMessage(request);
  });
}

/** A counting semaphore of MAX_RENDERS: take() waits for a free slot, give() frees one. */
const slots = (() => {
  let free = MAX_RENDERS;
  const waiting: (() => void)[] = [];
  return {
    take: (): Promise<void> => {
      if (free > 0) {
        free--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    give: (): void => {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
})();

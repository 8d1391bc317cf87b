/**
 * Worker script (markdown-page.ts): renders one page's Markdown off the server's thread, so that a long
 * render never holds `/healthz` or an MCP call, and one over its time budget can be ended.
 */
import { errorMessage } from "../util/errors.ts";
import { renderMarkdown } from "./markdown.ts";
import { type PageLinks, pageLinkPolicy } from "./markdown-links.ts";

/** What markdown-page.ts sends: the Markdown and where its relative links lead. */
export interface RenderRequest {
  source: string;
  links?: PageLinks;
}

/** What this worker answers. */
export type RenderReply = { html: string } | { error: string };

declare const self: Worker;

self.onmessage = (event: MessageEvent<RenderRequest>) => {
  let reply: RenderReply;
  try {
    reply = { html: renderMarkdown(event.data.source, pageLinkPolicy(event.data.links)) };
  } catch (error) {
    reply = { error: errorMessage(error) };
  }
  self.postMessage(reply);
};

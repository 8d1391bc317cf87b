import { RPC, rpcError } from "./http-responses.ts";

/** The first protocol revision without JSON-RPC batches: 2025-06-18 removed them. */
const FIRST_WITHOUT_BATCHES = "2025-06-18";

/**
 * 400 for a batch (a JSON array of messages) sent under protocol `revision` when that revision has none;
 * undefined otherwise. Security: a batch of up to 100 calls arrives in one small request, and each call's
 * answer may be large; clients of 2025-06-18 and later never send one, older ones still may.
 */
export function refuseBatch(body: unknown, revision: string): Response | undefined {
  if (!Array.isArray(body) || revision < FIRST_WITHOUT_BATCHES) return undefined;
  return rpcError(
    400,
    RPC.INVALID_REQUEST,
    `Invalid Request: a JSON-RPC batch (an array of messages) is not part of MCP ${revision}, the revision this client speaks; batches ended with 2025-03-26. Send each message in a request of its own.`,
  );
}

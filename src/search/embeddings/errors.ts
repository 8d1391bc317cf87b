import { SkillHubError } from "../../util/errors.ts";

/**
 * Why an embedding request failed. `EMBEDDING_TIMEOUT`, `EMBEDDING_UNREACHABLE`
 * and `EMBEDDING_HTTP_ERROR` with status 429 or 5xx are worth retrying;
 * `EMBEDDING_BAD_RESPONSE` and other HTTP statuses are not.
 */
export type EmbeddingErrorCode =
  | "EMBEDDING_TIMEOUT"
  | "EMBEDDING_UNREACHABLE"
  | "EMBEDDING_HTTP_ERROR"
  | "EMBEDDING_BAD_RESPONSE"
  | "EMBEDDING_ABORTED";

export class EmbeddingError extends SkillHubError {
  declare readonly code: EmbeddingErrorCode;

  constructor(code: EmbeddingErrorCode, message: string, options: { cause?: unknown; status?: number } = {}) {
    super(code, message, {
      cause: options.cause,
      details: options.status === undefined ? {} : { status: options.status },
    });
    this.name = "EmbeddingError";
  }

  get status(): number | undefined {
    return this.details.status as number | undefined;
  }
}

/**
 * Security: API keys never reach a message or a log, even when a server
 * echoes one back in its error body.
 */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join("***");
  return out;
}

// The domain errors: one type carrying a code from the enum. Services throw them; only the HTTP edge
// (src/http/errors.ts) turns them into statuses and the one error envelope. A message is shown to clients
// and may be logged, so it must never quote team content: name the field or the id, never the value.

export const errorCodes = [
  "invalid_request",
  "query_too_long",
  "unauthorized",
  "admin_disabled",
  "forbidden",
  "not_found",
  "method_not_allowed",
  "conflict",
  "payload_too_large",
  "unsupported_media_type",
  "unprocessable",
  "rate_limited",
  "unreadable",
  "internal",
  "unavailable",
] as const;
export type ErrorCode = (typeof errorCodes)[number];

// The sentence a code says when its thrower has nothing more specific to add.
const defaultMessages: Record<ErrorCode, string> = {
  invalid_request: "Invalid request.",
  query_too_long: "The query is too long.",
  unauthorized: "Missing or invalid credentials.",
  admin_disabled: "Admin routes are disabled: MEMORIA_ADMIN_TOKEN is not set in production.",
  forbidden: "Forbidden.",
  not_found: "Not found.",
  method_not_allowed: "This path does not answer that method.",
  conflict: "Conflict.",
  payload_too_large: "The request body is too large.",
  unsupported_media_type: "Unsupported media type.",
  // A file of the declared format that gives no text (an encrypted PDF, a scan, a DOCX that inflates too far).
  unprocessable: "The file could not be read.",
  rate_limited: "Too many requests.",
  // A sealed row failed to open: wrong key, or the ciphertext was moved or altered. Never an empty answer.
  unreadable: "A stored row could not be opened.",
  internal: "Internal error.",
  unavailable: "Unavailable.",
};

export class DomainError extends Error {
  override readonly name = "DomainError";

  constructor(
    readonly code: ErrorCode,
    message: string = defaultMessages[code],
    /** Whole seconds to wait before asking again, sent as `Retry-After` (an `unavailable` that will pass). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** True for a DomainError, and with `code` only for one of that code. */
export function isDomainError(error: unknown, code?: ErrorCode): error is DomainError {
  return error instanceof DomainError && (code === undefined || error.code === code);
}

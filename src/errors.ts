// The small set of domain errors. Services throw these; only the HTTP edge (src/http/errors.ts) turns them
// into statuses and the one error envelope. A message here is shown to clients and may be logged, so it
// must never quote team content: name the field or the id, never the value.

export const errorCodes = [
  "invalid_request",
  "query_too_long",
  "unauthorized",
  "admin_disabled",
  "forbidden",
  "not_found",
  "conflict",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "unreadable",
  "internal",
  "unavailable",
] as const;
export type ErrorCode = (typeof errorCodes)[number];

export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
}

export class InvalidRequestError extends DomainError {
  readonly code = "invalid_request";
  override readonly name = "InvalidRequestError";
}

export class QueryTooLongError extends DomainError {
  readonly code = "query_too_long";
  override readonly name = "QueryTooLongError";
}

export class UnauthorizedError extends DomainError {
  readonly code = "unauthorized";
  override readonly name = "UnauthorizedError";
  constructor(message = "Missing or invalid credentials.") {
    super(message);
  }
}

export class AdminDisabledError extends DomainError {
  readonly code = "admin_disabled";
  override readonly name = "AdminDisabledError";
  constructor() {
    super("Admin routes are disabled: MEMORIA_ADMIN_TOKEN is not set in production.");
  }
}

export class NotFoundError extends DomainError {
  readonly code = "not_found";
  override readonly name = "NotFoundError";
}

export class ConflictError extends DomainError {
  readonly code = "conflict";
  override readonly name = "ConflictError";
}

export class PayloadTooLargeError extends DomainError {
  readonly code = "payload_too_large";
  override readonly name = "PayloadTooLargeError";
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly code = "unsupported_media_type";
  override readonly name = "UnsupportedMediaTypeError";
}

/** A sealed row failed to open: wrong key, or the ciphertext was moved or altered. Never an empty answer. */
export class UnreadableError extends DomainError {
  readonly code = "unreadable";
  override readonly name = "UnreadableError";
}

export class UnavailableError extends DomainError {
  readonly code = "unavailable";
  override readonly name = "UnavailableError";
}

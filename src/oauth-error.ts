// The errors of OAuth's own protocol (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707 §2): the authorization server's
// endpoints answer them in OAuth's form, `{"error", "error_description"}`, because that is what every OAuth
// client reads; memoria's envelope is for its own API. A description never quotes what a client sent.

export const oauthErrorCodes = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "unsupported_response_type",
  "invalid_scope",
  "invalid_target",
  "access_denied",
  "invalid_redirect_uri",
  "invalid_client_metadata",
  "temporarily_unavailable",
] as const;
export type OAuthErrorCode = (typeof oauthErrorCodes)[number];

export class OAuthError extends Error {
  override readonly name = "OAuthError";

  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }
}

/** The HTTP status an endpoint answers a code with: 401 for a client that failed to authenticate. */
export function statusOfOAuthError(code: OAuthErrorCode): 400 | 401 | 503 {
  if (code === "invalid_client") return 401;
  if (code === "temporarily_unavailable") return 503;
  return 400;
}

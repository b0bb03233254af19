// The values of one OpenID Connect sign-in, all derived from a secret only the person's browser holds (a
// short-lived cookie): the `state` that ties the provider's answer to this browser, the `nonce` the ID token
// must carry, and the PKCE verifier. Nothing is stored: the answer is checked against what the cookie
// derives, so an answer carried to another browser (login CSRF) finds no matching state there.

import { toBase64Url, utf8 } from "./bytes.js";

export interface SignInAttempt {
  state: string;
  nonce: string;
  /** 43 base64url characters: PKCE's verifier, of the unreserved characters RFC 7636 allows. */
  codeVerifier: string;
}

export async function signInAttempt(secret: string): Promise<SignInAttempt> {
  const key = await crypto.subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const derive = async (label: string) =>
    toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8(`memoria/oidc/${label}`))));
  const [state, nonce, codeVerifier] = await Promise.all([
    derive("state"),
    derive("nonce"),
    derive("verifier"),
  ]);
  return { state, nonce, codeVerifier };
}

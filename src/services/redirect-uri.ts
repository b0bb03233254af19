// Where an OAuth client may have its codes sent, and how the person is told where that is. One set of rules for
// a client that registers and for one a metadata document describes. Pure.

/** The longest redirect URI taken: real ones are well under 200 characters; this bounds what a client id carries. */
export const MAX_REDIRECT_URI_CHARS = 2000;

/** Loopback hosts, where a native client listens on a port of its own choosing (RFC 8252 §7.3). */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Never somewhere to send a code: a browser runs or reads these itself instead of handing them to an app. */
const BROWSER_SCHEMES = new Set([
  "javascript",
  "data",
  "file",
  "blob",
  "about",
  "vbscript",
  "ftp",
  "ws",
  "wss",
]);

/**
 * A redirect URI a client may have: https anywhere; plain http only back to the person's own machine (elsewhere
 * the code would cross the network in the clear); or an app's own scheme (RFC 8252 §7.1 asks for a reverse
 * domain name, but a desktop editor's is its bare name). Never a fragment (RFC 6749 §3.1.2).
 */
export function acceptableRedirectUri(uri: string): boolean {
  if (uri.length > MAX_REDIRECT_URI_CHARS || !URL.canParse(uri) || uri.includes("#")) return false;
  const url = new URL(uri);
  if (url.protocol === "https:") return true;
  if (url.protocol === "http:") return LOOPBACK_HOSTS.has(url.hostname);
  return !BROWSER_SCHEMES.has(url.protocol.slice(0, -1));
}

/**
 * Whether `given` is one of a client's registered redirect URIs: compared exactly, except that a loopback URI's
 * port may differ (OAuth 2.1 §8.4.2: a native app's port is picked when it starts).
 */
export function redirectUriMatches(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  if (!URL.canParse(given)) return false;
  const url = new URL(given);
  if (url.protocol !== "http:" || !LOOPBACK_HOSTS.has(url.hostname)) return false;
  return registered.some((entry) => {
    if (!URL.canParse(entry)) return false;
    const candidate = new URL(entry);
    if (candidate.protocol !== "http:" || candidate.hostname !== url.hostname) return false;
    candidate.port = url.port;
    return candidate.href === url.href;
  });
}

/**
 * Where a redirect URI sends a person, as the consent page and the app list say it: a web address's host; for an
 * app's own scheme, only that it is an app on their device (what follows `scheme://` is whatever the app wrote,
 * and names no site).
 */
export function whereBack(redirectUri: string): string {
  const url = new URL(redirectUri);
  if (url.protocol === "https:" || url.protocol === "http:") return url.host;
  return `an app on this device (${url.protocol})`;
}

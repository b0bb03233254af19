// The page session's cookie: its names, the live session it names, and setting or clearing it on an answer.
// What it holds and how a session is made or ended is ./sessions.ts's.

import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { isHttps, type PageContext, type PageDeps } from "./routes.js";
import type { PageSession } from "./sessions.js";

/** The cookie's name over plain HTTP, where the `__Host-` prefix cannot be used (it needs `Secure`). */
export const SESSION_COOKIE = "memoria_session";
/**
 * Its name over HTTPS: a browser keeps a `__Host-` cookie only when it is `Secure`, `Path=/` and has no
 * `Domain`, so no other host of the site (a sibling subdomain, a plain-HTTP page) can set or shadow it.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** The session cookies a request carries, by name: the `__Host-` one first (see SECURE_SESSION_COOKIE). */
export function carriedCookies(c: PageContext): { name: string; value: string }[] {
  return [SECURE_SESSION_COOKIE, SESSION_COOKIE].flatMap((name) => {
    const value = getCookie(c, name);
    return value === undefined ? [] : [{ name, value }];
  });
}

/** The live session of the first carried cookie that names one, or null. */
export async function resolveSession(
  deps: Pick<PageDeps, "sessions">,
  c: PageContext,
): Promise<PageSession | null> {
  for (const { value } of carriedCookies(c)) {
    const session = await deps.sessions.resolve(value);
    if (session) return session;
  }
  return null;
}

/**
 * Clears the session cookies this request carried, and no other: a request without one (every cross-site
 * navigation, since the cookie is SameSite=Strict) must not sign anyone out.
 */
export function clearCarriedCookies(c: PageContext): void {
  for (const { name } of carriedCookies(c)) {
    const secure = name === SECURE_SESSION_COOKIE || isHttps(c);
    deleteCookie(c, name, { path: "/", httpOnly: true, sameSite: "Strict", secure });
  }
}

/** Sets a new session's cookie on the answer. */
export function setSessionCookie(c: PageContext, cookie: string): void {
  const secure = isHttps(c);
  setCookie(c, secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE, cookie, {
    httpOnly: true,
    sameSite: "Strict",
    path: "/",
    secure,
  });
}

/** Sets a new session's cookie and sends the person to the start page. */
export function signedInNow(c: PageContext, cookie: string) {
  setSessionCookie(c, cookie);
  return c.redirect("/", 303);
}

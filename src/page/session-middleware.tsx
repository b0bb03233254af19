/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The page's sign-in check, run before the page's routes that need a signed-in person (`GET /` and the OAuth
// consent read the session themselves, as they also answer someone signed out): it loads the session the
// cookie names (./session-cookie.ts), counts the request under the session's key, and refuses an action the
// session's role or key may not take (./scopes.ts).

import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { allows, type Scope } from "../scope.js";
import { csrfToken } from "../seal/page-session.js";
import { MessagePage } from "./message.js";
import { type PageContext, type PageDeps, type PageEnv, render } from "./routes.js";
import { scopeOfPage } from "./scopes.js";
import { clearCarriedCookies, resolveSession } from "./session-cookie.js";

/** A session over its key's rate limit: 429, in the page's words. */
export function tooManyRequests(c: PageContext, limited: Response) {
  c.header("Retry-After", limited.headers.get("retry-after") ?? "60");
  return render(
    c,
    <MessagePage
      title="Too many requests"
      message="This team key has made too many requests this minute; wait a moment and reload."
    />,
    429,
  );
}

/** The least role holding a scope, for a member told what an action needs. */
const ROLE_FOR: Readonly<Record<Scope, string>> = { read: "reader", write: "member", admin: "owner" };

/** A signed-in person whose role or key may not do this: what it needs, in the page's words. */
function outOfScope(c: PageContext, held: Scope, needed: Scope) {
  const as = c.var.session.as;
  if (as.kind === "member")
    return render(
      c,
      <MessagePage
        title="Not with your role"
        message={`This needs the ${ROLE_FOR[needed]} role or more; your role in this team is ${as.role}.`}
        csrf={c.var.csrf}
      />,
      403,
    );
  return render(
    c,
    <MessagePage
      title="Not with this key"
      message={`This needs a team key with the ${needed} scope; the key you signed in with has the ${held} scope.`}
      csrf={c.var.csrf}
    />,
    403,
  );
}

/** Loads the session, or sends a signed-out person to the sign-in page. */
export function signedInMiddleware(
  deps: Pick<PageDeps, "sessions" | "rateLimit">,
): MiddlewareHandler<PageEnv> {
  return async (c, next) => {
    const session = await resolveSession(deps, c);
    if (!session) {
      // A cookie that no longer names a live session (expired, its key revoked) is cleared; none, none is.
      clearCarriedCookies(c);
      return c.redirect("/", 303);
    }
    const limited = await deps.rateLimit(c, session.credential);
    if (limited) return tooManyRequests(c, limited);
    c.set("session", session);
    c.set("csrf", await csrfToken(session.keys));
    const needed = scopeOfPage(c.req.method, routePath(c));
    if (!allows(session.scope, needed)) return outOfScope(c, session.scope, needed);
    await next();
  };
}

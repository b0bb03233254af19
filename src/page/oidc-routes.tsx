/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// Signing in, or joining by an invite, with the instance's OpenID Connect provider (MEMORIA_OIDC_*). The start
// sets a short cookie holding the attempt's secret (and the invite, when joining) and sends the browser to the
// provider; the callback checks the provider's answer against what that cookie derives (seal/sign-in-attempt.ts),
// so nothing of the attempt is stored. The cookie is SameSite=Lax: the provider's redirect back is a
// navigation from its site, which a Strict cookie would not come with.

import type { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { isDomainError } from "../errors.js";
import { generateSessionSecret } from "../seal/page-session.js";
import { signInAttempt } from "../seal/sign-in-attempt.js";
import type { MemberService } from "../services/members.js";
import type { OidcService } from "../services/oidc.js";
import { MessagePage } from "./message.js";
import {
  formOf,
  fromThisOrigin,
  isHttps,
  type PageContext,
  type PageEnv,
  refused,
  render,
  unreadableForm,
} from "./routes.js";
import { signedInNow } from "./session-cookie.js";
import type { PageSessions } from "./sessions.js";
import { SignInPage } from "./sign-in.js";

export const OIDC_COOKIE = "memoria_oidc";
export const SECURE_OIDC_COOKIE = `__Host-${OIDC_COOKIE}`;
const OIDC_PATH = "/page/oidc";
/** Ten minutes to sign in at the provider: a password, a second factor, a coffee. */
const ATTEMPT_SECONDS = 10 * 60;

export interface OidcRouteDeps {
  oidc: OidcService | null;
  members: MemberService;
  sessions: PageSessions;
}

function callbackUrl(c: PageContext): string {
  const url = new URL(c.req.url);
  return `${isHttps(c) ? "https" : "http"}://${url.host}${OIDC_PATH}/callback`;
}

/** The request's URL as the browser opened it (https behind a TLS terminator that says so). */
function openedUrl(c: PageContext): string {
  const url = new URL(c.req.url);
  if (isHttps(c)) url.protocol = "https:";
  return url.toString();
}

export function oidcRoutes(app: Hono<PageEnv>, deps: OidcRouteDeps) {
  const notOffered = (c: PageContext) =>
    render(
      c,
      <MessagePage
        title="Not here"
        message="This memoria does not sign in with an organisation's account."
      />,
      404,
    );

  const refusedSignIn = (c: PageContext, message: string, status: 401 | 503) =>
    render(c, <SignInPage error={message} />, status);

  /**
   * Starts a sign-in at the provider, or a join when `invite` is given. A join must come from the invite's own
   * page on this origin (a POST, its Origin checked): a link from elsewhere could otherwise make a person who is
   * signed in at their provider join a team they never chose, in one click.
   */
  const start = async (c: PageContext, invite: string) => {
    const oidc = deps.oidc;
    if (!oidc) return notOffered(c);
    if (invite !== "" && !/^[A-Za-z0-9_-]{43}$/.test(invite))
      return render(
        c,
        <MessagePage
          title="This invite cannot be used"
          message="This invite link is not one memoria made."
        />,
        404,
      );
    if (invite !== "") {
      try {
        await deps.members.offer(invite);
      } catch (error) {
        if (!isDomainError(error, "not_found")) throw error;
        return render(
          c,
          <MessagePage title="This invite cannot be used" message={(error as Error).message} />,
          404,
        );
      }
    }
    const secret = generateSessionSecret();
    let url: string;
    try {
      url = await oidc.authorizationUrl(await signInAttempt(secret), callbackUrl(c));
    } catch (error) {
      if (!isDomainError(error, "unavailable")) throw error;
      c.header("Retry-After", "30");
      return refusedSignIn(c, (error as Error).message, 503);
    }
    const secure = isHttps(c);
    // Over HTTPS the `__Host-` name (Secure, Path=/, no Domain): no sibling host can plant an attempt of its own.
    setCookie(c, secure ? SECURE_OIDC_COOKIE : OIDC_COOKIE, invite === "" ? secret : `${secret}.${invite}`, {
      httpOnly: true,
      sameSite: "Lax",
      path: secure ? "/" : OIDC_PATH,
      secure,
      maxAge: ATTEMPT_SECONDS,
    });
    return c.redirect(url, 303);
  };

  app.get(`${OIDC_PATH}/start`, (c) => start(c, ""));

  app.post(`${OIDC_PATH}/start`, async (c) => {
    if (!fromThisOrigin(c)) return refused(c, "This form was sent from another site, so nothing was done.");
    const form = await formOf(c);
    if (!form) return unreadableForm(c);
    const invite = typeof form.invite === "string" ? form.invite : "";
    if (invite === "") return start(c, "");
    return start(c, invite);
  });

  app.get(`${OIDC_PATH}/callback`, async (c) => {
    const oidc = deps.oidc;
    if (!oidc) return notOffered(c);
    // Over HTTPS only the `__Host-` one: a plain one there could have been planted by a sibling host. An
    // attempt's cookie is used once either way.
    const cookie = (isHttps(c) ? getCookie(c, SECURE_OIDC_COOKIE) : getCookie(c, OIDC_COOKIE)) ?? "";
    if (getCookie(c, SECURE_OIDC_COOKIE) !== undefined)
      deleteCookie(c, SECURE_OIDC_COOKIE, { path: "/", httpOnly: true, sameSite: "Lax", secure: true });
    if (getCookie(c, OIDC_COOKIE) !== undefined)
      deleteCookie(c, OIDC_COOKIE, { path: OIDC_PATH, httpOnly: true, sameSite: "Lax", secure: isHttps(c) });
    const [secret = "", invite = ""] = cookie.split(".");
    if (!/^[A-Za-z0-9_-]{43}$/.test(secret))
      return refusedSignIn(c, "This sign-in was not started here, or took too long; start it again.", 401);
    try {
      const identity = await oidc.identify(await signInAttempt(secret), openedUrl(c));
      if (invite !== "") {
        const member = await deps.members.joinWithIdentity(invite, identity);
        return signedInNow(c, await deps.sessions.createForMember(member));
      }
      const member = await deps.members.signInWithIdentity(identity);
      if (!member)
        return refusedSignIn(
          c,
          "No member here signs in with that account. Ask a team's owner for an invite link, and join with it.",
          401,
        );
      return signedInNow(c, await deps.sessions.createForMember(member));
    } catch (error) {
      if (isDomainError(error, "unauthorized")) return refusedSignIn(c, (error as Error).message, 401);
      if (isDomainError(error, "unavailable")) {
        c.header("Retry-After", "30");
        return refusedSignIn(c, (error as Error).message, 503);
      }
      if (isDomainError(error, "not_found"))
        return render(
          c,
          <MessagePage title="This invite cannot be used" message={(error as Error).message} />,
          404,
        );
      if (isDomainError(error, "conflict"))
        return render(c, <MessagePage title="Already a member" message={(error as Error).message} />, 409);
      throw error;
    }
  });
}

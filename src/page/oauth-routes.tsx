/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The authorization endpoint of memoria's OAuth server and its consent page. An MCP client sends the person's
// browser to /oauth/authorize; the request is checked (its client and redirect URI, then the rest), and one that
// fails is shown here, never sent to the client's redirect URI, which anyone registering may choose. The browser
// arrives from another site without the SameSite=Strict session cookie, so the answer moves it on, from this
// site, to /page/oauth/consent, which sees the session; a person not signed in signs in as on the page and comes
// back to the consent page. Only the person's answer (Approve, Deny) goes back to the client.

import type { Hono, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { mcpResource, oauthIssuer } from "../http/mcp-challenge.js";
import { OAuthError } from "../oauth-error.js";
import { type OAuthScope, oauthScopes } from "../oauth-scope.js";
import { allows } from "../scope.js";
import { csrfToken } from "../seal/page-session.js";
import { isClientMetadataUrl } from "../services/client-metadata.js";
import { type AuthorizationParams, type AuthorizationRequest, grantableScope } from "../services/oauth.js";
import { whereBack } from "../services/redirect-uri.js";
import { ConsentPage, ContinuePage } from "./consent.js";
import { MessagePage } from "./message.js";
import { isHttps, PAGE_CSP, type PageContext, type PageDeps, type PageEnv, render } from "./routes.js";
import { resolveSession } from "./session-cookie.js";
import { SignInPage } from "./sign-in.js";

export const AUTHORIZE_PATH = "/oauth/authorize";
export const CONSENT_PATH = "/page/oauth/consent";

/** Where a person goes back to once signed in: the consent page they were sent away from. */
export const RETURN_COOKIE = "memoria_return";
const SECURE_RETURN_COOKIE = `__Host-${RETURN_COOKIE}`;
/** Ten minutes to sign in, as for an organisation's sign-in (oidc-routes.tsx). */
const RETURN_SECONDS = 10 * 60;
/** The longest consent address kept in the return cookie: under a browser's 4 KiB a cookie, with its name and attributes. */
const MAX_RETURN_CHARS = 3800;

/** The authorization request's parameters memoria reads; each carried through the consent form as it came. */
const PARAM_NAMES = [
  "client_id",
  "redirect_uri",
  "response_type",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
  "scope",
] as const;

function paramsOf(source: Record<string, unknown>): AuthorizationParams & Record<string, string | undefined> {
  const out: Record<string, string> = {};
  for (const name of PARAM_NAMES) {
    const value = source[name];
    if (typeof value === "string") out[name] = value;
  }
  return out;
}

/** The request's parameters as a query string, in a fixed order. */
function queryOf(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const name of PARAM_NAMES) {
    const value = params[name];
    if (value !== undefined) query.set(name, value);
  }
  return query.toString();
}

/**
 * The page's policy with the client's origin added to `form-action`: a browser applies it to the redirect that
 * answers the consent form too, and that redirect goes to the client.
 */
function consentPolicy(redirectUri: string): string {
  const url = new URL(redirectUri);
  const source = url.origin !== "null" ? url.origin : url.protocol;
  return PAGE_CSP.replace("form-action 'self'", `form-action 'self' ${source}`);
}

export interface OAuthPageHelpers {
  signedIn: MiddlewareHandler<PageEnv>;
  statefulPost: (c: PageContext) => Promise<Record<string, string | File> | Response>;
}

/** A consent page address a person may be sent back to: nothing but this site's consent page. */
function returnable(value: string | undefined): value is string {
  return value?.startsWith(`${CONSENT_PATH}?`) === true && !value.includes("\\");
}

/**
 * After signing in on the start page: the consent page the person left, if a return cookie names one (it is
 * cleared), else null.
 */
export function takeReturn(c: PageContext): string | null {
  const secure = isHttps(c);
  // Over HTTPS only the __Host- cookie counts (a plain one could be planted by a sibling host); both are cleared.
  const value = secure ? getCookie(c, SECURE_RETURN_COOKIE) : getCookie(c, RETURN_COOKIE);
  for (const name of [SECURE_RETURN_COOKIE, RETURN_COOKIE])
    if (getCookie(c, name) !== undefined)
      deleteCookie(c, name, { path: "/", secure: secure || name === SECURE_RETURN_COOKIE, httpOnly: true });
  return returnable(value) ? value : null;
}

export function oauthPageRoutes(
  app: Hono<PageEnv>,
  deps: PageDeps,
  { signedIn, statefulPost }: OAuthPageHelpers,
) {
  const cannotSignIn = (c: PageContext, error: OAuthError) =>
    render(c, <MessagePage title="This app cannot sign in here" message={error.description} />, 400);

  /** An OAuth error sent back to the client, as RFC 6749 §4.1.2.1 says, with the issuer (RFC 9207). */
  const backToClient = (c: PageContext, redirectUri: string, state: string | null, error: OAuthError) =>
    c.redirect(
      deps.oauth.redirect(redirectUri, {
        error: error.code,
        error_description: error.description,
        state,
        iss: oauthIssuer(c),
      }),
      303,
    );

  /**
   * The request checked: its client and redirect URI, then the rest; the checked request, or a page saying why
   * not. Never a redirect before the person acted: anyone may register a client with a redirect URI of their
   * choosing, so a request that fails would make this instance an open redirect to it (RFC 9700 §4.11.2).
   */
  const checked = async (
    c: PageContext,
    params: AuthorizationParams,
  ): Promise<AuthorizationRequest | Response> => {
    let target: Awaited<ReturnType<typeof deps.oauth.authorizationTarget>>;
    try {
      target = await deps.oauth.authorizationTarget(params);
    } catch (error) {
      if (error instanceof OAuthError) return cannotSignIn(c, error);
      throw error;
    }
    try {
      return deps.oauth.checkAuthorization(target, params, mcpResource(c));
    } catch (error) {
      if (error instanceof OAuthError)
        return cannotSignIn(c, new OAuthError(error.code, `${error.description} (${error.code})`));
      throw error;
    }
  };

  /** The consent page for a checked request, the session's member approving; or why it cannot be shown. */
  /** `fromClient`: the request as the client sent it (no session cookie yet); else this site's own hop. */
  const consent = async (c: PageContext, fromClient: boolean) => {
    const params = paramsOf(c.req.query());
    // A client named by a URL is fetched from wherever that URL points: counted per address, as passkey
    // ceremonies are, so nobody can make this instance fetch without bound.
    const clientId = params.client_id;
    if (
      clientId !== undefined &&
      isClientMetadataUrl(clientId) &&
      !deps.oauth.clients.knowsClient(clientId)
    ) {
      const limited = deps.documentFetched(c);
      if (limited) return limited;
    }
    const request = await checked(c, params);
    if (request instanceof Response) return request;
    const to = `${CONSENT_PATH}?${queryOf(params)}`;
    const session = await resolveSession(deps, c);
    if (!session) {
      if (fromClient) return c.html(`<!doctype html>${await (<ContinuePage to={to} />)}`);
      const secure = isHttps(c);
      // A request too long for a cookie (a browser keeps 4 KiB) is not remembered: the person signs in, then
      // connects again from the app.
      if (to.length > MAX_RETURN_CHARS)
        return render(c, <SignInPage notice="Sign in, then go back to the app and connect again." />);
      setCookie(c, secure ? SECURE_RETURN_COOKIE : RETURN_COOKIE, to, {
        path: "/",
        httpOnly: true,
        secure,
        // Lax: an organisation's sign-in comes back from its site, and the person must still land here.
        sameSite: "Lax",
        maxAge: RETURN_SECONDS,
      });
      // The app's name is not repeated here: it is the app's own claim, and this is memoria's sign-in page.
      return render(c, <SignInPage notice="Sign in to decide whether an app may use your team's memory." />);
    }
    const limited = await deps.rateLimit(c, session.credential);
    if (limited) return limited;
    c.set("session", session);
    const csrf = await csrfToken(session.keys);
    c.set("csrf", csrf);
    if (session.as.kind !== "member")
      return render(
        c,
        <MessagePage
          title="Sign in as yourself"
          message="An app is approved by a member of the team. You are signed in with a team key: sign out, then sign in as yourself."
          csrf={csrf}
        />,
        403,
      );
    const team = await deps.teams.get(session.team);
    const role = session.as.role;
    const offered = oauthScopes
      .filter((scope) => scope === grantableScope(scope, role) && allowsAsked(scope, request.scope))
      .reverse();
    c.header("Content-Security-Policy", consentPolicy(request.redirectUri));
    return render(
      c,
      <ConsentPage
        csrf={csrf}
        clientName={request.client.name}
        redirectHost={whereBack(request.redirectUri)}
        vouchedBy={request.client.kind === "document" ? new URL(request.client.clientId).host : null}
        teamName={team.name}
        asked={request.scope}
        offered={offered}
        params={
          Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<
            string,
            string
          >
        }
      />,
    );
  };

  app.get(AUTHORIZE_PATH, (c) => consent(c, true));
  app.get(CONSENT_PATH, (c) => consent(c, false));

  app.post(CONSENT_PATH, signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    const params = paramsOf(form);
    const request = await checked(c, params);
    if (request instanceof Response) return request;
    const { actor } = c.var.session;
    const member =
      actor.kind === "member" ? await deps.members.live(c.var.session.team.teamId, actor.id) : null;
    if (!member)
      return render(
        c,
        <MessagePage
          title="Sign in as yourself"
          message="An app is approved by a member of the team."
          csrf={c.var.csrf}
        />,
        403,
      );
    if (form.decision !== "approve")
      return backToClient(
        c,
        request.redirectUri,
        request.state,
        new OAuthError("access_denied", "The member said no."),
      );
    const chosen = form.grant_scope;
    const scope: OAuthScope =
      typeof chosen === "string" &&
      (oauthScopes as readonly string[]).includes(chosen) &&
      allowsAsked(chosen as OAuthScope, request.scope)
        ? (chosen as OAuthScope)
        : request.scope;
    try {
      const to = await deps.oauth.approve(member, request, scope, mcpResource(c), oauthIssuer(c));
      c.header("Content-Security-Policy", consentPolicy(request.redirectUri));
      return c.redirect(to, 303);
    } catch (error) {
      if (error instanceof OAuthError) return backToClient(c, request.redirectUri, request.state, error);
      throw error;
    }
  });
}

/** Whether a scope is at most what was asked: a member may give less than asked, never more. */
function allowsAsked(scope: OAuthScope, asked: OAuthScope): boolean {
  return allows(asked, scope);
}

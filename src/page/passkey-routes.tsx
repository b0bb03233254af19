/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The page's passkey routes: a member's account page (their passkeys), the JSON routes the page's script drives
// a ceremony through (options, then the browser's answer), and signing in with a passkey. The relying party
// is the page's own host: a passkey made on one host signs in only there.

import type { Hono, MiddlewareHandler } from "hono";
import { z } from "zod";
import { events } from "../audit.js";
import { isDomainError } from "../errors.js";
import { nameText } from "../routes/schemas.js";
import { csrfTokenMatches } from "../seal/page-session.js";
import type { AuditTrail } from "../services/audit.js";
import type { SignedInMember } from "../services/members.js";
import type { PasskeyService, RelyingParty } from "../services/passkeys.js";
import { AccountPage } from "./account.js";
import { MessagePage } from "./message.js";
import { fromThisOrigin, isHttps, type PageContext, type PageEnv, render } from "./routes.js";
import { setSessionCookie } from "./session-cookie.js";
import type { PageSessions } from "./sessions.js";

export interface PasskeyRouteDeps {
  ceremonyStarted: (c: PageContext) => Response | null;
  passkeys: PasskeyService;
  audit: AuditTrail;
  members: { live(teamId: string, memberId: string): Promise<SignedInMember | null> };
  sessions: PageSessions;
}

export interface PasskeyHelpers {
  signedIn: MiddlewareHandler<PageEnv>;
  statefulPost: (c: PageContext) => Promise<Record<string, string | File> | Response>;
}

/** The host the browser is on, and its origin (`https` behind a TLS terminator that says so). */
function relyingParty(c: PageContext): RelyingParty {
  const url = new URL(c.req.url);
  return { id: url.hostname, origin: `${isHttps(c) ? "https" : "http"}://${url.host}` };
}

/** Who is joining with a passkey alone, as the join form takes them (the password aside). */
const joiningPerson = z.object({
  name: nameText(200),
  email: z.email().max(320),
});

/** A ceremony's JSON bodies are small: an answer is a few kilobytes of base64url. */
const MAX_CEREMONY_BYTES = 64 * 1024;

async function ceremonyBody(c: PageContext): Promise<unknown> {
  const text = await c.req.text();
  if (text.length > MAX_CEREMONY_BYTES) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

const jsonError = (
  c: PageContext,
  status: 400 | 401 | 403 | 404 | 409 | 503,
  code: string,
  message: string,
) => c.json({ error: { code, message } }, status);

export function passkeyRoutes(app: Hono<PageEnv>, deps: PasskeyRouteDeps, helpers: PasskeyHelpers) {
  const { signedIn, statefulPost } = helpers;

  /** The signed-in member, or null for a session signed in with a key (passkeys belong to people). */
  const memberOf = (c: PageContext) => {
    const { actor } = c.var.session;
    return actor.kind === "member" ? deps.members.live(c.var.session.team.teamId, actor.id) : null;
  };

  /** A script's POST: from this origin, and carrying the session's CSRF token in a header. */
  const scriptPost = async (c: PageContext) =>
    fromThisOrigin(c) && (await csrfTokenMatches(c.var.session.keys, c.req.header("x-csrf-token") ?? ""));

  const onlyPeople = (c: PageContext) =>
    render(
      c,
      <MessagePage
        title="Sign in as yourself"
        message="Passkeys belong to people: sign in with your email and password to add one."
        csrf={c.var.csrf}
      />,
      403,
    );

  const accountPage = async (
    c: PageContext,
    member: SignedInMember,
    extra: { error?: string; status?: 404 | 409 } = {},
  ) => {
    const notice =
      c.req.query("added") === "1"
        ? "The passkey was added: sign in with it next time."
        : c.req.query("removed") === "1"
          ? "The passkey was removed."
          : undefined;
    return render(
      c,
      <AccountPage
        csrf={c.var.csrf}
        name={member.name}
        role={member.role}
        passkeys={await deps.passkeys.listOf(member)}
        notice={extra.error ? undefined : notice}
        error={extra.error}
      />,
      extra.status ?? 200,
    );
  };

  app.get("/page/account", signedIn, async (c) => {
    const member = await memberOf(c);
    return member ? accountPage(c, member) : onlyPeople(c);
  });

  app.post("/page/passkeys/options", signedIn, async (c) => {
    if (!(await scriptPost(c))) return jsonError(c, 403, "forbidden", "Reload the page and try again.");
    const member = await memberOf(c);
    if (!member) return jsonError(c, 403, "forbidden", "Passkeys belong to people: sign in as yourself.");
    return c.json((await deps.passkeys.registrationOptions(member, relyingParty(c))) as object);
  });

  app.post("/page/passkeys", signedIn, async (c) => {
    if (!(await scriptPost(c))) return jsonError(c, 403, "forbidden", "Reload the page and try again.");
    const member = await memberOf(c);
    if (!member) return jsonError(c, 403, "forbidden", "Passkeys belong to people: sign in as yourself.");
    const body = await ceremonyBody(c);
    if (body === null) return jsonError(c, 400, "invalid_request", "The browser's answer could not be read.");
    try {
      const added = await deps.passkeys.register(member, body, relyingParty(c));
      await deps.audit.record(member.team, c.var.session.actor, events.passkeyAdded(added.id));
      return c.json(added, 201);
    } catch (error) {
      if (isDomainError(error, "unauthorized"))
        return jsonError(c, 401, "unauthorized", (error as Error).message);
      if (isDomainError(error, "conflict")) return jsonError(c, 409, "conflict", (error as Error).message);
      throw error;
    }
  });

  app.post("/page/passkeys/:id/remove", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    const member = await memberOf(c);
    if (!member) return onlyPeople(c);
    try {
      const id = c.req.param("id") ?? "";
      await deps.passkeys.remove(member, id);
      await deps.audit.record(member.team, c.var.session.actor, events.passkeyRemoved(id));
      return c.redirect("/page/account?removed=1", 303);
    } catch (error) {
      if (isDomainError(error, "conflict"))
        return accountPage(c, member, { error: (error as Error).message, status: 409 });
      if (!isDomainError(error, "not_found")) throw error;
      return accountPage(c, member, { error: "That passkey is not one of yours.", status: 404 });
    }
  });

  /** The join form's name and address, as the script sends them with a passkey join; null when not valid. */
  const joinPerson = (body: unknown) => {
    const parsed = joiningPerson.safeParse(body);
    return parsed.success ? parsed.data : null;
  };

  const joinFailed = (c: PageContext, error: unknown) => {
    if (isDomainError(error, "unauthorized"))
      return jsonError(c, 401, "unauthorized", (error as Error).message);
    if (isDomainError(error, "not_found")) return jsonError(c, 404, "not_found", (error as Error).message);
    if (isDomainError(error, "conflict")) return jsonError(c, 409, "conflict", (error as Error).message);
    if (isDomainError(error, "unavailable"))
      return jsonError(c, 503, "unavailable", (error as Error).message);
    throw error;
  };

  app.post("/page/invite/:code/passkey/options", async (c) => {
    if (!fromThisOrigin(c))
      return jsonError(c, 403, "forbidden", "Sent from another site: nothing was done.");
    const limited = deps.ceremonyStarted(c);
    if (limited) return limited;
    const person = joinPerson(await ceremonyBody(c));
    if (!person) return jsonError(c, 400, "invalid_request", "Give your name and email address first.");
    try {
      return c.json(
        (await deps.passkeys.joinOptions(c.req.param("code"), person, relyingParty(c))) as object,
      );
    } catch (error) {
      return joinFailed(c, error);
    }
  });

  app.post("/page/invite/:code/passkey", async (c) => {
    if (!fromThisOrigin(c))
      return jsonError(c, 403, "forbidden", "Sent from another site: nothing was done.");
    const body = (await ceremonyBody(c)) as { response?: unknown } | null;
    const person = joinPerson(body);
    if (!person || body === null)
      return jsonError(c, 400, "invalid_request", "The browser's answer could not be read.");
    try {
      const member = await deps.passkeys.join(c.req.param("code"), person, body.response, relyingParty(c));
      setSessionCookie(c, await deps.sessions.createForMember(member));
      return c.json({ redirect: "/" });
    } catch (error) {
      return joinFailed(c, error);
    }
  });

  app.post("/page/passkey/options", async (c) => {
    if (!fromThisOrigin(c))
      return jsonError(c, 403, "forbidden", "Sent from another site: nothing was done.");
    const limited = deps.ceremonyStarted(c);
    if (limited) return limited;
    try {
      return c.json((await deps.passkeys.signInOptions(relyingParty(c))) as object);
    } catch (error) {
      if (!isDomainError(error, "unavailable")) throw error;
      c.header("Retry-After", "60");
      return jsonError(c, 503, "unavailable", (error as Error).message);
    }
  });

  app.post("/page/passkey/sign-in", async (c) => {
    if (!fromThisOrigin(c))
      return jsonError(c, 403, "forbidden", "Sent from another site: nothing was done.");
    const body = await ceremonyBody(c);
    if (body === null) return jsonError(c, 400, "invalid_request", "The browser's answer could not be read.");
    try {
      const member = await deps.passkeys.signIn(body, relyingParty(c));
      setSessionCookie(c, await deps.sessions.createForMember(member));
      return c.json({ redirect: "/" });
    } catch (error) {
      if (!isDomainError(error, "unauthorized")) throw error;
      return jsonError(c, 401, "unauthorized", (error as Error).message);
    }
  });
}

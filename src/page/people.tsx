/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The page's people: joining a team through an invite link (signed out), and the members page where owners
// invite, change roles and remove. Signing in by address and password is the sign-in form's (routes.tsx).

import type { Hono, MiddlewareHandler } from "hono";
import { z } from "zod";
import { events } from "../audit.js";
import { isDomainError } from "../errors.js";
import { isRole } from "../role.js";
import { inviteOf } from "../routes/members.js";
import { nameText } from "../routes/schemas.js";
import { type Scope, scopes } from "../scope.js";
import { JoinPage, type JoinValues, MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS } from "./join.js";
import { KEY_LIFETIMES_DAYS, KeysPage } from "./keys.js";
import { MembersPage } from "./members.js";
import { MessagePage } from "./message.js";
import {
  firstIssue,
  formOf,
  fromThisOrigin,
  type PageContext,
  type PageDeps,
  type PageEnv,
  refused,
  render,
  unreadableForm,
} from "./routes.js";
import { signedInNow } from "./session-cookie.js";

const keyForm = z.object({
  name: nameText(200),
  scope: z.enum(scopes, { error: "must be read, write or admin" }),
  days: z.coerce
    .number()
    .refine(
      (days) => (KEY_LIFETIMES_DAYS as readonly number[]).includes(days),
      "must be one of the offered lifetimes",
    )
    .optional(),
});

const joinForm = z.object({
  name: nameText(200),
  email: z.email("must be an email address").max(320, "must be an email address"),
  password: z
    .string()
    .min(MIN_PASSWORD_CHARS, `must be at least ${MIN_PASSWORD_CHARS} characters`)
    .max(MAX_PASSWORD_CHARS, `must be at most ${MAX_PASSWORD_CHARS} characters`),
});

export interface PeopleHelpers {
  signedIn: MiddlewareHandler<PageEnv>;
  statefulPost: (c: PageContext) => Promise<Record<string, string | File> | Response>;
}

function fieldOf(form: Record<string, string | File>, name: string): string {
  const value = form[name];
  return typeof value === "string" ? value : "";
}

export function peopleRoutes(app: Hono<PageEnv>, deps: PageDeps, { signedIn, statefulPost }: PeopleHelpers) {
  const cannotJoin = (c: PageContext, message: string) =>
    render(c, <MessagePage title="This invite cannot be used" message={message} />, 404);

  /** The join form for an invite that can still be spent, or the page saying why not. */
  const joinPage = async (
    c: PageContext,
    code: string,
    form: { values?: JoinValues; error?: string; status?: 400 | 409 } = {},
  ) => {
    try {
      const offer = await deps.members.offer(code);
      const team = await deps.teams.get(offer.team);
      return render(
        c,
        <JoinPage
          teamName={team.name}
          role={offer.role}
          expiresAt={offer.expiresAt}
          action={`/page/invite/${encodeURIComponent(code)}`}
          code={code}
          values={form.values}
          error={form.error}
        />,
        form.status ?? 200,
      );
    } catch (error) {
      if (!isDomainError(error, "not_found")) throw error;
      return cannotJoin(c, (error as Error).message);
    }
  };

  app.get("/page/invite/:code", (c) => joinPage(c, c.req.param("code")));

  app.post("/page/invite/:code", async (c) => {
    if (!fromThisOrigin(c)) return refused(c, "This form was sent from another site, so nothing was done.");
    const code = c.req.param("code");
    const form = await formOf(c);
    if (!form) return unreadableForm(c);
    const values = { name: fieldOf(form, "name"), email: fieldOf(form, "email").trim() };
    const parsed = joinForm.safeParse({ ...values, password: fieldOf(form, "password") });
    if (!parsed.success) return joinPage(c, code, { values, error: firstIssue(parsed.error), status: 400 });
    try {
      const member = await deps.members.join(code, parsed.data);
      return signedInNow(c, await deps.sessions.createForMember(member));
    } catch (error) {
      if (isDomainError(error, "conflict"))
        return joinPage(c, code, { values, error: (error as Error).message, status: 409 });
      if (isDomainError(error, "not_found")) return cannotJoin(c, (error as Error).message);
      if (isDomainError(error, "unavailable")) {
        c.header("Retry-After", "1");
        return render(c, <MessagePage title="Try again" message={(error as Error).message} />, 503);
      }
      throw error;
    }
  });

  const membersPage = async (
    c: PageContext,
    extra: {
      invite?: Parameters<typeof MembersPage>[0]["invite"];
      error?: string;
      status?: 403 | 404 | 409;
    } = {},
  ) => {
    const session = c.var.session;
    const members = await deps.members.list(session.team);
    const notice =
      c.req.query("changed") === "1"
        ? "The role was changed; it applies from their next request."
        : c.req.query("removed") === "1"
          ? "The member was removed; their sessions have ended."
          : undefined;
    return render(
      c,
      <MembersPage
        csrf={c.var.csrf}
        members={members}
        self={session.actor.kind === "member" ? session.actor.id : null}
        invite={extra.invite}
        notice={extra.invite || extra.error ? undefined : notice}
        error={extra.error}
      />,
      extra.status ?? 200,
    );
  };

  app.get("/page/members", signedIn, (c) => membersPage(c));

  app.post("/page/invites", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    const role = fieldOf(form, "role");
    if (!isRole(role)) return render(c, <MessagePage title="Refused" message="Choose a role." />, 400);
    try {
      const invite = await deps.members.invite(c.var.session.team, role, c.var.session.actor);
      return membersPage(c, { invite: inviteOf(c, invite) });
    } catch (error) {
      if (!isDomainError(error, "forbidden")) throw error;
      return membersPage(c, { error: (error as Error).message, status: 403 });
    }
  });

  /** A change to one member, then back to the members page; refusals are said there. */
  const memberChange = async (
    c: PageContext,
    change: (memberId: string) => Promise<unknown>,
    done: string,
  ) => {
    try {
      await change(c.req.param("id") ?? "");
      return c.redirect(`/page/members?${done}=1`, 303);
    } catch (error) {
      if (isDomainError(error, "conflict"))
        return membersPage(c, { error: (error as Error).message, status: 409 });
      if (isDomainError(error, "not_found"))
        return membersPage(c, { error: "That member is not in this team (or was removed).", status: 404 });
      throw error;
    }
  };

  app.post("/page/members/:id/role", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    const role = fieldOf(form, "role");
    if (!isRole(role)) return render(c, <MessagePage title="Refused" message="Choose a role." />, 400);
    return memberChange(
      c,
      (memberId) => deps.members.changeRole(c.var.session.team, memberId, role, c.var.session.actor),
      "changed",
    );
  });

  /**
   * Who may make and revoke keys here, and how far: a member up to their role's scope (their own keys), an
   * owner or an `admin` key every key; a key of a smaller scope none (as POST /v1/keys needs `admin`).
   */
  const keyMaker = (c: PageContext) => {
    const { actor, scope, as } = c.var.session;
    if (actor.kind !== "member" && scope !== "admin") return null;
    // What a member's key makes is the member's, as what the member makes.
    const ownerId = actor.kind === "member" ? actor.id : as.kind === "key" ? as.owner : null;
    return {
      maxScope: scope,
      everyKey: scope === "admin",
      owner: ownerId === null ? null : { memberId: ownerId, scope },
    };
  };

  const keysPage = async (
    c: PageContext,
    maker: NonNullable<ReturnType<typeof keyMaker>>,
    extra: {
      made?: { name: string; apiKey: string; scope: Scope };
      error?: string;
      status?: 400 | 403 | 404;
    } = {},
  ) => {
    const all = await deps.teams.keysOf(c.var.session.team);
    const keys = maker.everyKey ? all : all.filter((key) => key.owner === maker.owner?.memberId);
    const notice =
      c.req.query("revoked") === "1" ? "The key was revoked; it stops working at once." : undefined;
    return render(
      c,
      <KeysPage
        csrf={c.var.csrf}
        keys={keys}
        maxScope={maker.maxScope}
        everyKey={maker.everyKey}
        made={extra.made}
        notice={extra.made || extra.error ? undefined : notice}
        error={extra.error}
      />,
      extra.status ?? 200,
    );
  };

  const notAKeyMaker = (c: PageContext) =>
    render(
      c,
      <MessagePage
        title="Not with this key"
        message="Making and revoking keys needs a team key with the admin scope, or signing in as yourself."
        csrf={c.var.csrf}
      />,
      403,
    );

  app.get("/page/keys", signedIn, (c) => {
    const maker = keyMaker(c);
    return maker ? keysPage(c, maker) : notAKeyMaker(c);
  });

  app.post("/page/keys", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    const maker = keyMaker(c);
    if (!maker) return notAKeyMaker(c);
    const days = fieldOf(form, "days");
    const parsed = keyForm.safeParse({
      name: fieldOf(form, "name"),
      scope: fieldOf(form, "scope"),
      days: days === "" ? undefined : days,
    });
    if (!parsed.success) return keysPage(c, maker, { error: firstIssue(parsed.error), status: 400 });
    const { name, scope } = parsed.data;
    const lifetimeMs = parsed.data.days === undefined ? undefined : parsed.data.days * 24 * 60 * 60 * 1000;
    try {
      const { actor } = c.var.session;
      const made = await deps.teams.makeKey(
        c.var.session.team,
        { name, scope, lifetimeMs },
        maker.owner,
        actor.kind === "key" ? actor.id : null,
      );
      await deps.audit.record(c.var.session.team, c.var.session.actor, events.keyMade(made.keyId));
      return keysPage(c, maker, { made: { name, apiKey: made.apiKey, scope } });
    } catch (error) {
      if (!isDomainError(error, "forbidden")) throw error;
      return keysPage(c, maker, { error: (error as Error).message, status: 403 });
    }
  });

  app.post("/page/keys/:id/revoke", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    const maker = keyMaker(c);
    if (!maker) return notAKeyMaker(c);
    const keyId = c.req.param("id") ?? "";
    const key = (await deps.teams.keysOf(c.var.session.team)).find((k) => k.keyId === keyId);
    // A member revokes only the keys they made; another's key is as absent as one of another team.
    if (!key || (!maker.everyKey && key.owner !== maker.owner?.memberId))
      return keysPage(c, maker, { error: "That key is not one you can revoke here.", status: 404 });
    if (await deps.teams.revokeOwnKey(c.var.session.team, keyId)) {
      await deps.audit.record(c.var.session.team, c.var.session.actor, events.keyRevoked(keyId));
    }
    return c.redirect("/page/keys?revoked=1", 303);
  });

  app.post("/page/members/:id/remove", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    return memberChange(
      c,
      (memberId) => deps.members.remove(c.var.session.team, memberId, c.var.session.actor),
      "removed",
    );
  });
}

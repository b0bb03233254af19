/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The page's people: joining a team through an invite link (signed out), and the members page where owners
// invite, change roles and remove. Signing in by address and password is the sign-in form's (routes.tsx).

import type { Hono, MiddlewareHandler } from "hono";
import { z } from "zod";
import { isDomainError } from "../errors.js";
import { isRole } from "../role.js";
import { inviteOf } from "../routes/members.js";
import { nameText } from "../routes/schemas.js";
import { JoinPage, type JoinValues, MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS } from "./join.js";
import { MembersPage } from "./members.js";
import { MessagePage } from "./message.js";
import {
  firstIssue,
  fromThisOrigin,
  type PageContext,
  type PageDeps,
  type PageEnv,
  refused,
  render,
  signedInNow,
} from "./routes.js";

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
    const form = (await c.req.parseBody()) as Record<string, string | File>;
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
      throw error;
    }
  });

  const membersPage = async (
    c: PageContext,
    extra: { invite?: Parameters<typeof MembersPage>[0]["invite"]; error?: string; status?: 404 | 409 } = {},
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
    const invite = await deps.members.invite(c.var.session.team, role, c.var.session.actor);
    return membersPage(c, { invite: inviteOf(c, invite) });
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

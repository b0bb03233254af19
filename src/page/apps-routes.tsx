/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The page's Apps view: the apps connected through OAuth, each disconnected with one form. A member sees and
// disconnects their own; an owner (or an admin key) the whole team's.

import type { Hono } from "hono";
import { allows } from "../scope.js";
import { AppsPage } from "./apps.js";
import type { OAuthPageHelpers } from "./oauth-routes.js";
import { type PageContext, type PageDeps, type PageEnv, render } from "./routes.js";

export function appsRoutes(app: Hono<PageEnv>, deps: PageDeps, { signedIn, statefulPost }: OAuthPageHelpers) {
  /** The approvals the session may see: an owner's the whole team's, a member's their own. */
  const approvalsOf = async (c: PageContext) => {
    const { team, actor, scope } = c.var.session;
    const every = allows(scope, "admin");
    const all = await deps.oauth.approvals(team);
    const mine = every
      ? all
      : all.filter((approval) => actor.kind === "member" && approval.memberId === actor.id);
    const names = every ? await deps.members.names(team) : new Map<string, string | null>();
    return {
      every,
      approvals: mine.map((approval) => ({ ...approval, memberName: names.get(approval.memberId) ?? null })),
    };
  };

  const appsPage = async (c: PageContext, extra: { notice?: string; error?: string; status?: 404 } = {}) => {
    const { every, approvals } = await approvalsOf(c);
    return render(
      c,
      <AppsPage
        csrf={c.var.csrf}
        approvals={approvals}
        everyApp={every}
        notice={extra.notice}
        error={extra.error}
      />,
      extra.status ?? 200,
    );
  };

  app.get("/page/apps", signedIn, (c) =>
    appsPage(c, c.req.query("disconnected") === "1" ? { notice: "The app was disconnected." } : {}),
  );

  app.post("/page/apps/:id/revoke", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    const { team, actor, scope } = c.var.session;
    const onlyOf = allows(scope, "admin") ? undefined : actor.kind === "member" ? actor.id : "";
    const revoked = await deps.oauth.revokeApproval(team, c.req.param("id"), actor, onlyOf);
    if (!revoked)
      return appsPage(c, { error: "That app is not connected (or not yours to disconnect).", status: 404 });
    return c.redirect("/page/apps?disconnected=1", 303);
  });
}

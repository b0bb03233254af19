/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The page for people: server-rendered HTML over the same services as the JSON routes. Signed in by a session
// cookie (./session-cookie.ts, the session it names held by ./sessions.ts, checked by ./session-middleware.tsx); every state-changing POST must come from this
// origin (Origin checked, missing is refused) and carry the session's CSRF token; every answer carries a
// Content-Security-Policy that allows only this origin's own script and stylesheet.

import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import { type Actor, events } from "../audit.js";
import { isDomainError } from "../errors.js";
import type { AppEnv } from "../http/env.js";
import type { AccountFailures } from "../http/rate-limit.js";
import { formatOfFile, stem } from "../ingest/formats.js";
import { decodeUtf8, describeNotText, notTextReason } from "../ingest/text.js";
import type { Logger } from "../logger.js";
import { DEFAULT_BUDGET, MAX_BUDGET } from "../memory/constants.js";
import { decodeCursor, encodeCursor } from "../routes/cursor.js";
import { exportStream } from "../routes/export.js";
import { documentBody, entryBody, entryInput, memoryInput, searchQuery } from "../routes/schemas.js";
import { csrfToken, csrfTokenMatches } from "../seal/page-session.js";
import type { AuditTrail } from "../services/audit.js";
import type { DocumentService } from "../services/documents.js";
import type { EntryService } from "../services/entries.js";
import type { ExportService } from "../services/export.js";
import { type MemberService, normalizeAddress } from "../services/members.js";
import type { MemoryService } from "../services/memory.js";
import type { OAuthService } from "../services/oauth.js";
import type { OidcService } from "../services/oidc.js";
import type { PasskeyService } from "../services/passkeys.js";
import type { SearchService } from "../services/search.js";
import type { StatsService } from "../services/stats.js";
import type { TeamService } from "../services/teams.js";
import { PageOidcProvider, PageScope, PageSignedInAs } from "./access.js";
import { AddNotePage } from "./add-note.js";
import { appsRoutes } from "./apps-routes.js";
import { FAVICON_SVG, PAGE_CSS, PAGE_JS } from "./assets.js";
import { AuditPage } from "./audit.js";
import { ConfirmDeletePage } from "./confirm-delete.js";
import { DocumentPage } from "./document.js";
import { MAX_PASSWORD_CHARS } from "./join.js";
import { ASSET_PATH } from "./layout.js";
import { MemoryPage } from "./memory.js";
import { MessagePage } from "./message.js";
import { AUTHORIZE_PATH, oauthPageRoutes, takeReturn } from "./oauth-routes.js";
import { oidcRoutes } from "./oidc-routes.js";
import { passkeyRoutes } from "./passkey-routes.js";
import { peopleRoutes } from "./people.js";
import type { RememberValues } from "./remember-form.js";
import { SearchPage } from "./search.js";
import { carriedCookies, clearCarriedCookies, resolveSession, signedInNow } from "./session-cookie.js";
import { signedInMiddleware, tooManyRequests } from "./session-middleware.js";
import type { PageSession, PageSessions } from "./sessions.js";
import { SignInPage } from "./sign-in.js";

/**
 * Only this origin's files: no inline script or style, nothing from elsewhere, never framed, forms post only
 * here. hono/jsx writes no inline style or handler, and the one script is a same-origin file.
 */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/**
 * Counts a page request under the session's team key (MEMORIA_RATE_LIMIT, shared with the key's API use):
 * the 429 to answer when the key is over its limit, else null. src/http/rate-limit.ts.
 */
export type PageRateLimit = (c: Context<PageEnv>, credential: string) => Promise<Response | null>;

export interface PageDeps {
  sessions: PageSessions;
  rateLimit: PageRateLimit;
  /** Failed password sign-ins per account (src/http/rate-limit.ts). */
  accounts: AccountFailures;
  /** Passkey ceremonies started per client address (src/http/rate-limit.ts). */
  ceremonyStarted: (c: PageContext) => Response | null;
  /** OAuth clients' metadata documents fetched per client address (src/http/rate-limit.ts). */
  documentFetched: (c: PageContext) => Response | null;
  search: SearchService;
  memory: MemoryService;
  documents: DocumentService;
  entries: EntryService;
  stats: StatsService;
  teams: TeamService;
  exports: ExportService;
  audit: AuditTrail;
  members: MemberService;
  passkeys: PasskeyService;
  /** The instance's OpenID Connect provider; null when none is configured. */
  oidc: OidcService | null;
  /** memoria's own authorization server, for MCP clients that sign in (oauth-routes.tsx). */
  oauth: OAuthService;
  logger: Logger;
}

/**
 * Hits the page asks search for. Grouped by document (./hit-groups.ts), 50 passages still show a dozen or more
 * documents when one long document matches in many places, where the API's default 20 showed two or three.
 */
export const PAGE_SEARCH_HITS = 50;
/** Recently changed documents on the start page, and recent entries on the working-memory page. */
export const RECENT_DOCUMENTS = 8;
export const RECENT_ENTRIES = 20;

export type PageEnv = {
  Variables: AppEnv["Variables"] & { session: PageSession; csrf: string; oidcProvider: string | null };
};
export type PageContext = Context<PageEnv>;

/** Who a signed-in page action acts as, for the audit trail: the member, or the key the session signed in with. */
const actorOf = (c: PageContext): Actor => c.var.session.actor;

/** A page as HTML, its views drawing only the actions the signed-in member or key may take (access.ts). */
export async function render(
  c: PageContext,
  node: JSX.Element,
  status: 200 | 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 503 = 200,
) {
  const scope = c.var.session?.scope ?? null;
  const as = c.var.session?.as ?? null;
  return c.html(
    `<!doctype html>${await (
      <PageScope.Provider value={scope}>
        <PageSignedInAs.Provider value={as}>
          <PageOidcProvider.Provider value={c.var.oidcProvider ?? null}>{node}</PageOidcProvider.Provider>
        </PageSignedInAs.Provider>
      </PageScope.Provider>
    )}`,
    status,
  );
}

export function isHttps(c: PageContext): boolean {
  return new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
}

/**
 * A cross-site POST is refused: browsers send Origin on every POST, so a missing one is refused too. Only
 * the host is compared, not the scheme: behind a TLS terminator the app sees http:// for an https:// page.
 * `Origin: null` (a browser under a no-referrer policy) passes only with the browser's own word,
 * `Sec-Fetch-Site: same-origin`, which no page can forge; any other Sec-Fetch-Site is refused outright.
 */
export function fromThisOrigin(c: PageContext): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") return false;
  const origin = c.req.header("origin");
  if (origin === "null") return site === "same-origin";
  if (origin === undefined || !URL.canParse(origin)) return false;
  return new URL(origin).host === new URL(c.req.url).host;
}

/**
 * A form's fields, or null when the body is not a form that parses (a hand-made multipart body a browser would
 * never send): the caller answers 400, never an error of the server's.
 */
export async function formOf(c: PageContext): Promise<Record<string, string | File> | null> {
  try {
    return (await c.req.parseBody()) as Record<string, string | File>;
  } catch {
    return null;
  }
}

/** A form that did not parse: 400, in the page's words. */
export function unreadableForm(c: PageContext) {
  return render(
    c,
    <MessagePage title="Refused" message="The form could not be read; reload the page and try again." />,
    400,
  );
}

/** A row asked for by id that this team does not hold (or no longer does): 404, in the page's words. */
function notThere(c: PageContext, title: string, message: string) {
  return render(c, <MessagePage title={title} message={message} csrf={c.var.csrf} />, 404);
}

function noSuchDocument(c: PageContext) {
  return notThere(c, "No such document", "This document is not there (or was deleted).");
}

export function refused(c: PageContext, message: string) {
  return render(c, <MessagePage title="Refused" message={message} />, 403);
}

/** The folders of a note as typed: "Handbook / Onboarding" → ["Handbook", "Onboarding"]. */
function pathOf(text: string): string[] {
  return text
    .split(/[/›]/)
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/** A zod error as one sentence for the page, naming the fields, never quoting what was typed. */
export function firstIssue(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return "The form was not accepted.";
  const field = issue.path.length > 0 ? `${String(issue.path[0])}: ` : "";
  return `${field}${issue.message}.`;
}

export function pageRoutes(deps: PageDeps): Hono<PageEnv> {
  const app = new Hono<PageEnv>();

  const pageHeaders: MiddlewareHandler<PageEnv> = async (c, next) => {
    c.set("oidcProvider", deps.oidc?.providerName ?? null);
    await next();
    // A page that must allow more (the consent page's form answers with a redirect to the client) sets its own.
    if (!c.res.headers.has("Content-Security-Policy")) c.header("Content-Security-Policy", PAGE_CSP);
    // A page shows a team's notes: no shared cache may keep it, and Back after Sign out must not show it.
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
  };

  const signedIn = signedInMiddleware(deps);

  /** Origin, then the session, then its CSRF token from the form; the form's fields are left in `form`. */
  const statefulPost = async (c: PageContext): Promise<Record<string, string | File> | Response> => {
    if (!fromThisOrigin(c)) return refused(c, "This form was sent from another site, so nothing was done.");
    const form = await formOf(c);
    if (!form) return unreadableForm(c);
    const given = form.csrf;
    if (typeof given !== "string" || !(await csrfTokenMatches(c.var.session.keys, given)))
      return refused(
        c,
        "This form has expired or did not come from this page; reload the page and try again.",
      );
    return form;
  };

  app.use("/", pageHeaders);
  app.use("/page/*", pageHeaders);
  app.use(AUTHORIZE_PATH, pageHeaders);

  app.get(`${ASSET_PATH}/page.css`, (c) => {
    c.header("Cache-Control", "no-cache");
    c.header("Content-Type", "text/css; charset=utf-8");
    return c.body(PAGE_CSS);
  });
  app.get(`${ASSET_PATH}/page.js`, (c) => {
    c.header("Cache-Control", "no-cache");
    c.header("Content-Type", "text/javascript; charset=utf-8");
    return c.body(PAGE_JS);
  });

  // Browsers ask for it on every site; a day's caching is enough for an icon that changes with a release.
  app.get("/favicon.ico", (c) => {
    c.header("Cache-Control", "public, max-age=86400");
    c.header("Content-Type", "image/svg+xml");
    return c.body(FAVICON_SVG);
  });

  app.get("/", async (c) => {
    const session = await resolveSession(deps, c);
    if (!session) {
      if (carriedCookies(c).length === 0) return render(c, <SignInPage />);
      // A cookie of a session that ended: cleared, then the sign-in page is asked for again without it.
      // Not answered here: the Worker routed this by the cookie's team id, and a 2xx would mark that team
      // active whether the cookie was real or not.
      clearCarriedCookies(c);
      return c.redirect("/", 303);
    }
    // Signed in on the way to approving an app: back to its consent page.
    const back = takeReturn(c);
    if (back !== null) return c.redirect(back, 303);
    const limited = await deps.rateLimit(c, session.credential);
    if (limited) return tooManyRequests(c, limited);
    c.set("session", session);
    const csrf = await csrfToken(session.keys);
    const q = c.req.query("q") ?? "";
    if (q.trim() === "") {
      const [team, counts, recent] = await Promise.all([
        deps.teams.get(session.team),
        deps.stats.stats(session.team),
        deps.documents.recentlyChanged(session.team, RECENT_DOCUMENTS),
      ]);
      const notice = c.req.query("deleted") === "1" ? "The document was deleted." : undefined;
      return render(
        c,
        <SearchPage
          csrf={csrf}
          query={q}
          result={null}
          notice={notice}
          team={{ name: team.name, counts, recent: recent.documents }}
        />,
      );
    }
    const parsed = searchQuery.safeParse({ q });
    if (!parsed.success)
      return render(
        c,
        <SearchPage csrf={csrf} query={q} result={null} error={firstIssue(parsed.error)} />,
        400,
      );
    const result = await deps.search.search(session.team, { q: parsed.data.q, limit: PAGE_SEARCH_HITS });
    return render(c, <SearchPage csrf={csrf} query={q} result={result} />);
  });

  app.post("/page/sign-in", async (c) => {
    if (!fromThisOrigin(c)) return refused(c, "This form was sent from another site, so nothing was done.");
    const form = await formOf(c);
    if (!form) return unreadableForm(c);
    const field = (name: string) => (typeof form[name] === "string" ? (form[name] as string) : "");
    if (form.key !== undefined) {
      const key = field("key").trim();
      const cookie = key === "" ? null : await deps.sessions.create(key);
      if (!cookie)
        return render(c, <SignInPage error="That team key was not accepted. Check it and try again." />, 401);
      return signedInNow(c, cookie);
    }
    const email = field("email");
    const password = field("password");
    const account = normalizeAddress(email);
    const wait = deps.accounts.locked(account);
    if (wait !== null) {
      c.header("Retry-After", String(wait));
      const error = "Too many failed sign-ins for this address this minute; wait a minute and try again.";
      return render(c, <SignInPage error={error} />, 429);
    }
    let member: Awaited<ReturnType<MemberService["signIn"]>> = null;
    try {
      if (account !== "" && password !== "" && password.length <= MAX_PASSWORD_CHARS)
        member = await deps.members.signIn(email, password);
    } catch (error) {
      if (!isDomainError(error, "unavailable")) throw error;
      c.header("Retry-After", "1");
      return render(c, <SignInPage error={(error as Error).message} />, 503);
    }
    if (!member) deps.accounts.failed(account);
    if (!member)
      return render(
        c,
        <SignInPage error="That email and password were not accepted. Check them and try again." />,
        401,
      );
    return signedInNow(c, await deps.sessions.createForMember(member));
  });

  app.post("/page/sign-out", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    await deps.sessions.end(c.var.session);
    clearCarriedCookies(c);
    return render(c, <SignInPage notice="You are signed out." />);
  });

  app.get("/page/documents/:id", signedIn, async (c) => {
    try {
      const document = await deps.documents.get(c.var.session.team, c.req.param("id"));
      const notice = c.req.query("added") === "1" ? "The note was added; search finds it now." : undefined;
      return render(c, <DocumentPage csrf={c.var.csrf} document={document} notice={notice} />);
    } catch (error) {
      if (!isDomainError(error, "not_found")) throw error;
      return noSuchDocument(c);
    }
  });

  app.get("/page/documents/:id/delete", signedIn, async (c) => {
    try {
      const document = await deps.documents.get(c.var.session.team, c.req.param("id"));
      return render(c, <ConfirmDeletePage csrf={c.var.csrf} document={document} />);
    } catch (error) {
      if (!isDomainError(error, "not_found")) throw error;
      return noSuchDocument(c);
    }
  });

  app.post("/page/documents/:id/delete", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    try {
      await deps.documents.delete(c.var.session.team, c.req.param("id"), actorOf(c));
      return c.redirect("/?deleted=1", 303);
    } catch (error) {
      if (!isDomainError(error, "not_found")) throw error;
      return noSuchDocument(c);
    }
  });

  app.get("/page/memory", signedIn, async (c) => {
    const form = {
      q: c.req.query("q") ?? "",
      project: c.req.query("project") ?? "",
      budget: c.req.query("budget") ?? "",
    };
    const recent = await deps.entries.list(c.var.session.team, {
      project: null,
      limit: RECENT_ENTRIES,
      after: null,
    });
    const notice =
      c.req.query("remembered") === "1"
        ? "The entry was remembered."
        : c.req.query("forgot") === "1"
          ? "The entry was forgotten."
          : undefined;
    const page = (
      result: Awaited<ReturnType<MemoryService["workingMemoryWithSkipped"]>> | null,
      error?: string,
    ) => (
      <MemoryPage
        csrf={c.var.csrf}
        form={form}
        defaultBudget={DEFAULT_BUDGET}
        maxBudget={MAX_BUDGET}
        result={result}
        recent={recent.entries}
        notice={notice}
        error={error}
      />
    );
    if (c.req.query("ask") === undefined) return render(c, page(null));
    const parsed = memoryInput.safeParse({
      ...(form.q.trim() === "" ? {} : { q: form.q }),
      ...(form.project.trim() === "" ? {} : { project: form.project.trim() }),
      ...(form.budget === "" ? {} : { budget: form.budget }),
    });
    if (!parsed.success) return render(c, page(null, firstIssue(parsed.error)), 400);
    const result = await deps.memory.workingMemoryWithSkipped(c.var.session.team, {
      query: parsed.data.q ?? null,
      project: parsed.data.project ?? null,
      budget: parsed.data.budget ?? DEFAULT_BUDGET,
    });
    return render(c, page(result));
  });

  app.post("/page/entries", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    const text = (name: string) => (typeof form[name] === "string" ? (form[name] as string) : "");
    const values: RememberValues = {
      title: text("title"),
      impact: text("impact"),
      project: text("project").trim(),
      type: text("type").trim(),
    };
    const parsed = entryBody.safeParse({
      title: values.title,
      impact: values.impact,
      ...(values.project === "" ? {} : { project: values.project }),
      ...(values.type === "" ? {} : { type: values.type }),
    });
    if (!parsed.success) {
      const recent = await deps.entries.list(c.var.session.team, {
        project: null,
        limit: RECENT_ENTRIES,
        after: null,
      });
      return render(
        c,
        <MemoryPage
          csrf={c.var.csrf}
          form={{ q: "", project: "", budget: "" }}
          defaultBudget={DEFAULT_BUDGET}
          maxBudget={MAX_BUDGET}
          result={null}
          recent={recent.entries}
          remember={{ values, error: firstIssue(parsed.error) }}
        />,
        400,
      );
    }
    await deps.entries.create(c.var.session.team, entryInput(parsed.data), { by: actorOf(c) });
    return c.redirect("/page/memory?remembered=1", 303);
  });

  app.post("/page/entries/:id/forget", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    try {
      await deps.entries.delete(c.var.session.team, c.req.param("id"), actorOf(c));
      return c.redirect("/page/memory?forgot=1", 303);
    } catch (error) {
      if (!isDomainError(error, "not_found")) throw error;
      return notThere(c, "No such entry", "This entry is not there (or was forgotten already).");
    }
  });

  // The signed-in team's export, as GET /v1/export answers it (a download: Content-Disposition attachment).
  app.get("/page/export", signedIn, async (c) => {
    const { stream, headers } = await exportStream(
      c.var.requestId,
      deps.exports,
      c.var.session.team,
      deps.logger,
    );
    if (c.req.method !== "HEAD") await deps.audit.record(c.var.session.team, actorOf(c), events.exported);
    return c.body(stream, 200, headers);
  });

  /** Events a page of the trail shows: a screenful or two of rows. */
  const AUDIT_PAGE_EVENTS = 50;
  app.get("/page/audit", signedIn, async (c) => {
    const cursor = c.req.query("cursor");
    let from: { at: string; id: string } | null = null;
    if (cursor) {
      try {
        const decoded = decodeCursor(cursor);
        from = { at: decoded.createdAt, id: decoded.id };
      } catch {
        const message = "This page of the audit trail is not one the page linked to.";
        return render(c, <MessagePage title="No such page" message={message} csrf={c.var.csrf} />, 400);
      }
    }
    const page = await deps.audit.list(c.var.session.team, AUDIT_PAGE_EVENTS, from);
    const older = page.next
      ? `/page/audit?cursor=${encodeURIComponent(encodeCursor({ createdAt: page.next.at, id: page.next.id }))}`
      : null;
    return render(
      c,
      <AuditPage csrf={c.var.csrf} events={page.events} unreadable={page.unreadable} older={older} />,
    );
  });

  app.get("/page/notes", signedIn, (c) => render(c, <AddNotePage csrf={c.var.csrf} />));

  app.post("/page/notes", signedIn, async (c) => {
    const form = await statefulPost(c);
    if (form instanceof Response) return form;
    const text = (name: string) => (typeof form[name] === "string" ? (form[name] as string) : "");
    const values = { title: text("title"), path: text("path"), content: text("content") };
    const again = (error: string, status: 400 | 413 | 415 | 422 | 503) =>
      render(c, <AddNotePage csrf={c.var.csrf} values={values} error={error} />, status);
    const file = form.file instanceof File && form.file.size > 0 ? form.file : null;
    let content = values.content;
    const title = values.title.trim();
    let format = "markdown" as ReturnType<typeof formatOfFile> & string;
    const fileFormat = file ? formatOfFile(file.name) : null;
    if (file && (fileFormat === "pdf" || fileFormat === "docx")) {
      // A PDF or DOCX: the service reads its text (off the request thread) and titles it.
      const path = documentBody.shape.path.safeParse(pathOf(values.path));
      if (!path.success) return again(firstIssue(path.error), 400);
      try {
        const { document } = await deps.documents.createFromFile(
          c.var.session.team,
          {
            format: fileFormat,
            bytes: new Uint8Array(await file.arrayBuffer()),
            title: title === "" ? null : title,
            fileName: stem(file.name).trim() || null,
            path: path.data ?? [],
            externalId: null,
          },
          actorOf(c),
        );
        return c.redirect(`/page/documents/${encodeURIComponent(document.id)}?added=1`, 303);
      } catch (error) {
        if (!isDomainError(error)) throw error;
        const status = {
          payload_too_large: 413,
          unsupported_media_type: 415,
          unprocessable: 422,
          unavailable: 503,
        }[error.code as string] as 413 | 415 | 422 | 503 | undefined;
        if (status) return again(error.message, status);
        if (error.code === "invalid_request") return again(error.message, 400);
        throw error;
      }
    }
    if (file) {
      const decoded = decodeUtf8(await file.arrayBuffer());
      if (decoded === null)
        return again("The file is not UTF-8 text; add notes as markdown, text or HTML.", 415);
      const reason = notTextReason(decoded);
      if (reason) return again(`The file is not text: ${describeNotText(reason)}.`, 415);
      content = decoded;
      format = formatOfFile(file.name) ?? "markdown";
    }
    if (content.trim() === "") return again("Paste the note's content or choose a file.", 400);
    // Without a title, the note's own (front matter, first heading), else the file's name.
    const parsed = documentBody.safeParse({
      ...(title === "" ? {} : { title }),
      content,
      format,
      path: pathOf(values.path),
    });
    if (!parsed.success) return again(firstIssue(parsed.error), 400);
    try {
      const { document } = await deps.documents.create(
        c.var.session.team,
        {
          title: parsed.data.title ?? null,
          ...(file && title === "" ? { fileName: file.name } : {}),
          content: parsed.data.content,
          format: parsed.data.format ?? "markdown",
          path: parsed.data.path ?? [],
          externalId: null,
        },
        actorOf(c),
      );
      return c.redirect(`/page/documents/${encodeURIComponent(document.id)}?added=1`, 303);
    } catch (error) {
      if (isDomainError(error, "payload_too_large")) return again((error as Error).message, 413);
      if (isDomainError(error, "invalid_request")) return again((error as Error).message, 400);
      throw error;
    }
  });

  peopleRoutes(app, deps, { signedIn, statefulPost });
  passkeyRoutes(app, deps, { signedIn, statefulPost });
  oidcRoutes(app, deps);
  oauthPageRoutes(app, deps, { signedIn, statefulPost });
  appsRoutes(app, deps, { signedIn, statefulPost });

  return app;
}

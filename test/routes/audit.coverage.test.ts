// Every team route that changes something records who did it: the routes are read from the scope table
// (src/http/scopes.ts), so a change route added later without an event fails here, and each is driven once
// with a request that succeeds. Reading routes are never events. POST /mcp is tested with its tools
// (test/routes/mcp.test.ts), the page's actions with the page (test/page/audit.test.ts).

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditAction } from "../../src/audit.js";
import { ROUTE_SCOPES } from "../../src/http/scopes.js";
import { form } from "../page/browser-client.js";
import { addDocument, makeTeam, type TestApp } from "../support/app.js";
import { auditOf } from "../support/audit.js";
import { packageReadmes } from "../support/export.js";
import { GIT_MV_HTML, printPdf, scratchDir } from "../support/files.js";
import { makeKey } from "../support/keys.js";
import { joinAs } from "../support/members.js";
import { NOTION_DOUBLE_TOKEN, NotionDouble } from "../support/notion-double.js";
import { register, signIn } from "../support/oauth.js";
import { needs, outside } from "../support/outside.js";
import { tickingClock, withApp } from "./contract.js";

let notion: NotionDouble;
beforeAll(async () => {
  notion = await NotionDouble.start();
});
afterAll(() => notion.close());

interface Team {
  app: TestApp;
  apiKey: string;
  readme: { name: string; content: string };
}

type Driver = {
  /** The event the request records. */
  action: AuditAction;
  /** Makes what the request needs (its events are not counted), and gives the request, which succeeds. */
  prepare: (t: Team) => Promise<() => Promise<Response>>;
};

const json = (t: Team, path: string, method: string, body?: unknown) => () =>
  t.app.request(path, { method, token: t.apiKey, ...(body === undefined ? {} : { json: body }) });

async function newDocument(t: Team): Promise<string> {
  return (await addDocument(t.app, t.apiKey, { title: t.readme.name, content: t.readme.content })).id;
}

/** One per change route, as Hono names it. */
const DRIVERS: Record<string, Driver> = {
  "POST /v1/documents": {
    action: "document.created",
    prepare: async (t) =>
      json(t, "/v1/documents", "POST", { title: t.readme.name, content: t.readme.content }),
  },
  "POST /v1/documents/batch": {
    action: "document.created",
    prepare: async (t) =>
      json(t, "/v1/documents/batch", "POST", {
        documents: [{ title: t.readme.name, content: t.readme.content }],
      }),
  },
  "PUT /v1/documents/:id": {
    action: "document.replaced",
    prepare: async (t) =>
      json(t, `/v1/documents/${await newDocument(t)}`, "PUT", { title: "Edited", content: t.readme.content }),
  },
  "DELETE /v1/documents/:id": {
    action: "document.deleted",
    prepare: async (t) => json(t, `/v1/documents/${await newDocument(t)}`, "DELETE"),
  },
  "POST /v1/entries": {
    action: "entry.remembered",
    prepare: async (t) => json(t, "/v1/entries", "POST", { title: "A learning" }),
  },
  "DELETE /v1/entries/:id": {
    action: "entry.forgotten",
    prepare: async (t) => {
      const res = await json(t, "/v1/entries", "POST", { title: "Gone soon" })();
      const { entry } = (await res.json()) as { entry: { id: string } };
      return json(t, `/v1/entries/${entry.id}`, "DELETE");
    },
  },
  "GET /v1/export": { action: "export", prepare: async (t) => json(t, "/v1/export", "GET") },
  "POST /v1/import": {
    action: "import",
    prepare: async (t) => {
      const ndjson = await (await json(t, "/v1/export", "GET")()).text();
      return () =>
        t.app.request("/v1/import", {
          method: "POST",
          token: t.apiKey,
          headers: { "content-type": "application/x-ndjson" },
          body: ndjson,
        });
    },
  },
  "PUT /v1/sources/notion": {
    action: "source.set",
    prepare: async (t) => json(t, "/v1/sources/notion", "PUT", { token: NOTION_DOUBLE_TOKEN }),
  },
  "DELETE /v1/sources/notion": {
    action: "source.removed",
    prepare: async (t) => {
      await json(t, "/v1/sources/notion", "PUT", { token: NOTION_DOUBLE_TOKEN })();
      return json(t, "/v1/sources/notion", "DELETE");
    },
  },
  "PUT /v1/sources/webhook": {
    action: "source.set",
    prepare: async (t) => json(t, "/v1/sources/webhook", "PUT"),
  },
  "DELETE /v1/sources/webhook": {
    action: "source.removed",
    prepare: async (t) => {
      await json(t, "/v1/sources/webhook", "PUT")();
      return json(t, "/v1/sources/webhook", "DELETE");
    },
  },
  "POST /v1/keys": {
    action: "key.made",
    prepare: async (t) => json(t, "/v1/keys", "POST", { name: "agent", scope: "read" }),
  },
  "DELETE /v1/keys/:keyId": {
    action: "key.revoked",
    prepare: async (t) => json(t, `/v1/keys/${(await makeKey(t.app, t.apiKey, "read")).keyId}`, "DELETE"),
  },
  "POST /v1/invites": {
    action: "member.invited",
    prepare: async (t) => json(t, "/v1/invites", "POST", { role: "reader" }),
  },
  "PATCH /v1/members/:memberId": {
    action: "member.role_changed",
    prepare: async (t) =>
      json(t, `/v1/members/${(await joinAs(t.app, t.apiKey, "reader")).memberId}`, "PATCH", {
        role: "member",
      }),
  },
  "DELETE /v1/members/:memberId": {
    action: "member.removed",
    prepare: async (t) =>
      json(t, `/v1/members/${(await joinAs(t.app, t.apiKey, "reader")).memberId}`, "DELETE"),
  },
  "DELETE /v1/oauth/clients/:id": {
    action: "oauth.revoked",
    prepare: async (t) => {
      const member = await joinAs(t.app, t.apiKey, "member");
      const { clientId } = await register(t.app);
      await signIn(t.app, member.browser, clientId);
      const list = (await (await t.app.request("/v1/oauth/clients", { token: t.apiKey })).json()) as {
        clients: { id: string }[];
      };
      return json(t, `/v1/oauth/clients/${list.clients[0]?.id}`, "DELETE");
    },
  },
};

/** POST /v1/documents's other bodies: a raw upload and a multipart one go through their own code. */
const OTHER_BODIES: Record<string, Driver> = {
  "POST /v1/documents text/markdown": {
    action: "document.created",
    prepare: async (t) => () =>
      t.app.request(`/v1/documents?title=${encodeURIComponent(t.readme.name)}`, {
        method: "POST",
        token: t.apiKey,
        headers: { "content-type": "text/markdown" },
        body: t.readme.content,
      }),
  },
  "POST /v1/documents multipart": {
    action: "document.created",
    prepare: async (t) => () => {
      const body = form({});
      body.set("file", new File([t.readme.content], `${t.readme.name}.md`, { type: "text/markdown" }));
      return t.app.request("/v1/documents", { method: "POST", token: t.apiKey, body });
    },
  },
};

/** Team routes that change something: every one but GET, and GET /v1/export (the team's rows leave). */
const changeRoutes = () =>
  Object.keys(ROUTE_SCOPES).filter(
    (route) => route !== "POST /mcp" && (!route.startsWith("GET ") || route === "GET /v1/export"),
  );

describe("the audit trail's coverage", () => {
  it("has a request for every change route the scope table names", () => {
    expect(Object.keys(DRIVERS).sort()).toEqual(changeRoutes().sort());
  });

  it("records an event for each change route's successful request, and for each kind of body", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const [readme] = packageReadmes(1);
        if (!readme) throw new Error("no README in node_modules");
        const team = { app, apiKey, readme };
        for (const [route, driver] of [...Object.entries(DRIVERS), ...Object.entries(OTHER_BODIES)]) {
          const request = await driver.prepare(team);
          const before = (await auditOf(app, apiKey, "?limit=200")).length;
          const res = await request();
          await res.text();
          expect({ route, ok: res.status < 300 }).toEqual({ route, ok: true });
          const events = await auditOf(app, apiKey, "?limit=200");
          const recorded = events.slice(0, events.length - before).map((event) => event.action);
          expect({ route, recorded }).toEqual({ route, recorded: [driver.action] });
        }
      },
      { config: { notionApiUrl: notion.url }, clock: tickingClock() },
    ));
});

needs(outside.chromium, outside.gitManuals).describe("the audit trail's coverage of files", () => {
  const scratch = scratchDir();
  afterAll(() => scratch.remove());

  it("records a PDF printed by Chromium, uploaded raw and as a form's file, as a document created", async () => {
    const pdf = await printPdf(GIT_MV_HTML, join(scratch.dir, "git-mv.pdf"));
    await withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const raw = await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          headers: { "content-type": "application/pdf" },
          body: pdf,
        });
        const rawId = ((await raw.json()) as { document: { id: string } }).document.id;
        const body = form({});
        body.set("file", new File([pdf], "git-mv.pdf", { type: "application/pdf" }));
        const uploaded = await app.request("/v1/documents", { method: "POST", token: apiKey, body });
        const uploadedId = ((await uploaded.json()) as { document: { id: string } }).document.id;
        expect((await auditOf(app, apiKey)).slice(0, 2).map((e) => `${e.action} ${e.target?.id}`)).toEqual([
          `document.created ${uploadedId}`,
          `document.created ${rawId}`,
        ]);
      },
      { clock: tickingClock() },
    );
  }, 120_000);
});

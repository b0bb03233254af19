// The Notion webhook has no bearer credential, so its secret URL and its signature are the defence: any path
// but the team's secret URL is 404 (the bare team path, a wrong token, an unknown team), an unsigned, wrongly
// signed or altered delivery is 401 with nothing processed (Notion not asked, no event time recorded, no
// document), one to a team not verified yet is 401, and a second handshake cannot re-key a team.
// The token routes need the team's own key. Every token is sealed at rest.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import { createLogger } from "../../src/logger.js";
import { webhookAnswer } from "../../src/routes/notion.js";
import { blindIndex } from "../../src/seal/team-key.js";
import { buildTestApp, makeTeam, search, type TestApp, tempDir } from "../support/app.js";
import { NOTION_DOUBLE_TOKEN, NotionDouble } from "../support/notion-double.js";
import {
  barePath,
  connectNotion,
  deliver,
  handshake,
  notionEvent,
  postTo,
  postWebhook,
  signNotion,
  VERIFICATION_TOKEN,
  webhookPath,
} from "../support/notion-webhook.js";
import { watchedBody } from "../support/streams.js";
import { expectError, expectOk, withApp } from "./contract.js";

let double: NotionDouble;
beforeAll(async () => {
  double = await NotionDouble.start();
});
afterAll(() => double.close());

const options = () => ({ config: { notionApiUrl: double.url } });

/** Asserts that a refused delivery left no trace: no work queued, Notion not asked, no event time, no document. */
async function expectNothingProcessed(
  app: TestApp,
  team: { teamId: string; apiKey: string },
  pageId: string,
) {
  expect(app.memoria.sources.pending).toBe(0);
  await app.memoria.sources.idle();
  expect(double.requestsTo(new RegExp(pageId))).toEqual([]);
  const key = await app.memoria.directory.teamKey(team.teamId);
  if (!key) throw new Error("no key");
  expect(
    await app.storage.pageEvents.newest(team.teamId, await blindIndex(key, `notion-page:${pageId}`)),
  ).toBeNull();
  expect((await search(app, team.apiKey, "numbat")).hits).toEqual([]);
}

function newPage(): string {
  return double.addPage({ title: "Secret page", blocks: [{ type: "paragraph", text: "numbat" }] });
}

describe("POST /v1/webhooks/notion/{teamId}: signatures", () => {
  it("processes a delivery whose signature is valid", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const pageId = newPage();
      await expectOk(
        await deliver(app, team.teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00Z")),
        200,
        webhookAnswer,
      );
      expect((await search(app, team.apiKey, "numbat")).hits).toHaveLength(1);
    }, options()));

  it("refuses a bad signature with 401 and processes nothing", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const pageId = newPage();
      const body = JSON.stringify(notionEvent("page.created", pageId, "2025-03-01T10:00:00Z"));
      for (const signature of [
        signNotion(body, "secret_somebody_else"),
        "sha256=00",
        `sha256=${"0".repeat(64)}`,
        signNotion(body).replace("sha256=", "sha1="),
        signNotion(body).slice("sha256=".length),
        "",
      ]) {
        await expectError(
          await postWebhook(app, team.teamId, body, { "x-notion-signature": signature }),
          401,
          "unauthorized",
        );
      }
      await expectNothingProcessed(app, team, pageId);
    }, options()));

  it("refuses a delivery with no signature with 401 and processes nothing", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const pageId = newPage();
      const body = JSON.stringify(notionEvent("page.created", pageId, "2025-03-01T10:00:00Z"));
      await expectError(await postWebhook(app, team.teamId, body), 401, "unauthorized");
      await expectNothingProcessed(app, team, pageId);
    }, options()));

  it("refuses a body changed after signing with 401 and processes nothing", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const signedFor = newPage();
      const pageId = newPage();
      const original = JSON.stringify(notionEvent("page.created", signedFor, "2025-03-01T10:00:00Z"));
      const signature = signNotion(original);
      const changed = original.replace(signedFor, pageId);
      await expectError(
        await postWebhook(app, team.teamId, changed, { "x-notion-signature": signature }),
        401,
        "unauthorized",
      );
      // Even a change that parses to the same JSON (a space added) is a different body.
      await expectError(
        await postWebhook(app, team.teamId, `${original} `, { "x-notion-signature": signature }),
        401,
        "unauthorized",
      );
      await expectNothingProcessed(app, team, pageId);
      await expectNothingProcessed(app, team, signedFor);
    }, options()));

  it("refuses a delivery signed with another team's verification token", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      await connectNotion(app, a, NOTION_DOUBLE_TOKEN);
      await app.request("/v1/sources/notion", {
        method: "PUT",
        token: b.apiKey,
        json: { token: NOTION_DOUBLE_TOKEN },
      });
      await expectOk(await handshake(app, b.teamId, "secret_team_b_verification"), 200, webhookAnswer);
      const pageId = newPage();
      const body = JSON.stringify(notionEvent("page.created", pageId, "2025-03-01T10:00:00Z"));
      await expectError(
        await postWebhook(app, b.teamId, body, {
          "x-notion-signature": signNotion(body, VERIFICATION_TOKEN),
        }),
        401,
        "unauthorized",
      );
      await expectNothingProcessed(app, b, pageId);
    }, options()));

  it("refuses every delivery to a team that has no verification token yet", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await app.request("/v1/sources/notion", {
        method: "PUT",
        token: team.apiKey,
        json: { token: NOTION_DOUBLE_TOKEN },
      });
      const pageId = newPage();
      const body = JSON.stringify(notionEvent("page.created", pageId, "2025-03-01T10:00:00Z"));
      await expectError(
        await postWebhook(app, team.teamId, body, { "x-notion-signature": signNotion(body) }),
        401,
        "unauthorized",
      );
      await expectNothingProcessed(app, team, pageId);
    }, options()));

  it("refuses an unknown team with 404, for a handshake and for an event alike", () =>
    withApp(async (app) => {
      const body = JSON.stringify(notionEvent("page.created", newPage(), "2025-03-01T10:00:00Z"));
      const token = "dGhpcyBpcyBub3QgYSB0b2tlbiBhbnlvbmUgbWFkZQ";
      for (const teamId of ["t_doesnotexist000000000000", "not a team", "..%2F..%2Fv1%2Fteams"]) {
        for (const path of [barePath(teamId), `${barePath(teamId)}/${token}`]) {
          const handshakeBody = JSON.stringify({ verification_token: VERIFICATION_TOKEN });
          await expectError(await postTo(app, path, handshakeBody), 404, "not_found");
          await expectError(
            await postTo(app, path, body, { "x-notion-signature": signNotion(body) }),
            404,
            "not_found",
          );
        }
      }
      const rows = await app.storage.client.execute("SELECT COUNT(*) AS n FROM sources");
      expect(Number(rows.rows[0]?.n)).toBe(0);
    }, options()));

  it("answers a signed body that is not JSON with 400 and processes nothing", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const body = "page.created please";
      await expectError(
        await postWebhook(app, team.teamId, body, { "x-notion-signature": signNotion(body) }),
        400,
        "invalid_request",
      );
      expect(app.memoria.sources.pending).toBe(0);
    }, options()));
});

describe("POST /v1/webhooks/notion/{teamId}: who may claim the webhook", () => {
  it("has no webhook URL for a team with no Notion token stored: 404, and nothing stored", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      expect(await webhookPath(app, team.teamId)).toBe(barePath(team.teamId));
      const refused = await expectError(await handshake(app, team.teamId), 404, "not_found");
      // The same answer as a path the app does not serve: nothing says the team exists.
      const unrouted = await expectError(await postTo(app, "/v1/webhooks/nowhere", "{}"), 404, "not_found");
      expect(refused.error.message).toBe(unrouted.error.message);
      expect(await app.storage.sources.get(team.teamId, "notion.verification")).toBeNull();

      // Once the team has set Notion up, the handshake is taken.
      await app.request("/v1/sources/notion", {
        method: "PUT",
        token: team.apiKey,
        json: { token: NOTION_DOUBLE_TOKEN },
      });
      await expectOk(await handshake(app, team.teamId), 200, webhookAnswer);
    }, options()));

  it("refuses the handshake at the old URL once the token is deleted, so nobody can claim it in the gap", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const oldPath = await webhookPath(app, team.teamId);
      await app.request("/v1/sources/notion", { method: "DELETE", token: team.apiKey });
      const stranger = JSON.stringify({ verification_token: "secret_a_stranger" });
      await expectError(await postTo(app, oldPath, stranger), 404, "not_found");
      expect(await app.storage.sources.get(team.teamId, "notion.verification")).toBeNull();
      // A new PUT makes a new URL: the old one stays refused.
      await app.request("/v1/sources/notion", {
        method: "PUT",
        token: team.apiKey,
        json: { token: NOTION_DOUBLE_TOKEN },
      });
      expect(await webhookPath(app, team.teamId)).not.toBe(oldPath);
      await expectError(await postTo(app, oldPath, stranger), 404, "not_found");
      expect(await app.storage.sources.get(team.teamId, "notion.verification")).toBeNull();
    }, options()));
});

describe("GET /v1/sources/notion: the verification token is the team's alone", () => {
  it("needs the team's key, and another team's key never sees this team's token", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      await connectNotion(app, a, NOTION_DOUBLE_TOKEN);
      for (const token of [undefined, "mem_nope_nope", `${a.apiKey}x`]) {
        await expectError(
          await app.request("/v1/sources/notion", token ? { token } : {}),
          401,
          "unauthorized",
        );
      }
      const other = await app.request("/v1/sources/notion", { token: b.apiKey });
      const text = await other.clone().text();
      await expectError(other, 404, "not_found");
      expect(text).not.toContain(VERIFICATION_TOKEN);
    }, options()));

  it("never writes the verification token or the webhook URL's token to the log", async () => {
    const lines: string[] = [];
    const logger = createLogger("debug", (line) => lines.push(line));
    const app = await buildTestApp({ ...options(), logger });
    try {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const res = await app.request("/v1/sources/notion", { token: team.apiKey });
      expect(await res.text()).toContain(VERIFICATION_TOKEN);
      // The requests, the background event work and a refused second handshake are all logged; none of it
      // carries a token.
      await handshake(app, team.teamId, "secret_an_attacker_wants_this");
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.filter((line) => line.includes(VERIFICATION_TOKEN))).toEqual([]);
      expect(lines.filter((line) => line.includes(NOTION_DOUBLE_TOKEN))).toEqual([]);
      const urlToken = (await webhookPath(app, team.teamId)).split("/").at(-1) ?? "";
      expect(urlToken).not.toBe("");
      expect(lines.filter((line) => line.includes(urlToken))).toEqual([]);
    } finally {
      await app.memoria.sources.idle();
      app.close();
    }
  });
});

describe("POST /v1/webhooks/notion/{teamId}: page.deleted is confirmed with Notion", () => {
  it("a page.deleted for a page Notion still has live does not delete it: the page is read and kept", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const pageId = newPage();
      await deliver(app, team.teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00Z"));
      const asked = double.requestsTo(`/v1/pages/${pageId}`).length;
      // Signed and newer, but Notion has the page live (a stale delete overtaken by an undelete, or forged).
      double.setBlocks(pageId, [{ type: "paragraph", text: "numbat and quokka" }]);
      await expectOk(
        await deliver(app, team.teamId, notionEvent("page.deleted", pageId, "2025-03-01T10:01:00Z")),
        200,
        webhookAnswer,
      );
      expect(double.requestsTo(`/v1/pages/${pageId}`)).toHaveLength(asked + 1);
      expect((await search(app, team.apiKey, "numbat")).hits).toHaveLength(1);
      // Re-synced as an upsert: the page as Notion has it now.
      expect((await search(app, team.apiKey, "quokka")).hits).toHaveLength(1);
    }, options()));
});

describe("POST /v1/webhooks/notion/{teamId}: a second handshake", () => {
  it("answers 409 to a different verification token and keeps the first one working", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const before = await app.storage.sources.get(team.teamId, "notion.verification");
      const res = await handshake(app, team.teamId, "secret_an_attacker_wants_this");
      const body = await expectError(res, 409, "conflict");
      expect(body.error.message).not.toContain("secret_an_attacker_wants_this");
      const after = await app.storage.sources.get(team.teamId, "notion.verification");
      expect(after?.sealed).toEqual(before?.sealed);
      // The attacker's token signs nothing; the first still does.
      const pageId = newPage();
      const event = JSON.stringify(notionEvent("page.created", pageId, "2025-03-01T10:00:00Z"));
      await expectError(
        await postWebhook(app, team.teamId, event, {
          "x-notion-signature": signNotion(event, "secret_an_attacker_wants_this"),
        }),
        401,
        "unauthorized",
      );
      await expectOk(await deliver(app, team.teamId, JSON.parse(event)), 200, webhookAnswer);
      expect((await search(app, team.apiKey, "numbat")).hits).toHaveLength(1);
    }, options()));

  it("does not treat an event that happens to carry a verification_token as a handshake", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      const pageId = newPage();
      const body = JSON.stringify({
        ...notionEvent("page.created", pageId, "2025-03-01T10:00:00Z"),
        verification_token: "secret_smuggled",
      });
      await app.request("/v1/sources/notion", {
        method: "PUT",
        token: team.apiKey,
        json: { token: NOTION_DOUBLE_TOKEN },
      });
      await expectError(await postWebhook(app, team.teamId, body), 401, "unauthorized");
      expect(await app.storage.sources.get(team.teamId, "notion.verification")).toBeNull();
    }, options()));
});

describe("PUT and DELETE /v1/sources/notion: access and validation", () => {
  it("needs the team's key: none or a wrong one is 401 and nothing is stored", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      for (const token of [undefined, "mem_nope_nope", `${team.apiKey}x`]) {
        await expectError(
          await app.request("/v1/sources/notion", {
            method: "PUT",
            json: { token: NOTION_DOUBLE_TOKEN },
            ...(token ? { token } : {}),
          }),
          401,
          "unauthorized",
        );
        await expectError(
          await app.request("/v1/sources/notion", { method: "DELETE", ...(token ? { token } : {}) }),
          401,
          "unauthorized",
        );
      }
      expect(await app.storage.sources.get(team.teamId, "notion.token")).toBeNull();
    }));

  it("one team's key changes only its own source", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      await connectNotion(app, a, NOTION_DOUBLE_TOKEN);
      await app.request("/v1/sources/notion", { method: "DELETE", token: b.apiKey });
      expect(await app.storage.sources.get(a.teamId, "notion.token")).not.toBeNull();
      expect(await app.storage.sources.get(a.teamId, "notion.verification")).not.toBeNull();
    }));

  it("refuses a missing, empty or spaced token with 400, and a non-JSON body with 415", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      for (const json of [{}, { token: "" }, { token: "two words" }, { token: 42 }, []]) {
        await expectError(
          await app.request("/v1/sources/notion", { method: "PUT", token: apiKey, json }),
          400,
          "invalid_request",
        );
      }
      const res = await app.request("/v1/sources/notion", {
        method: "PUT",
        token: apiKey,
        headers: { "content-type": "text/plain" },
        body: NOTION_DOUBLE_TOKEN,
      });
      await expectError(res, 415, "unsupported_media_type");
    }));

  it("never echoes a refused token in the error", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const res = await app.request("/v1/sources/notion", {
        method: "PUT",
        token: apiKey,
        json: { token: "ntn_leaky secret" },
      });
      const body = await expectError(res, 400, "invalid_request");
      expect(body.error.message).not.toContain("leaky");
    }));
});

// ---- At rest -------------------------------------------------------------------------------------------

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function readable(dir: string, words: string[]): string[] {
  const found: string[] = [];
  for (const file of filesUnder(dir)) {
    const bytes = readFileSync(file);
    for (const word of words) {
      for (const encoded of [Buffer.from(word, "utf8"), Buffer.from(word, "utf16le")]) {
        if (bytes.includes(encoded)) found.push(`${word} in ${file}`);
      }
    }
  }
  return found;
}

describe("Notion credentials at rest", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("leaves no token, URL token, verification token, page id, title, path or text readable in any file", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const notionToken = "ntn_quetzalcoatlusIntegrationToken";
    const verification = "secret_zymurgyfestVerificationToken";
    double.token = notionToken;
    try {
      const app = await buildTestApp({ dbUrl: tmp.dbUrl, ...options() });
      const team = await makeTeam(app);
      const put = await app.request("/v1/sources/notion", {
        method: "PUT",
        token: team.apiKey,
        json: { token: notionToken },
      });
      expect(put.status).toBe(200);
      await expectOk(await handshake(app, team.teamId, verification), 200, webhookAnswer);
      const urlToken = (await webhookPath(app, team.teamId)).split("/").at(-1) ?? "";
      expect(urlToken.length).toBeGreaterThanOrEqual(43);
      const parent = double.addPage({ title: "Brontide handbook" });
      const pageId = double.addPage({
        title: "Pellucidar onboarding",
        parent: { page: parent },
        blocks: [{ type: "paragraph", text: "The ombrophobe desk hands out laptops." }],
      });
      const res = await deliver(
        app,
        team.teamId,
        notionEvent("page.created", pageId, "2025-03-01T10:00:00Z"),
        verification,
      );
      expect(res.status).toBe(200);
      expect((await search(app, team.apiKey, "ombrophobe")).hits[0]?.path).toEqual(["Brontide handbook"]);
      // The token was used, and replaced once (the old sealed row's pages must not keep it either).
      await app.request("/v1/sources/notion", {
        method: "PUT",
        token: team.apiKey,
        json: { token: notionToken },
      });
      app.close();

      const words = [
        notionToken,
        "quetzalcoatlus",
        verification,
        urlToken,
        "zymurgyfest",
        pageId,
        pageId.replaceAll("-", ""),
        "brontide",
        "pellucidar",
        "ombrophobe",
      ];
      expect(filesUnder(tmp.dir).length).toBeGreaterThan(0);
      expect(readable(tmp.dir, words)).toEqual([]);
      // The scan works: a table name written in the clear is found.
      expect(readable(tmp.dir, ["source_pages"]).length).toBeGreaterThan(0);
    } finally {
      double.token = NOTION_DOUBLE_TOKEN;
    }
  });
});

function postStream(app: TestApp, path: string, body: ReadableStream, headers: Record<string, string> = {}) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit);
}

describe("POST /v1/webhooks/notion/{teamId}/{token}: before the body", () => {
  it("answers a wrong URL token, an unknown team, a team without Notion and the bare path with 404, reading nothing", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const without = await makeTeam(app, "No Notion");
      const path = await webhookPath(app, team.teamId);
      const event = JSON.stringify(notionEvent("page.created", newPage(), "2025-03-01T10:00:00Z"));
      const signature = { "x-notion-signature": signNotion(event) };
      const targets: [string, string][] = [
        ["a wrong URL token", `${barePath(team.teamId)}/not-the-token`],
        ["an unknown team", `${barePath(newId("t"))}/${path.split("/").at(-1)}`],
        ["a team without Notion", `${barePath(without.teamId)}/some-token`],
        ["the bare path", barePath(team.teamId)],
      ];
      for (const [name, target] of targets) {
        for (const headers of [{}, signature]) {
          const body = watchedBody();
          // The body never ends: the answer arrives only because nothing waits for it.
          await expectError(await postStream(app, target, body.stream, headers), 404, "not_found");
          expect(body.pulls(), name).toBe(0);
          await body.stream.cancel();
        }
      }
      expect(app.memoria.sources.pending).toBe(0);
    }, options()));

  it("reads the body at the team's URL: an unsigned delivery may be the handshake", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      const put = await app.request("/v1/sources/notion", {
        method: "PUT",
        token: team.apiKey,
        json: { token: NOTION_DOUBLE_TOKEN },
      });
      expect(put.status).toBe(200);
      const body = watchedBody([
        new TextEncoder().encode(JSON.stringify({ verification_token: VERIFICATION_TOKEN })),
      ]);
      await expectOk(
        await postStream(app, await webhookPath(app, team.teamId), body.stream),
        200,
        webhookAnswer,
      );
      expect(body.pulls()).toBeGreaterThan(0);
      const source = await app.request("/v1/sources/notion", { token: team.apiKey });
      expect(((await source.json()) as { source: { verified: boolean } }).source.verified).toBe(true);
    }, options()));
});

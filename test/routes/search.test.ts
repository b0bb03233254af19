import { describe, expect, it } from "vitest";
import { searchAnswer } from "../../src/routes/schemas.js";
import { addDocument, makeTeam, type TestApp } from "../support/app.js";
import { expectError, expectOk, withApp } from "./contract.js";

type SearchAnswer = ReturnType<typeof searchAnswer.parse>;

async function seeded(app: TestApp) {
  const { apiKey } = await makeTeam(app);
  const docs = [
    await addDocument(app, apiKey, {
      title: "Revenue report",
      content:
        "# Revenue\n\nJune revenue grew. Revenue per seat is the revenue metric we watch.\n\n" +
        "## Costs\n\nCosts fell in June.",
      path: ["Finance", "Reports"],
    }),
    await addDocument(app, apiKey, {
      title: "Office",
      content: "The office phone number is 555-0100. Revenue is discussed on Fridays.",
    }),
    await addDocument(app, apiKey, {
      title: "Escaping",
      content: `A <script>alert("x")</script> & 'quotes' next to revenue.`,
      format: "text",
    }),
    await addDocument(app, apiKey, {
      title: "日本語の文書",
      content: "東京 大阪 の 売上 revenue",
      format: "text",
    }),
    await addDocument(app, apiKey, { title: "Unrelated", content: "Nothing to see here about gardening." }),
  ];
  return { apiKey, docs };
}

async function search(
  app: TestApp,
  apiKey: string,
  query: string | Record<string, string>,
): Promise<Response> {
  const params = typeof query === "string" ? `q=${encodeURIComponent(query)}` : new URLSearchParams(query);
  return app.request(`/v1/search?${params}`, { token: apiKey });
}

function expectOrdered(body: SearchAnswer): void {
  for (let i = 1; i < body.hits.length; i++) {
    const prev = body.hits[i - 1];
    const hit = body.hits[i];
    if (!prev || !hit) continue;
    expect(prev.score).toBeGreaterThanOrEqual(hit.score);
    if (prev.score === hit.score) {
      const order = prev.documentId.localeCompare(hit.documentId) || prev.ordinal - hit.ordinal;
      expect(order).toBeLessThan(0);
    }
  }
}

describe("GET /v1/search (happy)", () => {
  it("answers hits in the route's schema, best first, with <mark> snippets and corpus counts", () =>
    withApp(async (app) => {
      const { apiKey, docs } = await seeded(app);
      const body = await expectOk(await search(app, apiKey, "revenue"), 200, searchAnswer);
      expect(body.query).toBe("revenue");
      expect(body.tookMs).toBeGreaterThanOrEqual(0);
      expect(body.corpus).toEqual({
        documents: docs.length,
        chunks: docs.reduce((sum, d) => sum + d.chunks, 0),
        unreadable: 0,
      });
      expect(body.hits.length).toBeGreaterThanOrEqual(4);
      const found = new Set(body.hits.map((h) => h.documentId));
      for (const doc of docs.slice(0, 4)) expect(found.has(doc.id)).toBe(true);
      expect(found.has(docs[4]?.id ?? "")).toBe(false);
      for (const hit of body.hits) {
        // The snippet is cut from the passage body; a passage found by its heading or title alone has no match
        // in its body to mark.
        const inBody = hit.snippet.toLowerCase().includes("revenue");
        if (inBody) expect(hit.snippet.toLowerCase()).toContain("<mark>revenue</mark>");
        else expect(`${hit.title} ${hit.heading}`.toLowerCase()).toContain("revenue");
        expect(hit.snippet.replaceAll(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
        expect(Number.isFinite(hit.score)).toBe(true);
        expect(hit.ordinal).toBeGreaterThanOrEqual(0);
      }
      expect(body.hits[0]?.snippet).toMatch(/<mark>[^<]*<\/mark>/);
      expectOrdered(body);
      const report = body.hits.find((h) => h.documentId === docs[0]?.id);
      expect(report?.title).toBe("Revenue report");
      expect(report?.path).toEqual(["Finance", "Reports"]);
      expect(report?.heading).toContain("Revenue");
    }));

  it("escapes every character of the passage except its own <mark> tags", () =>
    withApp(async (app) => {
      const { apiKey, docs } = await seeded(app);
      const body = await expectOk(await search(app, apiKey, "script alert"), 200, searchAnswer);
      const hit = body.hits.find((h) => h.documentId === docs[2]?.id);
      expect(hit).toBeDefined();
      const withoutMarks = (hit?.snippet ?? "").replaceAll("<mark>", "").replaceAll("</mark>", "");
      expect(withoutMarks).not.toMatch(/[<>"']/);
      expect(withoutMarks).toContain("&lt;");
      expect(withoutMarks).toContain("&gt;");
    }));

  it("ranks the passage that says it most above a passing mention", () =>
    withApp(async (app) => {
      const { apiKey, docs } = await seeded(app);
      const body = await expectOk(await search(app, apiKey, "revenue"), 200, searchAnswer);
      expect(body.hits[0]?.documentId).toBe(docs[0]?.id);
    }));

  it("honours limit and defaults to 20", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      for (let i = 0; i < 25; i++)
        await addDocument(app, apiKey, { title: `Note ${i}`, content: `lemur ${i}` });
      const all = await expectOk(await search(app, apiKey, "lemur"), 200, searchAnswer);
      expect(all.hits.length).toBe(20);
      expectOrdered(all);
      const one = await expectOk(await search(app, apiKey, { q: "lemur", limit: "1" }), 200, searchAnswer);
      expect(one.hits.length).toBe(1);
      expect(one.hits[0]).toEqual(all.hits[0]);
      const max = await expectOk(await search(app, apiKey, { q: "lemur", limit: "100" }), 200, searchAnswer);
      expect(max.hits.length).toBe(25);
      expect(max.hits.slice(0, 20)).toEqual(all.hits);
    }));

  it("answers the same request the same way twice", () =>
    withApp(async (app) => {
      const { apiKey } = await seeded(app);
      const strip = (b: SearchAnswer) => ({ ...b, tookMs: 0 });
      const first = await expectOk(await search(app, apiKey, "revenue june"), 200, searchAnswer);
      const second = await expectOk(await search(app, apiKey, "revenue june"), 200, searchAnswer);
      expect(strip(second)).toEqual(strip(first));
    }));

  it("answers a team with no documents with no hits and empty counts", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const body = await expectOk(await search(app, apiKey, "anything"), 200, searchAnswer);
      expect(body.hits).toEqual([]);
      expect(body.corpus).toEqual({ documents: 0, chunks: 0, unreadable: 0 });
    }));

  it("finds words in other scripts", () =>
    withApp(async (app) => {
      const { apiKey, docs } = await seeded(app);
      const body = await expectOk(await search(app, apiKey, "東京"), 200, searchAnswer);
      expect(body.hits.map((h) => h.documentId)).toEqual([docs[3]?.id]);
      expect(body.hits[0]?.snippet).toContain("<mark>東京</mark>");
    }));
});

describe("GET /v1/search (q)", () => {
  it.each([
    ["missing", ""],
    ["empty", "q="],
    ["blank", `q=${encodeURIComponent("   ")}`],
    ["tabs and newlines", `q=${encodeURIComponent("\t\n ")}`],
  ])("refuses q %s with 400 invalid_request", (_label, query) =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectError(await app.request(`/v1/search?${query}`, { token: apiKey }), 400, "invalid_request");
    }),
  );

  it("measures q in UTF-8 bytes after URL decoding: 1024 pass, 1025 are query_too_long", () =>
    withApp(async (app) => {
      const { apiKey } = await seeded(app);
      for (const q of ["é".repeat(512), "a".repeat(1024), "revenue ".repeat(128), "🦊".repeat(256)]) {
        expect(new TextEncoder().encode(q).length).toBe(1024);
        const body = await expectOk(await search(app, apiKey, q), 200, searchAnswer);
        expect(body.query).toBe(q);
      }
      for (const q of [`${"é".repeat(512)}a`, "a".repeat(1025), `a${"🦊".repeat(256)}`, "é".repeat(513)]) {
        const body = await expectError(await search(app, apiKey, q), 400, "query_too_long");
        expect(body.error.message).not.toContain("éé");
      }
      // 600 characters, but 1200 bytes.
      await expectError(await search(app, apiKey, "é".repeat(600)), 400, "query_too_long");
      // Much longer still, blank or not: never a 500.
      await expectError(await search(app, apiKey, "word ".repeat(10_000)), 400, "query_too_long");
      await expectError(await search(app, apiKey, " ".repeat(2000)), 400, "query_too_long");
    }));

  it("answers a query with no letters or digits with 200 and no hits", () =>
    withApp(async (app) => {
      const { apiKey } = await seeded(app);
      for (const q of ["?!", "...", "*", "()", '"', "'", ":", "—", "!!! ???", "-", "^", "+"]) {
        const body = await expectOk(await search(app, apiKey, q), 200, searchAnswer);
        expect(body.query).toBe(q);
        expect(body.hits).toEqual([]);
      }
    }));

  it.each([
    "what's June's revenue",
    "'revenue'",
    '"revenue report"',
    '"unterminated',
    "title:revenue",
    "revenue: june",
    "revenue NEAR june",
    "NEAR(revenue june, 2)",
    "revenue AND june",
    "revenue OR",
    "AND",
    "NOT revenue",
    "revenue*",
    "*revenue",
    "(revenue",
    "revenue)",
    "(revenue OR june) AND (costs)",
    "revenue 🦊",
    "🦊🦊",
    "日本語の売上はいくら?",
    "東京",
    "revenue^2",
    "-revenue +june",
    "{revenue}",
    "revenue\\",
    "revenue % _ ; --",
    "SELECT * FROM chunks; DROP TABLE chunks",
    "<mark>revenue</mark>",
    "\u0002revenue\u0003",
    "café naïve",
  ])("treats %j as a query: 200", (q) =>
    withApp(async (app) => {
      const { apiKey } = await seeded(app);
      const body = await expectOk(await search(app, apiKey, q), 200, searchAnswer);
      expect(body.query).toBe(q);
      expectOrdered(body);
      for (const hit of body.hits) {
        const bare = hit.snippet.replaceAll(/<\/?mark>/g, "");
        expect(bare).not.toMatch(/[<>]/);
        expect(bare.includes(String.fromCharCode(2)) || bare.includes(String.fromCharCode(3))).toBe(false);
      }
      if (/revenue/i.test(q)) {
        expect(body.hits.length).toBeGreaterThan(0);
        expect(body.hits.some((h) => h.snippet.toLowerCase().includes("<mark>revenue</mark>"))).toBe(true);
      }
      // The index survives whatever was typed.
      const after = await expectOk(await search(app, apiKey, "revenue"), 200, searchAnswer);
      expect(after.hits.length).toBeGreaterThanOrEqual(4);
    }),
  );

  it("finds the words a person typed among the punctuation", () =>
    withApp(async (app) => {
      const { apiKey, docs } = await seeded(app);
      for (const q of ["what's the office's phone number?", '"phone" AND (number)', "phone:number*"]) {
        const body = await expectOk(await search(app, apiKey, q), 200, searchAnswer);
        expect(body.hits[0]?.documentId).toBe(docs[1]?.id);
      }
    }));
});

describe("GET /v1/search (limit)", () => {
  it.each(["0", "101", "1.5", "x", "-1", "", "1e1", "0x10", " 5", "99999999999999999999"])(
    "refuses limit=%j with 400 invalid_request",
    (limit) =>
      withApp(async (app) => {
        const { apiKey } = await makeTeam(app);
        await expectError(await search(app, apiKey, { q: "revenue", limit }), 400, "invalid_request");
      }),
  );
});

describe("GET /v1/search (auth)", () => {
  it("answers 401 without a key or with a bad one", () =>
    withApp(async (app) => {
      await makeTeam(app);
      await expectError(await app.request("/v1/search?q=revenue"), 401, "unauthorized");
      await expectError(
        await app.request("/v1/search?q=revenue", { token: "mem_taaaaaaaaaaaaaaaa_nope" }),
        401,
        "unauthorized",
      );
    }));
});

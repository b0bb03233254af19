import { describe, expect, it } from "vitest";
import { documentAnswer, documentListAnswer, documentWithContentAnswer } from "../../src/routes/documents.js";
import { addDocument, makeTeam, type TestApp } from "../support/app.js";
import { expectError, expectNoContent, expectOk, withApp } from "./contract.js";

async function documentCount(app: TestApp, apiKey: string): Promise<number> {
  const list = await expectOk(
    await app.request("/v1/documents?limit=200", { token: apiKey }),
    200,
    documentListAnswer,
  );
  return list.documents.length;
}

function postJson(app: TestApp, apiKey: string, json: unknown): Promise<Response> {
  return app.request("/v1/documents", { method: "POST", token: apiKey, json });
}

describe("POST /v1/documents validation (JSON)", () => {
  it.each([
    ["no title", { content: "x" }],
    ["an empty title", { title: "", content: "x" }],
    ["a null title", { title: null, content: "x" }],
    ["a numeric title", { title: 7, content: "x" }],
    ["a 513-character title", { title: "a".repeat(513), content: "x" }],
    ["a 513-code-point emoji title", { title: "🦊".repeat(513), content: "x" }],
    ["no content", { title: "t" }],
    ["null content", { title: "t", content: null }],
    ["numeric content", { title: "t", content: 1 }],
    ["a format outside the enum", { title: "t", content: "x", format: "rtf" }],
    ["a format in the wrong case", { title: "t", content: "x", format: "Markdown" }],
    ["an empty format", { title: "t", content: "x", format: "" }],
    ["a path that is a string", { title: "t", content: "x", path: "Handbook" }],
    ["a path with an empty segment", { title: "t", content: "x", path: ["Handbook", ""] }],
    ["a path with a number", { title: "t", content: "x", path: [1] }],
    [
      "a path of 33 segments",
      { title: "t", content: "x", path: Array.from({ length: 33 }, (_, i) => `p${i}`) },
    ],
    ["an externalId starting with notion:", { title: "t", content: "x", externalId: "notion:abc123" }],
    ["the bare notion: prefix", { title: "t", content: "x", externalId: "notion:" }],
    ["an empty externalId", { title: "t", content: "x", externalId: "" }],
    ["a numeric externalId", { title: "t", content: "x", externalId: 12 }],
    ["an array body", [{ title: "t", content: "x" }]],
    ["a string body", "hello"],
    ["a null body", null],
  ])("refuses %s with 400 invalid_request and stores nothing", (_label, json) =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectError(await postJson(app, apiKey, json), 400, "invalid_request");
      expect(await documentCount(app, apiKey)).toBe(0);
    }),
  );

  it("counts title length in code points: 512 emoji pass, 513 do not", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectOk(
        await postJson(app, apiKey, { title: "😀".repeat(512), content: "" }),
        201,
        documentAnswer,
      );
      await expectError(
        await postJson(app, apiKey, { title: "😀".repeat(513), content: "" }),
        400,
        "invalid_request",
      );
      await expectOk(
        await postJson(app, apiKey, { title: "é".repeat(512), content: "" }),
        201,
        documentAnswer,
      );
      await expectError(
        await postJson(app, apiKey, { title: "é".repeat(513), content: "" }),
        400,
        "invalid_request",
      );
    }));

  it("names the field in the message", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const body = await expectError(
        await postJson(app, apiKey, { title: "t", content: "x", format: "rtf" }),
        400,
        "invalid_request",
      );
      expect(body.error.message).toContain("format");
      const reserved = await expectError(
        await postJson(app, apiKey, { title: "t", content: "x", externalId: "notion:abc" }),
        400,
        "invalid_request",
      );
      expect(reserved.error.message).toContain("externalId");
    }));

  it("refuses malformed JSON with 400 invalid_request", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      for (const body of ['{"title": "t", "content": "x"', "{title: 't'}", "", "nul"]) {
        const res = await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          headers: { "content-type": "application/json" },
          body,
        });
        await expectError(res, 400, "invalid_request");
      }
      expect(await documentCount(app, apiKey)).toBe(0);
    }));
});

describe("POST /v1/documents validation (raw and multipart)", () => {
  it.each([
    ["no ?title=", ""],
    ["an empty ?title=", "?title="],
    ["a 513-code-point ?title=", `?${new URLSearchParams({ title: "🦊".repeat(513) })}`],
  ])("refuses a raw body with %s: 400 invalid_request", (_label, query) =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      for (const contentType of ["text/markdown", "text/plain", "text/html"]) {
        const res = await app.request(`/v1/documents${query}`, {
          method: "POST",
          token: apiKey,
          headers: { "content-type": contentType },
          body: "Some words.",
        });
        await expectError(res, 400, "invalid_request");
      }
      expect(await documentCount(app, apiKey)).toBe(0);
    }),
  );

  it("refuses multipart without a file field, or with text in it: 400 invalid_request", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const empty = new FormData();
      empty.append("other", new File(["x"], "x.md"));
      await expectError(
        await app.request("/v1/documents", { method: "POST", token: apiKey, body: empty }),
        400,
        "invalid_request",
      );
      const text = new FormData();
      text.append("file", "just a string");
      await expectError(
        await app.request("/v1/documents", { method: "POST", token: apiKey, body: text }),
        400,
        "invalid_request",
      );
      expect(await documentCount(app, apiKey)).toBe(0);
    }));
});

describe("content types", () => {
  it.each(["application/xml", "text/csv", "application/octet-stream", "image/png"])(
    "refuses POST with %s: 415 unsupported_media_type",
    (contentType) =>
      withApp(async (app) => {
        const { apiKey } = await makeTeam(app);
        const res = await app.request("/v1/documents?title=t", {
          method: "POST",
          token: apiKey,
          headers: { "content-type": contentType },
          body: "<doc>words</doc>",
        });
        await expectError(res, 415, "unsupported_media_type");
        expect(await documentCount(app, apiKey)).toBe(0);
      }),
  );

  it("refuses POST with no content type: 415", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const res = await app.request("/v1/documents?title=t", {
        method: "POST",
        token: apiKey,
        body: new TextEncoder().encode('{"title":"t","content":"x"}'),
      });
      expect(res.headers.get("content-type") ?? "").not.toBe("");
      await expectError(res, 415, "unsupported_media_type");
      expect(await documentCount(app, apiKey)).toBe(0);
    }));

  it("refuses PUT with anything but JSON: 415, the document unchanged", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const doc = await addDocument(app, apiKey, { title: "Kept", content: "original words" });
      const variants: Record<string, string>[] = [
        { "content-type": "text/plain" },
        { "content-type": "text/markdown" },
        { "content-type": "application/xml" },
        {},
      ];
      for (const headers of variants) {
        const res = await app.request(`/v1/documents/${doc.id}?title=t`, {
          method: "PUT",
          token: apiKey,
          headers,
          body: new TextEncoder().encode('{"title":"t","content":"x"}'),
        });
        await expectError(res, 415, "unsupported_media_type");
      }
      const form = new FormData();
      form.append("file", new File(["x"], "x.md"));
      await expectError(
        await app.request(`/v1/documents/${doc.id}`, { method: "PUT", token: apiKey, body: form }),
        415,
        "unsupported_media_type",
      );
      const got = await expectOk(
        await app.request(`/v1/documents/${doc.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.version).toBe(1);
      expect(got.document.content).toBe("original words");
    }));
});

describe("PUT /v1/documents/{id} errors", () => {
  it("answers 404 for an unknown id", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await addDocument(app, apiKey, { title: "Other", content: "x" });
      for (const id of ["dxxxxxxxxxxxxxxxx", "nope"]) {
        const res = await app.request(`/v1/documents/${id}`, {
          method: "PUT",
          token: apiKey,
          json: { title: "t", content: "x" },
        });
        await expectError(res, 404, "not_found");
      }
      expect(await documentCount(app, apiKey)).toBe(1);
    }));

  it("answers 409 conflict for an externalId another document holds, and changes nothing", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const a = await addDocument(app, apiKey, { title: "A", content: "alpha", externalId: "ext-a" });
      const b = await addDocument(app, apiKey, { title: "B", content: "bravo", externalId: "ext-b" });
      const res = await app.request(`/v1/documents/${b.id}`, {
        method: "PUT",
        token: apiKey,
        json: { title: "B2", content: "bravo two", externalId: "ext-a" },
      });
      await expectError(res, 409, "conflict");
      const plain = await addDocument(app, apiKey, { title: "C", content: "charlie" });
      await expectError(
        await app.request(`/v1/documents/${plain.id}`, {
          method: "PUT",
          token: apiKey,
          json: { title: "C2", content: "x", externalId: "ext-b" },
        }),
        409,
        "conflict",
      );
      for (const [id, title, content, externalId] of [
        [a.id, "A", "alpha", "ext-a"],
        [b.id, "B", "bravo", "ext-b"],
      ] as const) {
        const got = await expectOk(
          await app.request(`/v1/documents/${id}`, { token: apiKey }),
          200,
          documentWithContentAnswer,
        );
        expect(got.document).toMatchObject({ title, content, externalId, version: 1 });
      }
    }));

  it("validates the PUT body like POST: 400", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const doc = await addDocument(app, apiKey, { title: "Kept", content: "x" });
      for (const json of [
        { content: "x" },
        { title: "", content: "x" },
        { title: "🦊".repeat(513), content: "x" },
        { title: "t" },
        { title: "t", content: "x", format: "rtf" },
        { title: "t", content: "x", externalId: "notion:abc" },
      ]) {
        await expectError(
          await app.request(`/v1/documents/${doc.id}`, { method: "PUT", token: apiKey, json }),
          400,
          "invalid_request",
        );
      }
      await expectError(
        await app.request(`/v1/documents/${doc.id}`, {
          method: "PUT",
          token: apiKey,
          headers: { "content-type": "application/json" },
          body: '{"title":',
        }),
        400,
        "invalid_request",
      );
      const got = await expectOk(
        await app.request(`/v1/documents/${doc.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.version).toBe(1);
    }));
});

describe("size limits", () => {
  const small = { config: { maxDocumentBytes: 1000 } };

  it("refuses 5000 bytes of content with 413 payload_too_large", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectError(
        await postJson(app, apiKey, { title: "Big", content: "x".repeat(5000) }),
        413,
        "payload_too_large",
      );
      expect(await documentCount(app, apiKey)).toBe(0);
    }, small));

  it("measures content in UTF-8 bytes: 1000 bytes pass, 1001 do not", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectOk(
        await postJson(app, apiKey, { title: "fits", content: "x".repeat(1000) }),
        201,
        documentAnswer,
      );
      await expectError(
        await postJson(app, apiKey, { title: "over", content: "x".repeat(1001) }),
        413,
        "payload_too_large",
      );
      // 500 × "é" is 1000 bytes; 501 is 1002, though only 501 characters.
      await expectOk(
        await postJson(app, apiKey, { title: "é fits", content: "é".repeat(500) }),
        201,
        documentAnswer,
      );
      await expectError(
        await postJson(app, apiKey, { title: "é over", content: "é".repeat(501) }),
        413,
        "payload_too_large",
      );
      expect(await documentCount(app, apiKey)).toBe(2);
    }, small));

  it("refuses an oversized raw body and an oversized upload", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectError(
        await app.request("/v1/documents?title=raw", {
          method: "POST",
          token: apiKey,
          headers: { "content-type": "text/plain" },
          body: "y".repeat(1001),
        }),
        413,
        "payload_too_large",
      );
      const form = new FormData();
      form.append("file", new File(["z".repeat(1001)], "big.md"));
      await expectError(
        await app.request("/v1/documents", { method: "POST", token: apiKey, body: form }),
        413,
        "payload_too_large",
      );
      expect(await documentCount(app, apiKey)).toBe(0);
    }, small));

  it("refuses a body past the allowance before reading it, declared or streamed", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const huge = JSON.stringify({ title: "huge", content: "w".repeat(200_000) });
      await expectError(
        await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          headers: { "content-type": "application/json", "content-length": String(huge.length) },
          body: huge,
        }),
        413,
        "payload_too_large",
      );
      await expectError(
        await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          headers: { "content-type": "application/json" },
          body: huge,
        }),
        413,
        "payload_too_large",
      );
      expect(await documentCount(app, apiKey)).toBe(0);
    }, small));

  it("refuses an oversized PUT with 413 and keeps the old version", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const doc = await addDocument(app, apiKey, { title: "Kept", content: "small" });
      await expectError(
        await app.request(`/v1/documents/${doc.id}`, {
          method: "PUT",
          token: apiKey,
          json: { title: "Kept", content: "x".repeat(1001) },
        }),
        413,
        "payload_too_large",
      );
      const got = await expectOk(
        await app.request(`/v1/documents/${doc.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.content).toBe("small");
      expect(got.document.version).toBe(1);
    }, small));

  it("refuses an oversized externalId replacement via POST with 413 and keeps the old version", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const doc = await addDocument(app, apiKey, { title: "Kept", content: "small", externalId: "ext" });
      await expectError(
        await postJson(app, apiKey, { title: "Kept", content: "x".repeat(1001), externalId: "ext" }),
        413,
        "payload_too_large",
      );
      const got = await expectOk(
        await app.request(`/v1/documents/${doc.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.content).toBe("small");
    }, small));
});

describe("GET /v1/documents errors", () => {
  it.each(["0", "201", "abc", "-1", "1.5", "", "1e2", " 5"])("refuses limit=%j with 400", (limit) =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectError(
        await app.request(`/v1/documents?${new URLSearchParams({ limit })}`, { token: apiKey }),
        400,
        "invalid_request",
      );
    }),
  );

  it.each(["abc", "!!!!", "eyJ4IjoxfQ", "W10", "W1wiYVwiXQ", "bnVsbA", "%%%"])(
    "refuses cursor=%j with 400 invalid_request",
    (cursor) =>
      withApp(async (app) => {
        const { apiKey } = await makeTeam(app);
        await addDocument(app, apiKey, { title: "one", content: "x" });
        await expectError(
          await app.request(`/v1/documents?${new URLSearchParams({ cursor })}`, { token: apiKey }),
          400,
          "invalid_request",
        );
      }),
  );

  it("answers 404 for an unknown id", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await addDocument(app, apiKey, { title: "one", content: "x" });
      await expectError(
        await app.request("/v1/documents/dxxxxxxxxxxxxxxxx", { token: apiKey }),
        404,
        "not_found",
      );
      // An id no document can have is still just an id that does not exist.
      await expectError(
        await app.request(`/v1/documents/${"d".repeat(300)}`, { token: apiKey }),
        404,
        "not_found",
      );
    }));
});

describe("unknown routes", () => {
  it.each([
    ["GET", "/v1/documentz"],
    ["GET", "/v1/documents/a/b"],
    ["GET", "/v2/documents"],
    // "/" is the page now (docs/api.md v1.1); a path under it that is none of its pages is still unknown.
    ["GET", "/page/nothing"],
  ])("%s %s answers 404 not_found", (method, path) =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectError(await app.request(path, { method, token: apiKey }), 404, "not_found");
    }),
  );
});

describe("DELETE /v1/documents/{id} errors", () => {
  it("deleting an unknown id answers 404 once the team has written something, and logs no change", () =>
    withApp(async (app) => {
      const { apiKey, teamId } = await makeTeam(app);
      await addDocument(app, apiKey, { title: "Kept", content: "kept" });
      const seq = await app.storage.changes.latestSeq(teamId);
      await expectError(
        await app.request("/v1/documents/dxxxxxxxxxxxxxxxx", { method: "DELETE", token: apiKey }),
        404,
        "not_found",
      );
      expect(await app.storage.changes.latestSeq(teamId)).toBe(seq);
    }));

  it("deleting the same document twice answers 204 then 404", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const doc = await addDocument(app, apiKey, { title: "Gone", content: "soon" });
      await expectNoContent(
        await app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: apiKey }),
      );
      await expectError(
        await app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: apiKey }),
        404,
        "not_found",
      );
    }));
});

describe("urlencoded bodies", () => {
  it("POST with application/x-www-form-urlencoded is 415, not a validation error", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const res = await app.request("/v1/documents", {
        method: "POST",
        token: apiKey,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "title=a&content=b",
      });
      await expectError(res, 415, "unsupported_media_type");
    }));
});

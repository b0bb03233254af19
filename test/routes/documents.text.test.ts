// What is not a note is refused, clearly, and nothing is stored (docs/api.md v1.1 "Documents"); what is one is
// stored exactly, titled as a person would title it, and answered with the SHA-256 of its content.

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { documentAnswer, documentListAnswer, documentWithContentAnswer } from "../../src/routes/documents.js";
import { makeTeam, type TestApp } from "../support/app.js";
import { deliver, makeWebhookSecret } from "../support/webhooks.js";
import { expectError, expectOk, withApp } from "./contract.js";

const sha256 = (bytes: string | Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function listed(app: TestApp, apiKey: string) {
  return (
    await expectOk(await app.request("/v1/documents?limit=200", { token: apiKey }), 200, documentListAnswer)
  ).documents;
}

function postRaw(
  app: TestApp,
  apiKey: string,
  body: string | Uint8Array<ArrayBuffer>,
  contentType = "text/markdown",
  query = "?title=t",
) {
  return app.request(`/v1/documents${query}`, {
    method: "POST",
    token: apiKey,
    headers: { "content-type": contentType },
    body,
  });
}

function postFile(app: TestApp, apiKey: string, bytes: string | Uint8Array<ArrayBuffer>, name = "note.md") {
  const form = new FormData();
  form.append("file", new File([bytes], name, { type: "application/octet-stream" }));
  return app.request("/v1/documents", { method: "POST", token: apiKey, body: form });
}

const utf8 = (text: string) => new TextEncoder().encode(text);
// "caf" then a lone continuation byte, then an overlong slash, then a truncated 3-byte sequence.
const notUtf8 = new Uint8Array([0x63, 0x61, 0x66, 0x80, 0x20, 0xc0, 0xaf, 0x20, 0xe2, 0x82]);
const withNul = utf8("# Heading\n\nwords\u0000more words\n");

/** Runs `body` with one document already stored, then checks the list is exactly that one document. */
async function withOneDocument(body: (app: TestApp, apiKey: string) => Promise<void>) {
  await withApp(async (app) => {
    const { apiKey } = await makeTeam(app);
    await expectOk(
      await app.request("/v1/documents", {
        method: "POST",
        token: apiKey,
        json: { title: "kept", content: "x" },
      }),
      201,
      documentAnswer,
    );
    const before = await listed(app, apiKey);
    await body(app, apiKey);
    expect(await listed(app, apiKey)).toEqual(before);
  });
}

describe("content that is not text is refused and nothing is stored", () => {
  it.each([
    ["text/markdown", "markdown"],
    ["text/plain", "text"],
    ["text/html", "html"],
  ])("a raw %s body with a NUL byte: 415 unsupported_media_type", (contentType) =>
    withOneDocument(async (app, apiKey) => {
      const { error } = await expectError(
        await postRaw(app, apiKey, withNul, contentType),
        415,
        "unsupported_media_type",
      );
      expect(error.message).toMatch(/NUL/);
      expect(error.message).not.toMatch(/words/);
    }),
  );

  it("a raw body that is not UTF-8: 415 unsupported_media_type", () =>
    withOneDocument(async (app, apiKey) => {
      const { error } = await expectError(await postRaw(app, apiKey, notUtf8), 415, "unsupported_media_type");
      expect(error.message).toMatch(/UTF-8/);
    }));

  it("a Latin-1 raw body (é as one byte 0xE9): 415, not a note with U+FFFD in it", () =>
    withOneDocument(async (app, apiKey) => {
      await expectError(
        await postRaw(app, apiKey, new Uint8Array([0x63, 0x61, 0x66, 0xe9]), "text/plain"),
        415,
        "unsupported_media_type",
      );
    }));

  it("a multipart file with a NUL byte, or not UTF-8: 415 unsupported_media_type", () =>
    withOneDocument(async (app, apiKey) => {
      const nul = await expectError(await postFile(app, apiKey, withNul), 415, "unsupported_media_type");
      expect(nul.error.message).toMatch(/NUL/);
      const bad = await expectError(
        await postFile(app, apiKey, notUtf8, "page.html"),
        415,
        "unsupported_media_type",
      );
      expect(bad.error.message).toMatch(/UTF-8/);
    }));

  it("JSON content with U+0000: 400 invalid_request naming content", () =>
    withOneDocument(async (app, apiKey) => {
      const res = await app.request("/v1/documents", {
        method: "POST",
        token: apiKey,
        json: { title: "t", content: "secretword\u0000secretword" },
      });
      const { error } = await expectError(res, 400, "invalid_request");
      expect(error.message).toMatch(/content/);
      expect(error.message).not.toMatch(/secretword/);
    }));

  it("JSON content with a lone surrogate escape (\\ud800): 400 invalid_request", () =>
    withOneDocument(async (app, apiKey) => {
      for (const escaped of ["a\\ud800b", "\\udc00", "x\\ud83d"]) {
        const res = await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          headers: { "content-type": "application/json" },
          body: `{"title":"t","content":"${escaped}"}`,
        });
        const { error } = await expectError(res, 400, "invalid_request");
        expect(error.message).toMatch(/surrogate/);
      }
      // A well-formed pair written as escapes is one emoji, and is text.
      const pair = await app.request("/v1/documents", {
        method: "POST",
        token: apiKey,
        headers: { "content-type": "application/json" },
        body: '{"title":"pair","content":"\\ud83e\\udd8a"}',
      });
      const { document } = await expectOk(pair, 201, documentAnswer);
      await app.request(`/v1/documents/${document.id}`, { method: "DELETE", token: apiKey });
    }));

  it("a JSON body whose bytes are not UTF-8: 400 invalid_request, where Request.json() would store U+FFFD", () =>
    withOneDocument(async (app, apiKey) => {
      const body = new Uint8Array([...utf8('{"title":"t","content":"caf'), 0xe9, ...utf8('"}')]);
      const res = await app.request("/v1/documents", {
        method: "POST",
        token: apiKey,
        headers: { "content-type": "application/json" },
        body,
      });
      const { error } = await expectError(res, 400, "invalid_request");
      expect(error.message).toMatch(/UTF-8/);
    }));

  it("PUT with NUL content or non-UTF-8 bytes: 400, the document unchanged", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const { document } = await expectOk(
        await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          json: { title: "kept", content: "x" },
        }),
        201,
        documentAnswer,
      );
      const before = await listed(app, apiKey);
      await expectError(
        await app.request(`/v1/documents/${document.id}`, {
          method: "PUT",
          token: apiKey,
          json: { title: "kept", content: "a\u0000b" },
        }),
        400,
        "invalid_request",
      );
      await expectError(
        await app.request(`/v1/documents/${document.id}`, {
          method: "PUT",
          token: apiKey,
          headers: { "content-type": "application/json" },
          body: new Uint8Array([...utf8('{"title":"kept","content":"'), 0xff, ...utf8('"}')]),
        }),
        400,
        "invalid_request",
      );
      expect(await listed(app, apiKey)).toEqual(before);
      const got = await expectOk(
        await app.request(`/v1/documents/${document.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.content).toBe("x");
    }));

  it("a signed webhook document.upsert with NUL content is refused the same way (400) and stores nothing", () =>
    withApp(async (app) => {
      const { teamId, apiKey } = await makeTeam(app);
      const secret = await makeWebhookSecret(app, apiKey);
      const res = await deliver(app, teamId, secret, {
        type: "document.upsert",
        data: { externalId: "file:a.md", title: "a", content: "a\u0000b" },
      });
      const { error } = await expectError(res, 400, "invalid_request");
      expect(error.message).toMatch(/NUL/);
      expect(await listed(app, apiKey)).toEqual([]);
    }));

  it('JSON content "" stays allowed', () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const res = await app.request("/v1/documents", {
        method: "POST",
        token: apiKey,
        json: { title: "t", content: "" },
      });
      const { document } = await expectOk(res, 201, documentAnswer);
      expect(document.contentHash).toBe(sha256(""));
    }));
});

describe("an empty upload is refused (curl --data-binary @missing.md sends nothing)", () => {
  it.each(["text/markdown", "text/plain", "text/html"])(
    "a raw %s body with no bytes: 400 'empty body'",
    (contentType) =>
      withOneDocument(async (app, apiKey) => {
        const { error } = await expectError(
          await postRaw(app, apiKey, "", contentType),
          400,
          "invalid_request",
        );
        expect(error.message).toMatch(/empty body/);
      }),
  );

  it("an empty body is named before a missing ?title=", () =>
    withOneDocument(async (app, apiKey) => {
      const { error } = await expectError(
        await postRaw(app, apiKey, "", "text/markdown", ""),
        400,
        "invalid_request",
      );
      expect(error.message).toMatch(/empty body/);
    }));

  it("an empty multipart file: 400 'empty body'", () =>
    withOneDocument(async (app, apiKey) => {
      const { error } = await expectError(await postFile(app, apiKey, ""), 400, "invalid_request");
      expect(error.message).toMatch(/empty body/);
    }));
});

describe("UTF-8 as editors write it", () => {
  it("accepts a BOM-prefixed raw and multipart upload; the mark is not part of the note", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const text = "# Überblick\n\nThe narwhal café.\n";
      const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(text)]);
      for (const res of [
        await postRaw(app, apiKey, bom, "text/markdown", ""),
        await postFile(app, apiKey, bom),
      ]) {
        const { document } = await expectOk(res, 201, documentAnswer);
        const got = await expectOk(
          await app.request(`/v1/documents/${document.id}`, { token: apiKey }),
          200,
          documentWithContentAnswer,
        );
        expect(got.document.content).toBe(text);
        expect(document.contentHash).toBe(sha256(text));
      }
    }));

  it("stores multi-byte raw content exactly", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const text = "Zürich — 東京 — 🦊\r\nline two\n";
      const { document } = await expectOk(
        await postRaw(app, apiKey, utf8(text), "text/plain"),
        201,
        documentAnswer,
      );
      const got = await expectOk(
        await app.request(`/v1/documents/${document.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.content).toBe(text);
    }));
});

describe("titles a person would give", () => {
  it.each([
    ["text/markdown", "Intro words.\n\n## Release plan\n\nmore", "Release plan"],
    ["text/markdown", "Setext title\n============\n\nbody", "Setext title"],
    [
      "text/html",
      "<html><head><title>Tab — Site</title></head><body><nav><h2>Menu</h2></nav><h1>Page <em>heading</em></h1></body></html>",
      "Page heading",
    ],
  ])("a raw %s body without ?title= is titled by its first heading", (contentType, content, title) =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const { document } = await expectOk(
        await postRaw(app, apiKey, content, contentType, ""),
        201,
        documentAnswer,
      );
      expect(document.title).toBe(title);
    }),
  );

  it("?title= wins over the heading", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const { document } = await expectOk(
        await postRaw(app, apiKey, "# Heading\n\nbody", "text/markdown", "?title=Given"),
        201,
        documentAnswer,
      );
      expect(document.title).toBe("Given");
    }));

  it.each([
    ["text/markdown", "no heading here, only words"],
    ["text/plain", "# not a heading in plain text"],
    ["text/html", "<p>no heading</p>"],
  ])("a raw %s body with neither ?title= nor a heading: 400 naming both", (contentType, content) =>
    withOneDocument(async (app, apiKey) => {
      const { error } = await expectError(
        await postRaw(app, apiKey, content, contentType, ""),
        400,
        "invalid_request",
      );
      expect(error.message).toMatch(/\?title=/);
      expect(error.message).toMatch(/heading/);
    }),
  );

  it("a multipart upload is titled by its heading, else by its file name without the extension", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const headed = await expectOk(
        await postFile(app, apiKey, "# Heading inside\n\nbody", "Team handbook.md"),
        201,
        documentAnswer,
      );
      expect(headed.document.title).toBe("Heading inside");
      expect(headed.document.format).toBe("markdown");
      const plain = await expectOk(
        await postFile(app, apiKey, "no heading, only words", "Team handbook.md"),
        201,
        documentAnswer,
      );
      expect(plain.document.title).toBe("Team handbook");
    }));
});

describe("contentHash", () => {
  it("is the SHA-256 hex of the content's UTF-8 bytes in every Document answer", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const content = "# Hash me\n\nThe pangolin — 🦔 — café.\n";
      const expected = sha256(utf8(content));
      const created = await expectOk(
        await app.request("/v1/documents", { method: "POST", token: apiKey, json: { title: "h", content } }),
        201,
        documentAnswer,
      );
      expect(created.document.contentHash).toBe(expected);
      const id = created.document.id;
      const got = await expectOk(
        await app.request(`/v1/documents/${id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.contentHash).toBe(expected);
      expect((await listed(app, apiKey))[0]?.contentHash).toBe(expected);

      const replaced = await expectOk(
        await app.request(`/v1/documents/${id}`, {
          method: "PUT",
          token: apiKey,
          json: { title: "h", content: "new" },
        }),
        200,
        documentAnswer,
      );
      expect(replaced.document.contentHash).toBe(sha256("new"));
      expect((await listed(app, apiKey))[0]?.contentHash).toBe(sha256("new"));
    }));
});

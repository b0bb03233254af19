// DocumentService refuses content that is not text whichever way it arrives: the Notion sync and the webhook
// call create() directly, not through a route, so the check must hold here as well.

import { afterEach, describe, expect, it } from "vitest";
import { isDomainError } from "../../src/errors.js";
import type { TeamKey } from "../../src/seal/team-key.js";
import { DocumentService } from "../../src/services/documents.js";
import { buildTestApp, makeTeam, type TestApp } from "../support/app.js";

describe("DocumentService text check", () => {
  const open: TestApp[] = [];
  afterEach(() => {
    for (const a of open.splice(0)) a.close();
  });

  async function setUp(): Promise<{ app: TestApp; documents: DocumentService; key: TeamKey }> {
    const app = await buildTestApp();
    open.push(app);
    const { teamId } = await makeTeam(app);
    const key = await app.memoria.directory.teamKey(teamId);
    if (!key) throw new Error("no team key");
    const documents = new DocumentService({
      storage: app.storage,
      indexes: app.memoria.indexes,
      clock: { now: () => new Date() },
      maxDocumentBytes: 1024 * 1024,
    });
    return { app, documents, key };
  }

  const input = (content: string) => ({
    title: "Page",
    content,
    format: "markdown" as const,
    path: [],
    externalId: "notion:0123456789abcdef0123456789abcdef",
  });

  it.each([
    ["a NUL", "body \u0000 more", /NUL/],
    ["a lone surrogate", "body \ud800 more", /surrogate/],
  ])(
    "create and replace refuse %s with invalid_request, and store nothing",
    async (_label, content, message) => {
      const { documents, key } = await setUp();
      const refused = await documents.create(key, input(content)).catch((e: unknown) => e);
      expect(isDomainError(refused, "invalid_request")).toBe(true);
      expect((refused as Error).message).toMatch(message);
      expect((refused as Error).message).not.toContain("body");
      expect((await documents.list(key, 10, null)).documents).toEqual([]);

      const { document } = await documents.create(key, input("fine"));
      const replaced = await documents.replace(key, document.id, input(content)).catch((e: unknown) => e);
      expect(isDomainError(replaced, "invalid_request")).toBe(true);
      const stored = await documents.get(key, document.id);
      expect(stored.content).toBe("fine");
      expect(stored.version).toBe(1);
    },
  );
});

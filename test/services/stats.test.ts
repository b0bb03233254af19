// /v1/stats's counts (src/services/stats.ts) are kept between writes: over real libSQL, they must still be
// storage's after any write, this instance's or another instance's over the same database.

import { afterEach, describe, expect, it, vi } from "vitest";
import { addDocument, buildTestApp, makeTeam, type TestApp, tempDir } from "../support/app.js";

const opened: TestApp[] = [];
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const app of opened.splice(0)) app.close();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function app(options: Parameters<typeof buildTestApp>[0] = {}): Promise<TestApp> {
  const built = await buildTestApp(options);
  opened.push(built);
  return built;
}

async function stats(app: TestApp, token: string) {
  const res = await app.request("/v1/stats", { token });
  expect(res.status).toBe(200);
  return (await res.json()) as { documents: number; chunks: number; entries: number };
}

describe("GET /v1/stats's counts", () => {
  it("counts storage's rows once between writes, and again after each write", async () => {
    const a = await app();
    const team = await makeTeam(a);
    await addDocument(a, team.apiKey, { title: "One", content: "# One\n\nFirst body." });
    const counts = vi.spyOn(a.storage.documents, "counts");
    for (let i = 0; i < 3; i++) expect((await stats(a, team.apiKey)).documents).toBe(1);
    expect(counts).toHaveBeenCalledTimes(1);
    await addDocument(a, team.apiKey, { title: "Two", content: "# Two\n\nSecond body.\n\n## More\n\nText." });
    const after = await stats(a, team.apiKey);
    expect(after.documents).toBe(2);
    expect(counts).toHaveBeenCalledTimes(2);
    const entry = await a.request("/v1/entries", {
      method: "POST",
      token: team.apiKey,
      json: { type: "decision", title: "Counts follow the change log", body: "Kept per seq." },
    });
    expect(entry.status).toBe(201);
    expect((await stats(a, team.apiKey)).entries).toBe(1);
  });

  it("sees another instance's writes and deletions on its next request", async () => {
    const { dbUrl, cleanup } = tempDir();
    cleanups.push(cleanup);
    const first = await app({ dbUrl });
    const second = await app({ dbUrl, masterKey: first.masterKey });
    const team = await makeTeam(first);
    expect(await stats(second, team.apiKey)).toMatchObject({ documents: 0, chunks: 0 });
    const doc = await addDocument(first, team.apiKey, { title: "Elsewhere", content: "# A\n\nBody one." });
    const seen = await stats(second, team.apiKey);
    expect(seen).toMatchObject({ documents: 1, chunks: doc.chunks });
    const deleted = await first.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: team.apiKey });
    expect(deleted.status).toBe(204);
    expect(await stats(second, team.apiKey)).toMatchObject({ documents: 0, chunks: 0 });
  });
});

// GET /metrics: Prometheus text, behind the admin token or MEMORIA_METRICS_TOKEN, and content-free: after
// real requests it names every metric docs/api.md lists, its counters move, and nothing a team wrote (a title, a
// query, a document id, the team's id or name, a key) appears anywhere in it.

import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, addDocument, buildTestApp, makeTeam, search, type TestApp } from "../support/app.js";
import { expectError } from "./contract.js";

const METRICS_TOKEN = "metrics-token-0123456789abcdef";

async function scrape(app: TestApp, token = ADMIN_TOKEN): Promise<string> {
  const res = await app.request("/metrics", { token });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of the sample whose name and labels are exactly `sample`, or null when there is none. */
function sampleValue(text: string, sample: string): number | null {
  const line = text.split("\n").find((l) => l.startsWith(`${sample} `));
  return line === undefined ? null : Number(line.slice(sample.length + 1));
}

async function withApp<T>(body: (app: TestApp) => Promise<T>, config = {}): Promise<T> {
  const app = await buildTestApp({ config });
  try {
    return await body(app);
  } finally {
    app.close();
  }
}

describe("GET /metrics", () => {
  it("names every metric, counts by route pattern, and its counters increase", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const doc = await addDocument(app, apiKey, {
        title: "Quokka ledger",
        content: "# Wombat\n\nmarsupial notes",
      });
      await search(app, apiKey, "marsupial");
      expect((await app.request(`/v1/documents/${doc.id}`, { token: apiKey })).status).toBe(200);

      const first = await scrape(app);
      for (const name of [
        "memoria_http_requests_total",
        "memoria_http_request_duration_seconds",
        "memoria_index_builds_total",
        "memoria_index_build_seconds",
        "memoria_teams_loaded",
        "memoria_index_documents",
        "memoria_index_chunks",
        "memoria_index_entries",
        "memoria_index_memory_bytes",
        "memoria_index_memory_budget_bytes",
        "memoria_storage_errors_total",
        "memoria_rate_limited_total",
      ]) {
        expect(first, name).toContain(`# TYPE ${name} `);
      }
      const searches = 'memoria_http_requests_total{method="GET",route="/v1/search",status="200"}';
      expect(sampleValue(first, searches)).toBe(1);
      // The document read is counted under its pattern, never its id.
      expect(
        sampleValue(
          first,
          'memoria_http_requests_total{method="GET",route="/v1/documents/:id",status="200"}',
        ),
      ).toBe(1);
      expect(sampleValue(first, "memoria_teams_loaded")).toBe(1);
      expect(sampleValue(first, "memoria_index_documents")).toBe(1);
      expect(sampleValue(first, "memoria_index_chunks")).toBeGreaterThanOrEqual(1);
      expect(sampleValue(first, "memoria_index_builds_total")).toBe(1);
      expect(sampleValue(first, "memoria_index_build_seconds_count")).toBe(1);
      // The one loaded team's estimate, as its own /v1/stats gives it; no budget configured here.
      expect(sampleValue(first, "memoria_index_memory_bytes")).toBe(
        app.memoria.indexes.status(app.memoria.indexes.loadedTeams()[0] ?? "").memoryBytes,
      );
      expect(sampleValue(first, "memoria_index_memory_bytes") ?? 0).toBeGreaterThan(0);
      expect(first).toContain("\nmemoria_index_memory_budget_bytes +Inf\n");

      await search(app, apiKey, "wombat");
      const second = await scrape(app);
      expect(sampleValue(second, searches)).toBe(2);
      // No second build: the team's index stayed loaded.
      expect(sampleValue(second, "memoria_index_builds_total")).toBe(1);
      expect(
        sampleValue(second, 'memoria_http_requests_total{method="GET",route="/metrics",status="200"}'),
      ).toBe(1);
    }));

  it("carries nothing a team wrote, nor its id, name, key or document ids", () =>
    withApp(async (app) => {
      const { teamId, apiKey } = await makeTeam(app, "Zanzibar Heliotrope");
      const doc = await addDocument(app, apiKey, {
        title: "Quokka ledger",
        content: "# Wombat\n\nmarsupial notes",
        externalId: "ext-platypus-7",
      });
      await search(app, apiKey, "marsupial");
      await app.request("/v1/search?q=echidna-secret-query", { token: apiKey });
      await app.request(`/v1/documents/${doc.id}`, { token: apiKey });
      await app.request("/v1/documents/d-no-such-document-xyz", { token: apiKey });
      await app.request("/no-such-route-kiwi", { token: apiKey });
      await app.request("/v1/entries", {
        method: "POST",
        token: apiKey,
        json: { title: "Numbat decision", impact: "bilby impact" },
      });
      const text = await scrape(app);
      for (const secret of [
        teamId,
        apiKey,
        "Zanzibar",
        "Quokka",
        "Wombat",
        "marsupial",
        "echidna",
        "platypus",
        doc.id,
        "d-no-such-document-xyz",
        "kiwi",
        "Numbat",
        "bilby",
      ]) {
        expect(text, secret).not.toContain(secret);
      }
      // Every label is one of the names the metrics use (le: a histogram's bucket).
      const labels = new Set([...text.matchAll(/[{,]([a-z_]+)="/g)].map((m) => m[1]));
      for (const label of labels)
        expect(["method", "route", "status", "le", "limit", "kind"]).toContain(label);
    }));

  it("answers 401 without a token or with a team key, and takes MEMORIA_METRICS_TOKEN when set", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        await expectError(await app.request("/metrics"), 401, "unauthorized");
        await expectError(await app.request("/metrics", { token: apiKey }), 401, "unauthorized");
        await expectError(
          await app.request("/metrics", { token: "wrong-metrics-token-0123456789" }),
          401,
          "unauthorized",
        );
        await scrape(app, METRICS_TOKEN);
        await scrape(app, ADMIN_TOKEN);
      },
      { metricsToken: METRICS_TOKEN },
    ));

  it("is admin_disabled when there is neither an admin nor a metrics token", () =>
    withApp(
      async (app) => {
        await expectError(await app.request("/metrics", { token: ADMIN_TOKEN }), 403, "admin_disabled");
      },
      { adminToken: null },
    ));

  it("counts rate-limited answers by limit", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        for (let i = 0; i < 3; i += 1) await app.request("/v1/stats", { token: apiKey });
        const text = await scrape(app, METRICS_TOKEN);
        expect(sampleValue(text, 'memoria_rate_limited_total{limit="credential"}')).toBe(1);
        expect(
          sampleValue(text, 'memoria_http_requests_total{method="GET",route="/v1/stats",status="429"}'),
        ).toBe(1);
      },
      { rateLimit: 2, metricsToken: METRICS_TOKEN },
    ));

  it("counts a request that failed in storage as a storage error", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const before = sampleValue(await scrape(app), "memoria_storage_errors_total");
      expect(before).toBe(0);
      app.storage.close();
      const res = await app.request("/v1/stats", { token: apiKey });
      expect(res.status).toBe(500);
      expect(sampleValue(await scrape(app), "memoria_storage_errors_total")).toBe(1);
    }));

  it("keeps each app's numbers apart: two apps in one process do not share a registry", async () => {
    await withApp(async (a) => {
      await withApp(async (b) => {
        await a.request("/healthz");
        await a.request("/healthz");
        await b.request("/healthz");
        const healthz = 'memoria_http_requests_total{method="GET",route="/healthz",status="200"}';
        expect(sampleValue(await scrape(a), healthz)).toBe(2);
        expect(sampleValue(await scrape(b), healthz)).toBe(1);
      });
    });
  });
});

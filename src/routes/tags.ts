// The OpenAPI document's tags: one per resource, so an API viewer groups each resource's operations under
// its name instead of "default". Every operation names exactly one of these (test/routes/openapi.test.ts).

export const OPENAPI_TAGS = [
  { name: "Documents", description: "A team's documents: markdown, text or HTML, chunked into passages." },
  { name: "Search", description: "Full-text search over the team's passages, BM25-ranked, with snippets." },
  { name: "Entries", description: "Short memory entries: decisions, incidents, learnings." },
  { name: "Working memory", description: "The token-budgeted block of entries an agent reads." },
  { name: "MCP", description: "The Model Context Protocol endpoint for agents." },
  {
    name: "OAuth",
    description: "Signing MCP clients in: metadata, registration, tokens, and the apps members connected.",
  },
  { name: "Note sources", description: "Notion and signed-webhook sources that keep documents in step." },
  { name: "Webhooks", description: "Deliveries from note sources, verified before they are applied." },
  { name: "Export", description: "A team's documents and entries as one NDJSON stream, out and back in." },
  { name: "Stats", description: "What a team holds, and the state of its in-memory index." },
  { name: "Keys", description: "A team's keys, each with a scope: read, write or admin." },
  { name: "Members", description: "A team's people, their roles, and one-time invites to join." },
  { name: "Audit", description: "Who changed what the team holds or who may reach it, newest first." },
  { name: "Teams", description: "Teams and their API keys (admin token)." },
  { name: "Reindex", description: "Catching indexes up with storage (cron token)." },
  { name: "Service", description: "Liveness and readiness." },
  { name: "Metrics", description: "Prometheus metrics (metrics token)." },
] as const satisfies readonly { name: string; description: string }[];

export type OpenApiTag = (typeof OPENAPI_TAGS)[number]["name"];

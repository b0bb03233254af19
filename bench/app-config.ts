// The configuration every bench app runs with, in process or in a child: one admin token, 5 MiB documents,
// catch-up left alone (the bench is the only writer), and no rate limit — the bench is its own only client
// and sends thousands of requests a minute with one key, so the default 1,200 would measure the limit.

import type { AppConfig } from "../src/app.js";

export const BENCH_ADMIN = "bench-admin-token-0123456789";

export function benchConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    adminToken: BENCH_ADMIN,
    cronToken: null,
    maxDocumentBytes: 5 * 1024 * 1024,
    catchupMs: 60_000,
    rateLimit: 0,
    ...overrides,
  };
}

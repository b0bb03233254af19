// Scoped keys made the way a team makes them: POST /v1/keys with an admin key.

import type { Scope } from "../../src/scope.js";
import type { TestApp } from "./app.js";

export async function makeKey(
  app: TestApp,
  adminKey: string,
  scope: Scope,
  options: { name?: string; expiresAt?: string } = {},
): Promise<{ keyId: string; apiKey: string }> {
  const res = await app.request("/v1/keys", {
    method: "POST",
    token: adminKey,
    json: {
      name: options.name ?? `${scope} key`,
      scope,
      ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}),
    },
  });
  if (res.status !== 201) throw new Error(`key creation answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { keyId: string; apiKey: string };
}

/** One key of each scope for a team, beside the admin key it was made with. */
export async function keysOfEveryScope(app: TestApp, adminKey: string): Promise<Record<Scope, string>> {
  return {
    read: (await makeKey(app, adminKey, "read")).apiKey,
    write: (await makeKey(app, adminKey, "write")).apiKey,
    admin: (await makeKey(app, adminKey, "admin")).apiKey,
  };
}

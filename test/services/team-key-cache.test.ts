// The authenticated-key cache (src/services/team-key-cache.ts) as the app uses it: over real libSQL, through
// the HTTP routes, with a clock the test moves. What it must never do is let a revoked, deleted or forged key
// through on the instance that knows better; what it may do is spare storage a lookup within the bound.

import { afterEach, describe, expect, it, vi } from "vitest";
import type { Clock } from "../../src/clock.js";
import { hashSecret } from "../../src/seal/secret.js";
import { hashSecretNow } from "../../src/seal/secret-hash.js";
import type { TeamKey } from "../../src/seal/team-key.js";
import { type CachedKey, MAX_CACHED_KEYS, TeamKeyCache } from "../../src/services/team-key-cache.js";
import { ADMIN_TOKEN, buildTestApp, makeTeam, type TestApp, tempDir } from "../support/app.js";

const CATCHUP_MS = 2000;

function movableClock(start = Date.parse("2026-01-01T00:00:00Z")) {
  let now = start;
  const clock: Clock = { now: () => new Date(now) };
  return { clock, advance: (ms: number) => (now += ms) };
}

const opened: TestApp[] = [];
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const app of opened.splice(0)) app.close();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function app(options: Parameters<typeof buildTestApp>[0] = {}): Promise<TestApp> {
  const built = await buildTestApp({ config: { catchupMs: CATCHUP_MS }, ...options });
  opened.push(built);
  return built;
}

const stats = (app: TestApp, token: string) => app.request("/v1/stats", { token }).then((r) => r.status);

async function newKey(app: TestApp, teamId: string): Promise<{ keyId: string; apiKey: string }> {
  const res = await app.request(`/v1/teams/${teamId}/keys`, { method: "POST", token: ADMIN_TOKEN });
  return (await res.json()) as { keyId: string; apiKey: string };
}

async function revoke(app: TestApp, teamId: string, keyId: string): Promise<number> {
  const res = await app.request(`/v1/teams/${teamId}/keys/${keyId}`, {
    method: "DELETE",
    token: ADMIN_TOKEN,
  });
  return res.status;
}

describe("authenticated keys, as the app keeps them", () => {
  it("hashes a key to the same hex as the stored form (hashSecret), so stored keys still match", async () => {
    for (const key of ["mem_t_abc_0123", "", "ünïcødé 🦊", "x".repeat(10_000)]) {
      expect(hashSecretNow(key)).toBe(await hashSecret(key));
    }
  });

  it("looks a live key up in storage once within MEMORIA_CATCHUP_MS, and again after it", async () => {
    const { clock, advance } = movableClock();
    const a = await app({ clock });
    const team = await makeTeam(a);
    const findKey = vi.spyOn(a.storage.teams, "findKey");
    for (let i = 0; i < 5; i++) expect(await stats(a, team.apiKey)).toBe(200);
    expect(findKey).toHaveBeenCalledTimes(1);
    advance(CATCHUP_MS);
    expect(await stats(a, team.apiKey)).toBe(200);
    expect(findKey).toHaveBeenCalledTimes(2);
  });

  it("a revoked key is refused on the next request after a cached lookup", async () => {
    const { clock } = movableClock();
    const a = await app({ clock });
    const team = await makeTeam(a);
    const second = await newKey(a, team.teamId);
    expect(await stats(a, second.apiKey)).toBe(200);
    expect(await stats(a, team.apiKey)).toBe(200);
    expect(await revoke(a, team.teamId, second.keyId)).toBe(204);
    // The clock has not moved: the cached lookup is well within its bound, and still the key is refused.
    expect(await stats(a, second.apiKey)).toBe(401);
    expect(await a.request("/v1/search?q=x", { token: second.apiKey }).then((r) => r.status)).toBe(401);
    // The team's other key, cached too, is untouched.
    expect(await stats(a, team.apiKey)).toBe(200);
  });

  it("a deleted team's key is refused on the next request after a cached lookup", async () => {
    const a = await app();
    const team = await makeTeam(a);
    expect(await stats(a, team.apiKey)).toBe(200);
    const res = await a.request(`/v1/teams/${team.teamId}`, { method: "DELETE", token: ADMIN_TOKEN });
    expect(res.status).toBe(204);
    expect(await stats(a, team.apiKey)).toBe(401);
  });

  it("refuses a forged key naming a cached key's team, and a cached key presented as another team's", async () => {
    const a = await app();
    const team = await makeTeam(a);
    const other = await makeTeam(a, "Other");
    expect(await stats(a, team.apiKey)).toBe(200);
    expect(await stats(a, other.apiKey)).toBe(200);
    const secret = team.apiKey.slice(`mem_${team.teamId}_`.length);
    const flipped = `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
    for (const forged of [
      `mem_${team.teamId}_${flipped}`,
      `mem_${other.teamId}_${secret}`,
      `${team.apiKey} `.trim().toUpperCase(),
      `${team.apiKey}x`,
    ]) {
      expect(await stats(a, forged)).toBe(401);
    }
    expect(await stats(a, team.apiKey)).toBe(200);
  });

  it("another instance refuses a key revoked elsewhere within MEMORIA_CATCHUP_MS of its last lookup", async () => {
    const { dbUrl, cleanup } = tempDir();
    cleanups.push(cleanup);
    const { clock, advance } = movableClock();
    const first = await app({ dbUrl, clock });
    const second = await app({ dbUrl, clock, masterKey: first.masterKey });
    const team = await makeTeam(first);
    const key = await newKey(first, team.teamId);
    expect(await stats(second, key.apiKey)).toBe(200);
    expect(await revoke(first, team.teamId, key.keyId)).toBe(204);
    expect(await stats(first, key.apiKey)).toBe(401);
    // The documented bound: the second instance checked the key less than MEMORIA_CATCHUP_MS ago.
    advance(CATCHUP_MS - 1);
    expect(await stats(second, key.apiKey)).toBe(200);
    advance(1);
    expect(await stats(second, key.apiKey)).toBe(401);
  });

  it("asks storage on every request when MEMORIA_CATCHUP_MS is 0", async () => {
    const a = await app({ config: { catchupMs: 0 } });
    const team = await makeTeam(a);
    const findKey = vi.spyOn(a.storage.teams, "findKey");
    for (let i = 0; i < 3; i++) expect(await stats(a, team.apiKey)).toBe(200);
    expect(findKey).toHaveBeenCalledTimes(3);
  });
});

describe("TeamKeyCache", () => {
  const teamKey = (teamId: string) => ({ teamId }) as TeamKey;
  const held = (keyId: string, teamId: string): CachedKey => ({
    keyId,
    team: teamKey(teamId),
    scope: "admin",
    expiresAt: null,
    name: null,
    owner: null,
  });

  it("does not keep a lookup that was in flight when a key was revoked", () => {
    const cache = new TeamKeyCache(CATCHUP_MS);
    const generation = cache.generation;
    // The revocation commits and forgets while the lookup that read the key as live is still awaiting.
    cache.forgetKey("k_1");
    cache.set("hash", held("k_1", "t_1"), 0, generation);
    expect(cache.get("hash", 1)).toBeNull();
    cache.set("hash", held("k_1", "t_1"), 0, cache.generation);
    expect(cache.get("hash", 1)?.keyId).toBe("k_1");
  });

  it("forgets a team's keys and leaves other teams' keys", () => {
    const cache = new TeamKeyCache(CATCHUP_MS);
    cache.set("a", held("k_a", "t_1"), 0, cache.generation);
    cache.set("b", held("k_b", "t_1"), 0, cache.generation);
    cache.set("c", held("k_c", "t_2"), 0, cache.generation);
    cache.forgetTeam("t_1");
    expect([cache.get("a", 1), cache.get("b", 1), cache.get("c", 1)?.keyId]).toEqual([null, null, "k_c"]);
  });

  it("holds at most MAX_CACHED_KEYS, pushing out the key looked up longest ago", () => {
    const cache = new TeamKeyCache(CATCHUP_MS);
    for (let i = 0; i <= MAX_CACHED_KEYS; i++) {
      cache.set(`h${i}`, held(`k${i}`, "t_1"), 0, cache.generation);
    }
    expect(cache.size).toBe(MAX_CACHED_KEYS);
    expect(cache.get("h0", 1)).toBeNull();
    expect(cache.get(`h${MAX_CACHED_KEYS}`, 1)?.keyId).toBe(`k${MAX_CACHED_KEYS}`);
  });
});

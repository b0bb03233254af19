// `npm run bench -- --suites page`: what the page's search costs a person against the JSON search an API client
// gets, on the same team, index and queries, in one process, alternating. The page's answer adds resolving
// the session cookie (a sealed row opened, the key authenticated again) and rendering HTML; the floor is the
// JSON route with its bearer key. Then the same page search for a person signed in as themselves (a member:
// their row read again on every request, where a key's check is cached) against a key's session, and what a
// sign-in costs by password (argon2id) against one by key.

import { createApp } from "../src/app.js";
import { silentLogger } from "../src/logger.js";
import { Keyring } from "../src/seal/keyring.js";
import { importMasterKeys } from "../src/seal/master.js";
import { openStorage } from "../src/store/storage.js";
import { BENCH_ADMIN as ADMIN, benchConfig } from "./app-config.js";
import { getSampler, mulberry32, passageBody, phrase, randomInt } from "./corpus.js";

const ORIGIN = "http://localhost";
/** Documents of one ~1 KB passage each: enough for searches to do real work, quick to load. */
const DOCUMENTS = 3000;
const QUERIES = 200;
const SEED = 0x70616765;
/** Sign-ins timed of each kind: a member's costs ~15 ms of hashing, so 20 take well under a second. */
const SIGN_INS = 20;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export async function benchPage(): Promise<void> {
  const storage = await openStorage({ url: ":memory:" });
  const memoria = createApp({
    config: benchConfig(),
    storage,
    keyring: new Keyring(await importMasterKeys(crypto.getRandomValues(new Uint8Array(32)))),
    clock: { now: () => new Date() },
    logger: silentLogger,
  });
  const request = (path: string, init: RequestInit = {}) => memoria.app.request(`${ORIGIN}${path}`, init);
  const team = (await (
    await request("/v1/teams", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Bench" }),
    })
  ).json()) as { apiKey: string };
  const bearer = { authorization: `Bearer ${team.apiKey}` };
  const sampler = getSampler();
  const random = mulberry32(SEED);
  for (let i = 0; i < DOCUMENTS; i++) {
    const content = `# ${phrase(sampler, random, 3, true)}\n\n${passageBody(sampler, random, {
      minChars: 900,
      maxChars: 1100,
      minParagraphs: 2,
      maxParagraphs: 3,
    })}`;
    const res = await request("/v1/documents", {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ title: phrase(sampler, random, 3, true), content, path: ["Bench"] }),
    });
    if (res.status !== 201) throw new Error(`document answered ${res.status}`);
  }
  const signIn = await request("/page/sign-in", {
    method: "POST",
    headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key: team.apiKey }).toString(),
    redirect: "manual",
  });
  const cookie = (signIn.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
  if (!cookie.startsWith("memoria_session=")) throw new Error(`sign-in answered ${signIn.status}`);
  // A member, joined by an invite with a password, and signed in by it.
  const invite = (await (
    await request("/v1/invites", {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ role: "member" }),
    })
  ).json()) as { url: string };
  const person = { name: "Bench person", email: "bench@example.com", password: "a bench pass phrase" };
  const joined = await request(new URL(invite.url).pathname, {
    method: "POST",
    headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(person).toString(),
    redirect: "manual",
  });
  const memberCookie = (joined.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
  if (!memberCookie.startsWith("memoria_session=")) throw new Error(`joining answered ${joined.status}`);
  const signInWith = async (fields: Record<string, string>) => {
    const started = performance.now();
    const res = await request("/page/sign-in", {
      method: "POST",
      headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });
    await res.arrayBuffer();
    if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
    return performance.now() - started;
  };
  const queries = Array.from({ length: QUERIES }, () =>
    phrase(sampler, random, randomInt(random, 1, 4), false),
  );
  const timed = async (path: string, headers: Record<string, string>) => {
    const started = performance.now();
    const res = await request(path, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path.split("?")[0]} answered ${res.status}`);
    return performance.now() - started;
  };
  // A warm-up round, then two alternating measured rounds.
  const json: number[] = [];
  const page: number[] = [];
  const member: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const q of queries) {
      const query = new URLSearchParams({ q }).toString();
      const a = await timed(`/v1/search?${query}`, bearer);
      const b = await timed(`/?${query}`, { cookie });
      const c = await timed(`/?${query}`, { cookie: memberCookie });
      if (round > 0) {
        json.push(a);
        page.push(b);
        member.push(c);
      }
    }
  }
  json.sort((x, y) => x - y);
  page.sort((x, y) => x - y);
  member.sort((x, y) => x - y);
  // Sign-ins, alternating: a key's (a hash and a lookup) and a member's (argon2id at 19 MiB, two passes).
  const byKey: number[] = [];
  const byPassword: number[] = [];
  for (let i = 0; i < SIGN_INS + 2; i++) {
    const a = await signInWith({ key: team.apiKey });
    const b = await signInWith({ email: person.email, password: person.password });
    if (i >= 2) {
      byKey.push(a);
      byPassword.push(b);
    }
  }
  byKey.sort((x, y) => x - y);
  byPassword.sort((x, y) => x - y);
  const row = (label: string, value: string) => console.log(`${label.padEnd(52)} ${value}`);
  console.log(
    `\n## the page's search against the JSON search (${DOCUMENTS} documents, ${QUERIES} queries × 2)`,
  );
  for (const p of [50, 99]) {
    const [a, b] = [percentile(json, p), percentile(page, p)];
    row(
      `p${p}: JSON search / page search`,
      `${a.toFixed(2)} ms / ${b.toFixed(2)} ms = ${(b / a).toFixed(2)}×`,
    );
  }
  console.log(`\n## a member's page search against a key's session (the same ${QUERIES} queries × 2)`);
  for (const p of [50, 99]) {
    const [a, b] = [percentile(page, p), percentile(member, p)];
    row(
      `p${p}: key session / member session`,
      `${a.toFixed(2)} ms / ${b.toFixed(2)} ms = ${(b / a).toFixed(2)}×`,
    );
  }
  console.log(`\n## signing in: by team key against by password (argon2id), ${SIGN_INS} each`);
  const [k, w] = [percentile(byKey, 50), percentile(byPassword, 50)];
  row("p50: by key / by password", `${k.toFixed(2)} ms / ${w.toFixed(2)} ms = ${(w / k).toFixed(1)}×`);
  memoria.close();
  storage.close();
}

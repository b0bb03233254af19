// docs/api.md "Many searches at once": a team's waiting searches are bounded (503 `unavailable` with Retry-After
// past MEMORIA_MAX_QUEUE waiting or MEMORIA_QUEUE_TIMEOUT_MS of waiting), and one team's flood does not hold
// up another's. Over real HTTP on loopback. The test holds the one search slot itself (the app's own queue,
// through memoria.searches) so the lines fill deterministically, whatever the machine's load.

import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { errorEnvelopeSchema } from "../../src/http/errors.js";
import { type Served, serveOnLoopback } from "../http/loopback.js";
import { addDocument, buildTestApp, makeTeam, type TestApp } from "../support/app.js";

// Real text nobody here wrote: a package's README from node_modules.
const honoReadme = readFileSync(new URL("../../node_modules/hono/README.md", import.meta.url), "utf8");

let app: TestApp | undefined;
let served: Served | undefined;

afterEach(async () => {
  await served?.close();
  app?.close();
  served = undefined;
  app = undefined;
});

async function start(config: { searchMaxQueue: number; searchQueueTimeoutMs: number }) {
  app = await buildTestApp({ config });
  served = await serveOnLoopback(app);
  const teams = [];
  for (const name of ["Flooding", "Other"]) {
    const team = await makeTeam(app, name);
    await addDocument(app, team.apiKey, { title: "Hono", content: honoReadme, format: "markdown" });
    teams.push(team);
  }
  return { app, base: served.base, flooding: teams[0] as Team, other: teams[1] as Team };
}

interface Team {
  teamId: string;
  apiKey: string;
}

function searchOverHttp(base: string, team: Team, q = "router middleware"): Promise<Response> {
  return fetch(`${base}/v1/search?${new URLSearchParams({ q })}`, {
    headers: { authorization: `Bearer ${team.apiKey}` },
  });
}

/** Holds the search slot until released: every search that arrives meanwhile waits in its team's line. */
function holdSlot(testApp: TestApp): { release(): void; done: Promise<void> } {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { release, done: testApp.memoria.searches.run("held-by-test", () => released) };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function expectUnavailable(res: Response): Promise<void> {
  expect(res.status).toBe(503);
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  const body = errorEnvelopeSchema.parse(await res.json());
  expect(body.error.code).toBe("unavailable");
  expect(body.error.requestId).not.toBe("");
}

describe("GET /v1/search, many at once", () => {
  it("answers 503 unavailable with Retry-After past MEMORIA_MAX_QUEUE waiting, and serves the ones in line", async () => {
    const { app, base, flooding } = await start({ searchMaxQueue: 4, searchQueueTimeoutMs: 60_000 });
    // Warm: the index is built before the slot is held, so nothing waits on a build.
    expect((await searchOverHttp(base, flooding)).status).toBe(200);
    const slot = holdSlot(app);
    const inLine = Array.from({ length: 4 }, () => searchOverHttp(base, flooding));
    await until(() => app.memoria.searches.waiting(flooding.teamId) === 4);
    const refused = await Promise.all(Array.from({ length: 6 }, () => searchOverHttp(base, flooding)));
    for (const res of refused) await expectUnavailable(res);
    expect(refused[0]?.headers.get("retry-after")).toBe("60");
    slot.release();
    await slot.done;
    for (const res of await Promise.all(inLine)) {
      expect(res.status).toBe(200);
      expect(((await res.json()) as { hits: unknown[] }).hits.length).toBeGreaterThan(0);
    }
  });

  it("answers 503 unavailable with Retry-After to a search that waited MEMORIA_QUEUE_TIMEOUT_MS, then serves again", async () => {
    const { app, base, flooding } = await start({ searchMaxQueue: 64, searchQueueTimeoutMs: 50 });
    expect((await searchOverHttp(base, flooding)).status).toBe(200);
    const slot = holdSlot(app);
    // The slot stays held until every one of them has been refused: they time out waiting, not behind it.
    const answers = await Promise.all(Array.from({ length: 5 }, () => searchOverHttp(base, flooding)));
    for (const res of answers) await expectUnavailable(res);
    expect(answers[0]?.headers.get("retry-after")).toBe("1");
    expect(app.memoria.searches.waiting(flooding.teamId)).toBe(0);
    slot.release();
    await slot.done;
    expect((await searchOverHttp(base, flooding)).status).toBe(200);
  });

  it("serves another team's search ahead of a flooding team's line", async () => {
    // Fewer in flight than the failed-authentication limiter's 30 a client address: it counts requests in
    // flight, and every one here comes from 127.0.0.1.
    const FLOOD = 20;
    const { app, base, flooding, other } = await start({
      searchMaxQueue: FLOOD,
      searchQueueTimeoutMs: 60_000,
    });
    expect((await searchOverHttp(base, flooding)).status).toBe(200);
    expect((await searchOverHttp(base, other)).status).toBe(200);
    const slot = holdSlot(app);
    const answered: string[] = [];
    const flood = Array.from({ length: FLOOD }, () =>
      searchOverHttp(base, flooding).then((res) => {
        answered.push("flooding");
        return res;
      }),
    );
    await until(() => app.memoria.searches.waiting(flooding.teamId) === FLOOD);
    const otherSearch = searchOverHttp(base, other).then((res) => {
      answered.push("other");
      return res;
    });
    await until(() => app.memoria.searches.waiting(other.teamId) === 1);
    slot.release();
    const [otherAnswer, ...floodAnswers] = await Promise.all([otherSearch, ...flood]);
    expect(otherAnswer?.status).toBe(200);
    for (const res of floodAnswers) expect(res.status).toBe(200);
    // First come, first served would answer the other team last; in turn its search is the second to run.
    // The answers travel back over sockets, so allow a few flooding ones to land first, never most.
    expect(answered.indexOf("other")).toBeLessThan(FLOOD / 2);
  });
});

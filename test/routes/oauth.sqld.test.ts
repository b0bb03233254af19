// MCP clients signing in with storage on a real sqld (the server Turso runs) on loopback, where every batch is a
// Hrana stream: a code's exchange, a refresh's rotation, a spent refresh token's return ending its family and a
// race of three exchanges of one code behave as on a local file, each change in its one transaction.

import { afterEach, expect } from "vitest";
import { buildTestApp, makeTeam, type TestApp, tempDir } from "../support/app.js";
import { joinAs } from "../support/members.js";
import {
  callTool,
  codeOf,
  codeRequest,
  consent,
  pkce,
  refreshRequest,
  register,
  signIn,
  type Tokens,
} from "../support/oauth.js";
import { needs, outside } from "../support/outside.js";
import { startSqld } from "../support/sqld.js";

needs(outside.sqld).describe("OAuth for /mcp on sqld", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function onSqld(): Promise<TestApp> {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const sqld = await startSqld(tmp.dir);
    cleanups.push(() => sqld.stop());
    // No check cache, so every /mcp call reads its token from sqld.
    const app = await buildTestApp({ dbUrl: sqld.url, config: { catchupMs: 0 } });
    cleanups.push(() => app.close());
    return app;
  }

  needs(outside.sqld).it(
    "signs a member in, rotates refresh tokens, and ends the family when a spent one returns",
    async () => {
      const app = await onSqld();
      const { apiKey } = await makeTeam(app);
      const member = await joinAs(app, apiKey, "member");
      const { clientId } = await register(app);
      const first = await signIn(app, member.browser, clientId);
      expect(
        (await callTool(app, first.access_token, "remember", { title: "On sqld", type: "decision" })).isError,
      ).toBe(false);
      const second = (await (await refreshRequest(app, clientId, first.refresh_token)).json()) as Tokens;
      expect((await callTool(app, second.access_token, "memory", {})).text).toContain("On sqld");
      expect((await refreshRequest(app, clientId, first.refresh_token)).status).toBe(400);
      expect((await callTool(app, second.access_token, "search", { q: "x" })).status).toBe(401);
      expect((await refreshRequest(app, clientId, second.refresh_token)).status).toBe(400);
    },
    120_000,
  );

  needs(outside.sqld).it(
    "lets one of three racing exchanges of a code win, then ends what it issued",
    async () => {
      const app = await onSqld();
      const { apiKey } = await makeTeam(app);
      const member = await joinAs(app, apiKey, "member");
      const { clientId } = await register(app);
      const { verifier, challenge } = pkce();
      const code = codeOf(await consent(member.browser, { clientId, challenge }));
      const answers = await Promise.all([1, 2, 3].map(() => codeRequest(app, clientId, code, verifier)));
      const won = answers.filter((res) => res.status === 200);
      expect(won).toHaveLength(1);
      const tokens = (await won[0]?.json()) as Tokens;
      expect((await callTool(app, tokens.access_token, "search", { q: "x" })).status).toBe(401);
    },
    120_000,
  );
});

// Rotating the master key: with the new key current and the old one as previous, every team still opens and
// its wrapped key is re-wrapped on first use, touching no row; after that the old key is not needed.

import { afterEach, describe, expect, it } from "vitest";
import { addDocument, buildTestApp, makeTeam, newMasterKey, search, tempDir } from "../support/app.js";

describe("master key rotation", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("re-wraps a team key under the new master key on first use, and rows stay as they were", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const oldKey = newMasterKey();
    const newKey = newMasterKey();

    const before = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: oldKey });
    const { apiKey, teamId } = await makeTeam(before);
    await addDocument(before, apiKey, { title: "Plan", content: "The okapi migration." });
    const wrappedBefore = (await before.storage.teams.get(teamId))?.wrappedKey;
    const rowsBefore = await before.storage.client.execute("SELECT sealed FROM chunks");
    before.close();

    const rotating = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: newKey, previousMasterKey: oldKey });
    expect((await search(rotating, apiKey, "okapi")).hits).toHaveLength(1);
    const wrappedAfter = (await rotating.storage.teams.get(teamId))?.wrappedKey;
    expect(wrappedAfter).toBeDefined();
    expect(Buffer.from(wrappedAfter as Uint8Array).equals(Buffer.from(wrappedBefore as Uint8Array))).toBe(
      false,
    );
    const rowsAfter = await rotating.storage.client.execute("SELECT sealed FROM chunks");
    expect(rowsAfter.rows).toEqual(rowsBefore.rows);
    rotating.close();

    const after = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: newKey });
    expect((await search(after, apiKey, "okapi")).hits).toHaveLength(1);
    after.close();

    // The old key alone no longer opens the team: the request fails loudly, it does not look empty.
    const stale = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: oldKey });
    expect((await stale.request("/v1/search?q=okapi", { token: apiKey })).status).toBe(500);
    stale.close();
  });
});

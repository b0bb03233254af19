import { describe, expect, it } from "vitest";
import { importMasterKeys, wrapTeamKey } from "../../src/seal/master.js";
import { checkMasterKeys } from "../../src/seal/master-check.js";
import { generateTeamKeyMaterial } from "../../src/seal/team-key.js";
import { newMasterKey } from "../support/app.js";

describe("checking master keys against stored team keys", () => {
  it("counts the team keys neither the current nor the previous master key opens", async () => {
    const [a, b, c] = [newMasterKey(), newMasterKey(), newMasterKey()];
    const wrapped = async (raw: Uint8Array<ArrayBuffer>, teamId: string) => ({
      teamId,
      wrappedKey: await wrapTeamKey(await importMasterKeys(raw), teamId, generateTeamKeyMaterial()),
    });
    const teamKeys = [await wrapped(a, "t-a"), await wrapped(b, "t-b")];

    expect(await checkMasterKeys(await importMasterKeys(a), teamKeys)).toEqual({ tried: 2, unopened: 1 });
    expect(await checkMasterKeys(await importMasterKeys(a, b), teamKeys)).toEqual({ tried: 2, unopened: 0 });
    expect(await checkMasterKeys(await importMasterKeys(c), teamKeys)).toEqual({ tried: 2, unopened: 2 });
    expect(await checkMasterKeys(await importMasterKeys(c), [])).toEqual({ tried: 0, unopened: 0 });
    // A wrapped key moved onto another team's id does not open: it is bound to its team.
    const moved = [{ teamId: "t-other", wrappedKey: teamKeys[0]?.wrappedKey ?? new Uint8Array() }];
    expect(await checkMasterKeys(await importMasterKeys(a), moved)).toEqual({ tried: 1, unopened: 1 });
  });
});

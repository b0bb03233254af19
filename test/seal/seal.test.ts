import { describe, expect, it } from "vitest";
import { fromBase64, toBase64Url, utf8 } from "../../src/seal/bytes.js";
import { Keyring } from "../../src/seal/keyring.js";
import { importMasterKeys, unwrapTeamKey, wrapTeamKey } from "../../src/seal/master.js";
import { openBytes, SEAL_VERSION, sealBytes } from "../../src/seal/seal.js";
import {
  blindIndex,
  deriveTeamKey,
  generateTeamKeyMaterial,
  openRow,
  sealRow,
} from "../../src/seal/team-key.js";

const master = () => importMasterKeys(crypto.getRandomValues(new Uint8Array(32)));

describe("sealing", () => {
  it("round-trips a value and puts the version byte first", async () => {
    const key = await deriveTeamKey("tone", generateTeamKeyMaterial());
    const sealed = await sealRow(key, "chunks", "c1", { heading: "Revenue", text: "June was good" });
    expect(sealed[0]).toBe(SEAL_VERSION);
    expect(await openRow(key, "chunks", "c1", sealed)).toEqual({ heading: "Revenue", text: "June was good" });
  });

  it("uses a fresh IV for every seal, so equal values never give equal ciphertexts", async () => {
    const key = await deriveTeamKey("tone", generateTeamKeyMaterial());
    const a = await sealRow(key, "chunks", "c1", "same");
    const b = await sealRow(key, "chunks", "c1", "same");
    expect(toBase64Url(a)).not.toBe(toBase64Url(b));
  });

  it("refuses a ciphertext moved to another row, table or team", async () => {
    const raw = generateTeamKeyMaterial();
    const key = await deriveTeamKey("tone", raw);
    const sealed = await sealRow(key, "chunks", "c1", { text: "secret" });
    await expect(openRow(key, "chunks", "c2", sealed)).rejects.toMatchObject({ code: "unreadable" });
    await expect(openRow(key, "documents", "c1", sealed)).rejects.toMatchObject({ code: "unreadable" });
    // Same key bytes under another team id: the additional data differs, so it still fails.
    const other = await deriveTeamKey("ttwo", raw);
    await expect(openRow(other, "chunks", "c1", sealed)).rejects.toMatchObject({ code: "unreadable" });
  });

  it("refuses a flipped bit and an unknown version, naming the row and not its content", async () => {
    const key = await deriveTeamKey("tone", generateTeamKeyMaterial());
    const sealed = await sealRow(key, "chunks", "c1", { text: "zanzibar" });
    const flipped = sealed.slice();
    flipped[20] = (flipped[20] ?? 0) ^ 1;
    const error = await openRow(key, "chunks", "c1", flipped).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "unreadable" });
    expect(String((error as Error).message)).toContain("c1");
    expect(String((error as Error).message)).not.toContain("zanzibar");
    const versioned = sealed.slice();
    versioned[0] = 99;
    await expect(openRow(key, "chunks", "c1", versioned)).rejects.toMatchObject({ code: "unreadable" });
  });

  it("opens nothing with the wrong key", async () => {
    const a = await deriveTeamKey("tone", generateTeamKeyMaterial());
    const b = await deriveTeamKey("tone", generateTeamKeyMaterial());
    await expect(openRow(b, "chunks", "c1", await sealRow(a, "chunks", "c1", 1))).rejects.toMatchObject({
      code: "unreadable",
    });
  });

  it("raw seal rejects truncated input", async () => {
    const key = await crypto.subtle.importKey("raw", new Uint8Array(32), "AES-GCM", false, [
      "encrypt",
      "decrypt",
    ]);
    const sealed = await sealBytes(key, utf8("x"), utf8("aad"));
    await expect(openBytes(key, sealed.slice(0, 10), utf8("aad"), "row")).rejects.toMatchObject({
      code: "unreadable",
    });
  });
});

describe("blind index", () => {
  it("is stable for a team, differs between teams, and is not the id", async () => {
    const raw = generateTeamKeyMaterial();
    const a = await deriveTeamKey("tone", raw);
    const a2 = await deriveTeamKey("tone", raw);
    const b = await deriveTeamKey("ttwo", generateTeamKeyMaterial());
    const ref = await blindIndex(a, "notion:page-1");
    expect(toBase64Url(await blindIndex(a2, "notion:page-1"))).toBe(toBase64Url(ref));
    expect(toBase64Url(await blindIndex(b, "notion:page-1"))).not.toBe(toBase64Url(ref));
    expect(new TextDecoder().decode(ref)).not.toContain("page-1");
    expect(ref.length).toBe(32);
  });
});

describe("team keys under the master key", () => {
  it("wraps and unwraps, bound to the team", async () => {
    const keys = await master();
    const raw = generateTeamKeyMaterial();
    const wrapped = await wrapTeamKey(keys, "tone", raw);
    expect((await unwrapTeamKey(keys, "tone", wrapped)).raw).toEqual(raw);
    await expect(unwrapTeamKey(keys, "ttwo", wrapped)).rejects.toMatchObject({ code: "unreadable" });
  });

  it("rotation: a key wrapped by the previous master opens and comes back re-wrapped by the current one", async () => {
    const oldBytes = crypto.getRandomValues(new Uint8Array(32));
    const newBytes = crypto.getRandomValues(new Uint8Array(32));
    const before = await importMasterKeys(oldBytes);
    const raw = generateTeamKeyMaterial();
    const wrapped = await wrapTeamKey(before, "tone", raw);
    const rotating = await importMasterKeys(newBytes, oldBytes);
    const opened = await unwrapTeamKey(rotating, "tone", wrapped);
    expect(opened.raw).toEqual(raw);
    expect(opened.rewrapped).not.toBeNull();
    const after = await importMasterKeys(newBytes);
    expect((await unwrapTeamKey(after, "tone", opened.rewrapped as Uint8Array)).raw).toEqual(raw);
  });

  it("keyring opens what it created, and forget drops it", async () => {
    const ring = new Keyring(await master());
    const { key, wrapped } = await ring.create("tone");
    const sealed = await sealRow(key, "t", "1", "v");
    const { key: reopened } = await ring.open("tone", wrapped);
    expect(await openRow(reopened, "t", "1", sealed)).toBe("v");
    ring.forget("tone");
    const { key: again } = await ring.open("tone", wrapped);
    expect(await openRow(again, "t", "1", sealed)).toBe("v");
  });
});

describe("base64", () => {
  it("accepts base64 and base64url and rejects junk", () => {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const url = toBase64Url(bytes);
    expect(fromBase64(url)).toEqual(bytes);
    expect(fromBase64(Buffer.from(bytes).toString("base64"))).toEqual(bytes);
    expect(fromBase64("not base64 at all!")).toBeNull();
  });
});

// The one rule: no readable passage at rest. Ingest a corpus full of distinctive words into a file database,
// stop, and scan every file the service wrote (database, WAL, journal, anything else in the directory).

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PageClient } from "../page/browser-client.js";
import { addDocument, buildTestApp, makeTeam, search, tempDir } from "../support/app.js";
import { makeKey } from "../support/keys.js";
import { invitePath, joinAs, sendJoin } from "../support/members.js";
import {
  consent,
  pkce,
  RESOURCE,
  refreshRequest,
  register,
  type Tokens,
  tokenRequest,
} from "../support/oauth.js";

// Words no library, schema or id would contain by chance.
const distinctive = ["quetzalcoatlus", "zymurgyfest", "brontide", "xanthippe", "pellucidar", "ombrophobe"];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Every distinctive word found in any file, as UTF-8 or UTF-16 (SQLite can store either). */
function readableWords(dir: string, words: string[]): string[] {
  const found: string[] = [];
  for (const file of filesUnder(dir)) {
    const bytes = readFileSync(file);
    for (const word of words) {
      for (const encoded of [Buffer.from(word, "utf8"), Buffer.from(word, "utf16le")]) {
        if (bytes.includes(encoded) || bytes.includes(Buffer.from(word.toUpperCase(), "utf8"))) {
          found.push(`${word} in ${file}`);
        }
      }
    }
  }
  return found;
}

/** Every file holding the SHA-256 of `content` in any form it could be stored in: bytes, hex, base64. */
function filesWithHashOf(dir: string, content: string): string[] {
  const digest = createHash("sha256").update(content, "utf8").digest();
  const forms = [
    digest,
    Buffer.from(digest.toString("hex")),
    Buffer.from(digest.toString("hex").toUpperCase()),
    Buffer.from(digest.toString("base64").replace(/=+$/, "")),
    Buffer.from(digest.toString("base64url")),
    Buffer.from(digest.toString("hex"), "utf16le"),
  ];
  return filesUnder(dir).filter((file) => {
    const bytes = readFileSync(file);
    return forms.some((form) => bytes.includes(form));
  });
}

describe("nothing readable at rest", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("leaves no title, heading, body, path, external id or team name readable in any file", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(app, "Team Xanthippe");
    const doc = await addDocument(app, apiKey, {
      title: "Quetzalcoatlus field notes",
      content: "# Zymurgyfest\n\n## Brontide\n\nThe brontide rolled over pellucidar at dawn.\n",
      path: ["Ombrophobe", "Archive"],
      externalId: "file:notes/quetzalcoatlus.md",
    });
    await app.request(`/v1/documents/${doc.id}`, {
      method: "PUT",
      token: apiKey,
      json: { title: "Quetzalcoatlus field notes", content: "Pellucidar revisited: zymurgyfest again." },
    });
    await addDocument(app, apiKey, { title: "Second", content: "brontide ".repeat(2000) });
    // Searching builds the in-memory index; it must not leave anything behind either.
    expect((await search(app, apiKey, "brontide pellucidar")).hits.length).toBeGreaterThan(0);
    app.close();

    const files = filesUnder(tmp.dir);
    expect(files.length).toBeGreaterThan(0);
    expect(readableWords(tmp.dir, distinctive)).toEqual([]);
    // The scan itself works: a word we write in the clear is found.
    expect(
      readableWords(tmp.dir, ["memoria"]).length + readableWords(tmp.dir, ["documents"]).length,
    ).toBeGreaterThan(0);
  });

  it("keeps the name a person gives a key unreadable, and no key or secret of it", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(app);
    const res = await app.request("/v1/keys", {
      method: "POST",
      token: apiKey,
      json: { name: "Xanthippe's quetzalcoatlus agent", scope: "write" },
    });
    expect(res.status).toBe(201);
    const made = (await res.json()) as { apiKey: string };
    const listed = await (await app.request("/v1/keys", { token: apiKey })).text();
    expect(listed).toContain("Xanthippe's quetzalcoatlus agent");
    app.close();

    expect(readableWords(tmp.dir, ["xanthippe", "quetzalcoatlus"])).toEqual([]);
    // Everything after `mem_<teamId>_`: a secret may hold underscores itself.
    const secret = made.apiKey.slice(made.apiKey.indexOf("_", "mem_".length) + 1);
    expect(secret.length).toBeGreaterThan(20);
    expect(readableWords(tmp.dir, [made.apiKey, secret])).toEqual([]);
    // The scan itself works: the scope is kept readable, and is found.
    expect(readableWords(tmp.dir, ["write"]).length).toBeGreaterThan(0);
  });

  it("keeps a member's name, address, password and invite code unreadable, and no hash of the address or code unkeyed", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(app);
    const path = await invitePath(app, apiKey, "member");
    const code = path.slice(path.lastIndexOf("/") + 1);
    const joined = await joinAs(app, apiKey, "member", {
      name: "Xanthippe Quetzalcoatlus",
      email: "brontide@pellucidar.example",
      password: "zymurgyfest ombrophobe",
    });
    const browser = new PageClient(app);
    const spent = await sendJoin(browser, path, {
      name: "Ombrophobe Second",
      email: "ombrophobe@pellucidar.example",
      password: "zymurgyfest second one",
    });
    expect(spent.status).toBe(303);
    // Signing in again reads the sealed row back.
    const again = await new PageClient(app).post(
      "/page/sign-in",
      new URLSearchParams({ email: joined.email, password: joined.password }),
    );
    expect(again.status).toBe(303);
    app.close();

    expect(
      readableWords(tmp.dir, [
        "xanthippe",
        "quetzalcoatlus",
        "brontide",
        "pellucidar",
        "zymurgyfest",
        "ombrophobe",
        code,
      ]),
    ).toEqual([]);
    // An invite code is kept as its SHA-256 (256 random bits: no guess can confirm one); the address is not
    // kept as any unkeyed hash, so a guessed address cannot be confirmed from the files.
    expect(filesWithHashOf(tmp.dir, code).length).toBeGreaterThan(0);
    expect(filesWithHashOf(tmp.dir, joined.email)).toEqual([]);
    // The scan itself works: the role is kept readable, and is found.
    expect(readableWords(tmp.dir, ["member"]).length).toBeGreaterThan(0);
  });

  it("keeps an OAuth client's name and redirect URI, and every code and token, unreadable; tokens only as hashes", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(app);
    const member = await joinAs(app, apiKey, "member");
    const redirect = "https://brontide.example/pellucidar/callback";
    const { clientId } = await register(app, {
      redirect_uris: [redirect],
      client_name: "Xanthippe Zymurgyfest",
      token_endpoint_auth_method: "none",
    });
    const { verifier, challenge } = pkce();
    const answer = await consent(member.browser, {
      clientId,
      challenge,
      redirectUri: redirect,
      state: "ombrophobe",
    });
    const code = new URL(answer.headers.get("location") ?? "").searchParams.get("code") ?? "";
    const exchanged = await tokenRequest(app, {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: redirect,
      resource: RESOURCE,
    });
    expect(exchanged.status).toBe(200);
    const tokens = (await exchanged.json()) as Tokens;
    const refreshed = (await (await refreshRequest(app, clientId, tokens.refresh_token)).json()) as Tokens;
    expect(refreshed.access_token).toBeTruthy();
    app.close();

    expect(
      readableWords(tmp.dir, [
        "xanthippe",
        "zymurgyfest",
        "brontide",
        "pellucidar",
        "ombrophobe",
        clientId.slice(4, 40),
        code,
        verifier,
        challenge,
        tokens.access_token,
        tokens.refresh_token,
        refreshed.access_token,
        refreshed.refresh_token,
      ]),
    ).toEqual([]);
    // Codes and tokens are found by their SHA-256 alone (256 random bits: no guess can confirm one).
    for (const token of [code, refreshed.access_token, refreshed.refresh_token])
      expect(filesWithHashOf(tmp.dir, token).length).toBeGreaterThan(0);
    // The client's id is not stored at all: its record travels in it.
    expect(filesWithHashOf(tmp.dir, clientId)).toEqual([]);
  });

  it("keeps the audit trail sealed: no action, actor or target of an event readable, only its id and time", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(app);
    const agent = await makeKey(app, apiKey, "write", { name: "agent" });
    const doc = await addDocument(app, agent.apiKey, { title: "Pellucidar", content: "Ombrophobe notes." });
    await app.request(`/v1/documents/${doc.id}`, {
      method: "PUT",
      token: agent.apiKey,
      json: { title: "Pellucidar", content: "Brontide notes." },
    });
    const entry = await app.request("/v1/entries", {
      method: "POST",
      token: apiKey,
      json: { title: "Zymurgy" },
    });
    const { entry: made } = (await entry.json()) as { entry: { id: string } };
    await app.request(`/v1/entries/${made.id}`, { method: "DELETE", token: apiKey });
    await app.request(`/v1/keys/${agent.keyId}`, { method: "DELETE", token: apiKey });
    await app.request("/v1/sources/webhook", { method: "PUT", token: apiKey });
    await app.request("/v1/sources/webhook", { method: "DELETE", token: apiKey });
    const events = (await (await app.request("/v1/audit", { token: apiKey })).json()) as {
      events: { id: string; at: string }[];
    };
    // The team's first key and first owner's invite, the agent key, a document created and replaced, an entry
    // remembered and forgotten, the agent revoked, the webhook set and removed.
    expect(events.events.length).toBe(10);
    const rows = await app.storage.client.execute("SELECT * FROM audit_events");
    app.close();

    const actions = [
      "document.replaced",
      "entry.remembered",
      "entry.forgotten",
      "key.revoked",
      "source.removed",
    ];
    expect(readableWords(tmp.dir, actions)).toEqual([]);
    // Ids of keys, documents and entries are readable in their own tables; the events do not repeat them.
    expect(rows.columns).toEqual(["team_id", "id", "at", "sealed"]);
    for (const row of rows.rows) {
      const sealed = Buffer.from(row.sealed as ArrayBuffer);
      for (const id of [agent.keyId, doc.id, made.id, "webhook", "document"]) {
        expect(sealed.includes(Buffer.from(id))).toBe(false);
      }
    }
    // The scan itself works: an event's id is kept readable, and is found.
    expect(readableWords(tmp.dir, [events.events[0]?.id ?? "none"]).length).toBeGreaterThan(0);
  });

  it("leaves nothing readable of a batch: titles, contents, paths and external ids written together", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(app);
    const words = ["sphygmomanometer", "triskaidekaphile"];
    const documents = Array.from({ length: 120 }, (_, i) => ({
      title: `Sphygmomanometer log ${i}`,
      content: `# Triskaidekaphile\n\nReading ${i}: the sphygmomanometer said thirteen.\n`,
      path: ["Triskaidekaphile"],
      ...(i % 3 === 0 ? { externalId: `file:sphygmomanometer/${i}.md` } : {}),
    }));
    const res = await app.request("/v1/documents/batch", {
      method: "POST",
      token: apiKey,
      json: { documents },
    });
    expect(res.status).toBe(200);
    expect((await search(app, apiKey, "sphygmomanometer")).hits.length).toBeGreaterThan(0);
    app.close();
    expect(readableWords(tmp.dir, words)).toEqual([]);
  });

  it("leaves no entry title, impact, body, project, type or memory query readable in any file", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(app);
    // One marker per field, so a field stored in the clear is named by the word found.
    const fields = {
      title: "Gallimaufry rollout postponed",
      impact: "Spoonerism budget frozen",
      body: "The borborygmus in the queue worker came back after the flensing.",
      project: "kakistocracy",
      type: "callipygian",
    };
    const markers = ["gallimaufry", "spoonerism", "borborygmus", "flensing", "kakistocracy", "callipygian"];
    const post = (json: Record<string, string>) =>
      app.request("/v1/entries", { method: "POST", token: apiKey, json });
    const kept = await post(fields);
    expect(kept.status).toBe(201);
    // A second entry, deleted: the pages its sealed row freed must not hold its words either.
    const doomed = await post({ ...fields, title: "Gallimaufry again", body: "borborygmus ".repeat(2000) });
    expect(doomed.status).toBe(201);
    const doomedId = ((await doomed.json()) as { entry: { id: string } }).entry.id;
    expect((await app.request(`/v1/entries/${doomedId}`, { method: "DELETE", token: apiKey })).status).toBe(
      204,
    );
    // Working memory builds the entry index and takes a query: neither may leave anything behind.
    const memory = await app.request("/v1/memory?q=gallimaufry+spoonerism+borborygmus&project=kakistocracy", {
      token: apiKey,
    });
    expect(((await memory.json()) as { included: number }).included).toBe(1);
    app.close();

    expect(filesUnder(tmp.dir).length).toBeGreaterThan(0);
    expect(readableWords(tmp.dir, markers)).toEqual([]);
    expect(readableWords(tmp.dir, ["entries"]).length).toBeGreaterThan(0);
  });

  it("keeps no document's content hash at rest: a guessed document cannot be confirmed from the files", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(app);
    const contents = [
      "# Quetzalcoatlus\n\nThe merger closes on the ninth; tell nobody.\n",
      "Zymurgyfest budget: 41,000.",
      "",
    ];
    const hashes: string[] = [];
    for (const content of contents) {
      const res = await app.request("/v1/documents", {
        method: "POST",
        token: apiKey,
        json: { title: "Guessable", content },
      });
      hashes.push(((await res.json()) as { document: { contentHash: string } }).document.contentHash);
    }
    const raw = "# Brontide\n\nA raw upload, hashed the same way.\n";
    const rawRes = await app.request("/v1/documents", {
      method: "POST",
      token: apiKey,
      headers: { "content-type": "text/markdown" },
      body: raw,
    });
    hashes.push(((await rawRes.json()) as { document: { contentHash: string } }).document.contentHash);
    app.close();

    // The answers carry the hashes the scan looks for, so the scan is looking for the right thing ...
    expect(hashes).toEqual(
      [...contents, raw].map((c) => createHash("sha256").update(c, "utf8").digest("hex")),
    );
    for (const content of [...contents, raw]) expect(filesWithHashOf(tmp.dir, content)).toEqual([]);
    // ... and it finds one written in the clear.
    const control = join(tmp.dir, "control.txt");
    writeFileSync(control, `sealed: ${hashes[0]}`);
    expect(filesWithHashOf(tmp.dir, contents[0] ?? "")).toEqual([control]);
  });

  it("keeps an Idempotency-Key and the answer it remembers unreadable, as text, hex or base64", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(app);
    const key = "idem-Sesquipedalian-4711";
    const title = "Tintinnabulation ledger";
    const send = (path: string, json: Record<string, string>) =>
      app.request(path, { method: "POST", token: apiKey, json, headers: { "idempotency-key": key } });
    for (let i = 0; i < 2; i++) {
      expect((await send("/v1/documents", { title, content: "Bells." })).status).toBe(201);
    }
    const entryBody = { title: "Defenestration drill" };
    const entry = (json: Record<string, string>) =>
      app.request("/v1/entries", {
        method: "POST",
        token: apiKey,
        json,
        headers: { "idempotency-key": `${key}-entry` },
      });
    for (let i = 0; i < 2; i++) expect((await entry(entryBody)).status).toBe(201);
    const rows = await app.storage.client.execute("SELECT COUNT(*) AS n FROM idempotency_keys");
    expect(Number(rows.rows[0]?.n)).toBe(2);
    app.close();

    const markers = ["sesquipedalian", "tintinnabulation", "defenestration"];
    const encodings = (word: string) =>
      [word, word.toLowerCase(), word[0]?.toUpperCase() + word.slice(1)].flatMap((w) => [
        Buffer.from(w, "utf8"),
        Buffer.from(w, "utf16le"),
        Buffer.from(Buffer.from(w, "utf8").toString("hex"), "utf8"),
        Buffer.from(Buffer.from(w, "utf8").toString("base64").replace(/=+$/, ""), "utf8"),
      ]);
    const found: string[] = [];
    for (const file of filesUnder(tmp.dir)) {
      const bytes = readFileSync(file);
      for (const secret of [key, `${key}-entry`, title, ...markers]) {
        for (const encoded of encodings(secret)) {
          if (bytes.includes(encoded)) found.push(`${secret} in ${file}`);
        }
      }
    }
    expect(found).toEqual([]);
    // The scan itself works: a word we write in the clear is found.
    expect(readableWords(tmp.dir, ["idempotency_keys"]).length).toBeGreaterThan(0);
  });
});

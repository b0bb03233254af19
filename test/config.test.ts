import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../src/config.js";
import { defaultIndexMemoryMb, searchThreadsFor } from "../src/runtime/start.js";
import { toBase64Url } from "../src/seal/bytes.js";
import { ALL_TUNING_ON, tuningMechanisms } from "../src/tuning.js";

const key = toBase64Url(new Uint8Array(32).fill(7));

describe("configuration", () => {
  it("defaults to the embedded database and the documented values", () => {
    const config = parseConfig({});
    expect(config.db.url).toBe("file:.memoria/memoria.db");
    expect(config.port).toBe(8787);
    expect(config.host).toBe("127.0.0.1");
    expect(config.maxDocumentBytes).toBe(5_242_880);
    expect(config.maxBatchBytes).toBe(67_108_864);
    expect(parseConfig({ MEMORIA_MAX_BATCH_BYTES: "1048576" }).maxBatchBytes).toBe(1_048_576);
    expect(config.catchupMs).toBe(2000);
    expect(config.notionApiUrl).toBe("https://api.notion.com");
    expect(config.logLevel).toBe("info");
    expect(config.masterKey).toBeNull();
    expect(config.production).toBe(false);
  });

  it("accepts a base64 or base64url master key of 32 bytes", () => {
    expect(parseConfig({ MEMORIA_MASTER_KEY: key }).masterKey?.length).toBe(32);
    const standard = Buffer.from(new Uint8Array(32).fill(250)).toString("base64");
    expect(parseConfig({ MEMORIA_MASTER_KEY: standard }).masterKey?.length).toBe(32);
  });

  it.each([
    ["PORT", "eighty"],
    ["PORT", "70000"],
    ["MEMORIA_DB_URL", "postgres://x"],
    ["MEMORIA_MASTER_KEY", "c2hvcnQ"],
    ["MEMORIA_MASTER_KEY_PREVIOUS", "%%%"],
    ["MEMORIA_MAX_DOCUMENT_BYTES", "-1"],
    ["MEMORIA_MAX_DOCUMENT_BYTES", "lots"],
    ["MEMORIA_MAX_BATCH_BYTES", "0"],
    ["MEMORIA_MAX_BATCH_BYTES", "64MiB"],
    ["MEMORIA_CATCHUP_MS", "soon"],
    ["MEMORIA_LOG_LEVEL", "chatty"],
    ["MEMORIA_NOTION_API_URL", "not a url"],
    ["MEMORIA_ADMIN_TOKEN", "short"],
    ["MEMORIA_DB_SYNC_INTERVAL", "0"],
    ["MEMORIA_DB_SYNC_INTERVAL", "often"],
    ["MEMORIA_HOST", "bad host"],
    ["MEMORIA_HOST", "http://0.0.0.0"],
    ["MEMORIA_HOST", "[::1]"],
    ["MEMORIA_HOST", "999.1.1.1"],
    ["MEMORIA_HOST", "0.0.0.0:8080"],
    ["MEMORIA_METRICS_TOKEN", "short"],
    ["MEMORIA_RATE_LIMIT", "-1"],
    ["MEMORIA_RATE_LIMIT", "many"],
    ["MEMORIA_TRUST_PROXY", "x forwarded for"],
    ["MEMORIA_TRUST_PROXY", "true"],
    ["MEMORIA_ALLOWED_ORIGINS", "*"],
    ["MEMORIA_ALLOWED_ORIGINS", "https://app.example.com/path"],
    ["MEMORIA_ALLOWED_ORIGINS", "app.example.com"],
    ["MEMORIA_ALLOWED_ORIGINS", "ftp://files.example.com"],
    ["MEMORIA_TUNING_OFF", "idle-collection,turbo"],
    ["MEMORIA_TUNING_OFF", "idle collection"],
  ])("a bad %s stops the start with a message naming it", (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(name);
  });

  it("takes an OpenID Connect provider only whole, and only over https, never echoing its secret", () => {
    const oidc = {
      MEMORIA_OIDC_ISSUER: "https://login.example.com",
      MEMORIA_OIDC_CLIENT_ID: "memoria",
      MEMORIA_OIDC_CLIENT_SECRET: "a-client-secret-value",
    };
    expect(parseConfig({}).oidc).toBeNull();
    expect(parseConfig(oidc).oidc).toEqual({
      issuer: "https://login.example.com",
      clientId: "memoria",
      clientSecret: "a-client-secret-value",
    });
    expect(() => parseConfig({ MEMORIA_OIDC_ISSUER: oidc.MEMORIA_OIDC_ISSUER })).toThrow(/go together/);
    expect(() => parseConfig({ ...oidc, MEMORIA_OIDC_ISSUER: "http://login.example.com" })).toThrow(
      /MEMORIA_OIDC_ISSUER must be an https:\/\/ URL/,
    );
    try {
      parseConfig({ ...oidc, MEMORIA_OIDC_CLIENT_ID: "", MEMORIA_OIDC_ISSUER: "not a url" });
    } catch (error) {
      expect(String(error)).not.toContain("a-client-secret-value");
    }
  });

  it("never echoes a secret value in its message", () => {
    try {
      parseConfig({ MEMORIA_MASTER_KEY: "hunter2hunter2" });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain("hunter2");
    }
  });

  it("syncs an embedded replica every 5 seconds unless told otherwise", () => {
    const replica = { MEMORIA_DB_URL: "file:replica.db", MEMORIA_DB_SYNC_URL: "https://primary.example" };
    expect(parseConfig(replica).db).toMatchObject({
      syncUrl: "https://primary.example",
      syncIntervalSeconds: 5,
    });
    expect(parseConfig({ ...replica, MEMORIA_DB_SYNC_INTERVAL: "30" }).db.syncIntervalSeconds).toBe(30);
  });

  it("refuses a sync URL unless the database is a local file to replicate into", () => {
    expect(() =>
      parseConfig({ MEMORIA_DB_URL: "libsql://db.example", MEMORIA_DB_SYNC_URL: "https://primary.example" }),
    ).toThrow(/MEMORIA_DB_SYNC_URL needs MEMORIA_DB_URL to be a file: path/);
  });

  it.each([
    "0.0.0.0",
    "10.1.2.3",
    "::",
    "::1",
    "fe80::1",
    "localhost",
    "memoria.internal",
    "db-1.example.com",
  ])("listens on MEMORIA_HOST=%s as given", (host) => {
    expect(parseConfig({ MEMORIA_HOST: host }).host).toBe(host);
  });

  it("takes an index memory budget in MiB, leaving the default to the runtime: a quarter, capped", () => {
    expect(parseConfig({}).indexMemoryMb).toBeNull();
    expect(parseConfig({ MEMORIA_INDEX_MEMORY_MB: "512" }).indexMemoryMb).toBe(512);
    for (const bad of ["0", "-1", "1.5", "lots"]) {
      expect(() => parseConfig({ MEMORIA_INDEX_MEMORY_MB: bad }), bad).toThrow(ConfigError);
    }
    const gib = 1024 * 1024 * 1024;
    expect(defaultIndexMemoryMb(8 * gib)).toBe(2048);
    expect(defaultIndexMemoryMb(256 * gib)).toBe(8192);
    expect(defaultIndexMemoryMb(1024 * 1024)).toBe(1);
  });

  it("takes MEMORIA_SNAPSHOT_MIN_CHUNKS as a whole number, 0 included, and leaves the default to the live layer", () => {
    expect(parseConfig({}).snapshotMinChunks).toBeNull();
    expect(parseConfig({ MEMORIA_SNAPSHOT_MIN_CHUNKS: "0" }).snapshotMinChunks).toBe(0);
    expect(parseConfig({ MEMORIA_SNAPSHOT_MIN_CHUNKS: "25000" }).snapshotMinChunks).toBe(25000);
    for (const bad of ["-1", "1.5", "many"]) {
      expect(() => parseConfig({ MEMORIA_SNAPSHOT_MIN_CHUNKS: bad }), bad).toThrow(
        /MEMORIA_SNAPSHOT_MIN_CHUNKS/,
      );
    }
  });

  it("turns search feedback on unless MEMORIA_SEARCH_FEEDBACK is off, and refuses any other word", () => {
    expect(parseConfig({}).searchFeedback).toBe(true);
    expect(parseConfig({ MEMORIA_SEARCH_FEEDBACK: "off" }).searchFeedback).toBe(false);
    expect(parseConfig({ MEMORIA_SEARCH_FEEDBACK: "on" }).searchFeedback).toBe(true);
    expect(parseConfig({ MEMORIA_SEARCH_FEEDBACK: "" }).searchFeedback).toBe(true);
    for (const bad of ["yes", "ON", "1", "false"]) {
      expect(() => parseConfig({ MEMORIA_SEARCH_FEEDBACK: bad }), bad).toThrow(/MEMORIA_SEARCH_FEEDBACK/);
    }
  });

  it("bounds a team's waiting searches at 64 and 2000 ms unless told otherwise, and refuses 0 or words", () => {
    const defaults = parseConfig({});
    expect(defaults.searchMaxQueue).toBe(64);
    expect(defaults.searchQueueTimeoutMs).toBe(2000);
    const set = parseConfig({ MEMORIA_MAX_QUEUE: "8", MEMORIA_QUEUE_TIMEOUT_MS: "500" });
    expect(set.searchMaxQueue).toBe(8);
    expect(set.searchQueueTimeoutMs).toBe(500);
    for (const bad of ["0", "-1", "many", "1.5"]) {
      expect(() => parseConfig({ MEMORIA_MAX_QUEUE: bad }), bad).toThrow(/MEMORIA_MAX_QUEUE/);
      expect(() => parseConfig({ MEMORIA_QUEUE_TIMEOUT_MS: bad }), bad).toThrow(/MEMORIA_QUEUE_TIMEOUT_MS/);
    }
  });

  it("takes MEMORIA_SEARCH_THREADS as a whole number from 1, and leaves the default (one per core) to the runtime", () => {
    expect(parseConfig({}).searchThreads).toBeNull();
    expect(parseConfig({ MEMORIA_SEARCH_THREADS: "1" }).searchThreads).toBe(1);
    expect(parseConfig({ MEMORIA_SEARCH_THREADS: "8" }).searchThreads).toBe(8);
    expect(searchThreadsFor({ searchThreads: 1, searchQueueTimeoutMs: 2000 })).toBeNull();
    for (const bad of ["0", "-2", "all", "1.5", "100000"]) {
      expect(() => parseConfig({ MEMORIA_SEARCH_THREADS: bad }), bad).toThrow(/MEMORIA_SEARCH_THREADS/);
    }
  });

  it("limits 1200 requests a minute per credential by default, and none at 0", () => {
    expect(parseConfig({}).rateLimit).toBe(1200);
    expect(parseConfig({ MEMORIA_RATE_LIMIT: "20" }).rateLimit).toBe(20);
    expect(parseConfig({ MEMORIA_RATE_LIMIT: "0" }).rateLimit).toBe(0);
  });

  it("reads the socket's address unless told which proxy header to trust (compared lower-case)", () => {
    expect(parseConfig({}).trustProxy).toBeNull();
    expect(parseConfig({ MEMORIA_TRUST_PROXY: "CF-Connecting-IP" }).trustProxy).toBe("cf-connecting-ip");
  });

  it("takes a metrics token and a list of allowed origins, normalised", () => {
    expect(parseConfig({}).metricsToken).toBeNull();
    expect(parseConfig({ MEMORIA_METRICS_TOKEN: "m".repeat(16) }).metricsToken).toBe("m".repeat(16));
    expect(parseConfig({}).allowedOrigins).toEqual([]);
    expect(
      parseConfig({
        MEMORIA_ALLOWED_ORIGINS: "https://App.Example.com, http://localhost:3000/,https://x.example:443",
      }).allowedOrigins,
    ).toEqual(["https://app.example.com", "http://localhost:3000", "https://x.example"]);
  });

  it("treats empty strings as unset", () => {
    expect(parseConfig({ PORT: "", MEMORIA_MASTER_KEY: "" }).port).toBe(8787);
  });
});

describe("MEMORIA_TUNING_OFF", () => {
  it("turns off the mechanisms it names and leaves every other on", () => {
    expect(parseConfig({}).tuning).toEqual(ALL_TUNING_ON);
    expect(parseConfig({ MEMORIA_TUNING_OFF: "" }).tuning).toEqual(ALL_TUNING_ON);
    const tuning = parseConfig({ MEMORIA_TUNING_OFF: " malloc-trim, whole-merge ," }).tuning;
    expect(tuningMechanisms.filter((name) => !tuning[name]).sort()).toEqual(["malloc-trim", "whole-merge"]);
    expect(tuningMechanisms.filter((name) => tuning[name])).toHaveLength(tuningMechanisms.length - 2);
  });

  it("names the mechanisms there are when it is given one that is not", () => {
    expect(() => parseConfig({ MEMORIA_TUNING_OFF: "turbo" })).toThrow(/idle-collection/);
  });
});

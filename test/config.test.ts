import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../src/config.js";
import { toBase64Url } from "../src/seal/bytes.js";

const key = toBase64Url(new Uint8Array(32).fill(7));

describe("configuration", () => {
  it("defaults to the embedded database and the documented values", () => {
    const config = parseConfig({});
    expect(config.db.url).toBe("file:.memoria/memoria.db");
    expect(config.port).toBe(8787);
    expect(config.host).toBe("127.0.0.1");
    expect(config.maxDocumentBytes).toBe(5_242_880);
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
  ])("a bad %s stops the start with a message naming it", (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(name);
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

  it("treats empty strings as unset", () => {
    expect(parseConfig({ PORT: "", MEMORIA_MASTER_KEY: "" }).port).toBe(8787);
  });
});

import { statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config.js";
import { dataDirectory, withLocalSecrets } from "../../src/runtime/local-secrets.js";
import { tempDir } from "../support/app.js";

describe("local secrets for a fresh npm start", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("generates a master key and an admin token beside the database, mode 0600, and reuses them", () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const first = withLocalSecrets(parseConfig({ MEMORIA_DB_URL: tmp.dbUrl }));
    expect(first.config.masterKey?.length).toBe(32);
    expect(first.config.adminToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.notices.join("\n")).toMatch(/WARNING: MEMORIA_MASTER_KEY is not set/);
    // Where the token is, never the token: a start's output ends in logs.
    expect(first.notices.join("\n")).toContain(
      `Generated an admin token into ${join(tmp.dir, "admin.token")}`,
    );
    expect(first.notices.join("\n")).not.toContain(first.config.adminToken as string);
    for (const name of ["master.key", "admin.token"]) {
      expect(statSync(join(tmp.dir, name)).mode & 0o777).toBe(0o600);
    }
    const second = withLocalSecrets(parseConfig({ MEMORIA_DB_URL: tmp.dbUrl }));
    expect(second.config.masterKey).toEqual(first.config.masterKey);
    expect(second.config.adminToken).toBe(first.config.adminToken);
    expect(second.notices.join("\n")).not.toContain(first.config.adminToken as string);
  });

  it("refuses to start in production without MEMORIA_MASTER_KEY", () => {
    expect(() => withLocalSecrets(parseConfig({ NODE_ENV: "production" }))).toThrow(ConfigError);
    expect(() => withLocalSecrets(parseConfig({ NODE_ENV: "production" }))).toThrow(/MEMORIA_MASTER_KEY/);
  });

  it("in production an unset admin token stays unset (admin routes disabled)", () => {
    const key = Buffer.from(new Uint8Array(32).fill(1)).toString("base64");
    const { config } = withLocalSecrets(parseConfig({ NODE_ENV: "production", MEMORIA_MASTER_KEY: key }));
    expect(config.adminToken).toBeNull();
  });

  it("keeps local state beside a file database, and in .memoria otherwise", () => {
    expect(dataDirectory("file:/var/lib/memoria/db.sqlite")).toBe("/var/lib/memoria");
    expect(dataDirectory("libsql://example.turso.io")).toMatch(/\.memoria$/);
  });
});

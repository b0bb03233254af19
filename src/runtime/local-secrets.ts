// Development defaults for a fresh `npm start`: a master key and an admin token generated into files beside
// the database (mode 0600), used when the environment sets none and NODE_ENV is not production. Also, in
// every mode, the folder a `file:` database goes in (0700), which libSQL will not create itself.

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "../config.js";
import { ConfigError } from "../config.js";
import { decodeMasterKey, generateMasterKeyText, MASTER_KEY_BYTES } from "../seal/master.js";
import { generateSecret } from "../seal/secret.js";

export interface LocalSecrets {
  config: Config;
  /** Lines to print once at start: the files generated or used, never a secret in them. */
  notices: string[];
}

/** The folder that holds local state: beside a `file:` database, else `.memoria`. */
export function dataDirectory(dbUrl: string): string {
  if (!dbUrl.startsWith("file:")) return resolve(".memoria");
  const path = dbUrl.startsWith("file://")
    ? fileURLToPath(dbUrl)
    : (dbUrl.slice("file:".length).split("?")[0] ?? "");
  return dirname(resolve(path));
}

function readOrCreate(file: string, make: () => string): { value: string; created: boolean } {
  if (existsSync(file)) return { value: readFileSync(file, "utf8").trim(), created: false };
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return { value, created: true };
}

export function withLocalSecrets(config: Config): LocalSecrets {
  const notices: string[] = [];
  // A folder that exists is the operator's and keeps its mode; one made here is memoria's own, 0700.
  if (config.db.url.startsWith("file:")) {
    mkdirSync(dataDirectory(config.db.url), { recursive: true, mode: 0o700 });
  }
  if (config.production) {
    if (!config.masterKey)
      throw new ConfigError("Invalid configuration: MEMORIA_MASTER_KEY is required in production.");
    return { config, notices };
  }
  const dir = dataDirectory(config.db.url);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let { masterKey, adminToken } = config;
  if (!masterKey) {
    const file = join(dir, "master.key");
    const { value, created } = readOrCreate(file, generateMasterKeyText);
    const bytes = decodeMasterKey(value);
    if (!bytes) {
      throw new ConfigError(
        `Invalid configuration: ${file} does not hold a ${MASTER_KEY_BYTES}-byte base64 key.`,
      );
    }
    masterKey = bytes;
    notices.push(
      `WARNING: MEMORIA_MASTER_KEY is not set; using the ${created ? "newly generated" : "generated"} key in ${file}. ` +
        "Anyone with that file and the database can read every team's data. Set MEMORIA_MASTER_KEY in production.",
    );
  }
  if (!adminToken) {
    const file = join(dir, "admin.token");
    const { value, created } = readOrCreate(file, generateSecret);
    adminToken = value;
    notices.push(
      created
        ? // Where it is, never the token itself: a start's output goes to logs a supervisor keeps.
          `Generated an admin token into ${file} (mode 0600; read it with: cat ${file}).`
        : `MEMORIA_ADMIN_TOKEN is not set; using the admin token in ${file}.`,
    );
  }
  return { config: { ...config, masterKey, adminToken }, notices };
}

#!/usr/bin/env node
// `npm run deploy:check`: builds the Cloudflare Worker exactly as `wrangler deploy` would, offline, and checks
// what a dry run lets through. Exit 0 when everything holds, 1 with one line per problem otherwise.
//
//   1. `wrangler deploy --dry-run --outdir … --metafile …` against a copy of wrangler.toml whose container
//      image is a registry reference instead of ./Dockerfile (a Dockerfile image makes wrangler run
//      `docker build`, and there is no Docker here). The copy is written beside wrangler.toml, as JSON, and
//      removed afterwards; wrangler.toml itself is only read. The dry run fails on a missing
//      compatibility_date, a container class without a Durable Object binding, a class the bundle does not
//      export, a bad instance type.
//   2. What the dry run only warns about or does not look at:
//      - every Durable Object class (bound or a container) is created by a [[migrations]] block as a
//        SQLite-backed class (`new_sqlite_classes`, following renames and deletions);
//      - every cron is a valid five-field expression;
//      - the bundle (from esbuild's metafile, and its text) imports nothing but `cloudflare:*` modules: no
//        `node:` built-in, no bare Node built-in, no native `.node` addon or native storage driver, and none of
//        memoria's storage or index code.
//   3. worker-configuration.d.ts (the Env types, committed; made by `wrangler types … --include-runtime=false
//      --strict-vars=false`) is current for wrangler.toml: `wrangler types --check`.
//
// Options: --outdir <dir> (default .wrangler-check/bundle), --config <file> (default wrangler.toml; another
// config skips step 3 unless --types <file> is given).

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const wranglerBin = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
/** Stands in for ./Dockerfile in the copy: any registry reference makes the dry run skip `docker build`. */
const CHECK_IMAGE = "registry.cloudflare.com/memoria:check";
const TYPES_REGENERATE =
  "npx wrangler types worker-configuration.d.ts --include-runtime=false --strict-vars=false && " +
  "npx biome format --write worker-configuration.d.ts";

function parseArgs(argv) {
  const args = { outdir: join(root, ".wrangler-check", "bundle"), config: null, types: null };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (!["--outdir", "--config", "--types"].includes(flag) || value === undefined) {
      console.error(`deploy-check: unknown or incomplete option ${flag}`);
      process.exit(2);
    }
    args[flag.slice(2)] = resolve(value);
    i++;
  }
  const defaultConfig = args.config === null;
  args.config ??= join(root, "wrangler.toml");
  if (defaultConfig && args.types === null) args.types = join(root, "worker-configuration.d.ts");
  return args;
}

const wranglerEnv = (outdir) => ({
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_LOG_PATH: join(outdir, "logs"),
  // No prompts, no colours in what we print back.
  CI: "true",
  FORCE_COLOR: "0",
  NO_COLOR: "1",
});

function wrangler(args, outdir) {
  const run = spawnSync(process.execPath, [wranglerBin, ...args], {
    cwd: root,
    env: wranglerEnv(outdir),
    encoding: "utf8",
    timeout: 180_000,
  });
  return {
    status: run.status ?? 1,
    output: `${run.stdout ?? ""}${run.stderr ?? ""}`.trim(),
    error: run.error,
  };
}

// ---- Checks on the configuration ----

/** Every Durable Object class the Worker defines: bound here without script_name, or a container class. */
function durableObjectClasses(config) {
  const classes = new Set();
  for (const binding of config.durable_objects?.bindings ?? []) {
    if (!binding.script_name) classes.add(binding.class_name);
  }
  for (const container of config.containers ?? []) classes.add(container.class_name);
  return classes;
}

/** Classes the migrations leave, each as "sqlite" or "kv", following renames and deletions in order. */
function migratedClasses(migrations) {
  const storage = new Map();
  for (const m of migrations) {
    for (const name of m.new_sqlite_classes ?? []) storage.set(name, "sqlite");
    for (const name of m.new_classes ?? []) storage.set(name, "kv");
    for (const { from, to } of m.renamed_classes ?? []) {
      if (storage.has(from)) storage.set(to, storage.get(from));
      storage.delete(from);
    }
    for (const { to } of m.transferred_classes ?? []) storage.set(to, storage.get(to) ?? "transferred");
    for (const name of m.deleted_classes ?? []) storage.delete(name);
  }
  return storage;
}

function checkMigrations(config, problems, passed) {
  const before = problems.length;
  const migrations = config.migrations ?? [];
  const tags = migrations.map((m) => m.tag);
  const duplicate = tags.find((tag, i) => tags.indexOf(tag) !== i);
  if (duplicate !== undefined) problems.push(`[[migrations]] tag "${duplicate}" is used twice.`);
  const storage = migratedClasses(migrations);
  const classes = [...durableObjectClasses(config)];
  if (classes.length === 0) problems.push("no Durable Object class is bound: the containers need one.");
  for (const name of classes) {
    const kind = storage.get(name);
    if (kind === undefined) {
      problems.push(
        `Durable Object class ${name} has no migration: add it to new_sqlite_classes in a new [[migrations]] block.`,
      );
    } else if (kind !== "sqlite") {
      problems.push(
        `Durable Object class ${name} is not SQLite-backed (${kind}): containers and the registry need new_sqlite_classes.`,
      );
    }
  }
  if (problems.length === before) {
    passed.push(
      `migrations: ${classes.join(", ")} created as SQLite-backed classes (tags ${tags.join(", ")})`,
    );
  }
}

const cronFields = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31, special: /^(L|LW|\d{1,2}W|\?)$/ },
  {
    name: "month",
    min: 1,
    max: 12,
    names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
  },
  // Cloudflare's day of week: 1-7 (Sunday is 1) or SUN-SAT, with L and #.
  {
    name: "day of week",
    min: 1,
    max: 7,
    names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
    special: /^([1-7]L|[1-7]#[1-5]|L|\?)$/,
  },
];

/** Why a cron expression is not a valid five-field cron, or null when it is. */
export function cronProblem(expression) {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5)
    return `has ${fields.length} fields, not 5 (minute hour day-of-month month day-of-week)`;
  for (let f = 0; f < 5; f++) {
    const spec = cronFields[f];
    const value = (token) => {
      const upper = token.toUpperCase();
      const named = spec.names?.indexOf(upper) ?? -1;
      if (named >= 0) return named + spec.min;
      if (!/^\d+$/.test(token)) return null;
      const n = Number(token);
      return n >= spec.min && n <= spec.max ? n : null;
    };
    for (const item of fields[f].split(",")) {
      if (spec.special?.test(item.toUpperCase())) continue;
      const [range, step, extra] = item.split("/");
      if (extra !== undefined || range === "") return `${spec.name} "${item}" is not valid`;
      if (step !== undefined && !(/^\d+$/.test(step) && Number(step) >= 1 && Number(step) <= spec.max)) {
        return `${spec.name} step "${step}" is not valid`;
      }
      if (range === "*") continue;
      const bounds = range.split("-");
      if (bounds.length > 2) return `${spec.name} "${item}" is not valid`;
      const values = bounds.map(value);
      if (values.some((v) => v === null)) {
        return `${spec.name} "${item}" is out of range (${spec.min}-${spec.max}${spec.names ? ` or ${spec.names[0]}-${spec.names.at(-1)}` : ""})`;
      }
      if (values.length === 2 && values[0] > values[1]) return `${spec.name} range "${item}" runs backwards`;
    }
  }
  return null;
}

function checkCrons(config, problems, passed) {
  const crons = config.triggers?.crons ?? [];
  if (crons.length === 0) {
    problems.push("[triggers] crons is empty: the reindex ping needs a cron.");
    return;
  }
  let ok = true;
  for (const cron of crons) {
    const problem = typeof cron === "string" ? cronProblem(cron) : "is not a string";
    if (problem) {
      ok = false;
      problems.push(`cron "${cron}" ${problem}.`);
    }
  }
  if (ok) passed.push(`crons: ${crons.map((c) => `"${c}"`).join(", ")} valid`);
}

// ---- Checks on the bundle ----

const builtins = new Set(builtinModules.flatMap((name) => [name, name.split("/")[0]]));
/** Native SQL engines (storage's and the indexes'): none may reach the Worker, which never touches either. */
const nativePackages =
  /(^|\/)node_modules\/(libsql|@libsql\/[^/]+|@photostructure\/sqlite|better-sqlite3|sqlite3|@neon-rs\/[^/]+)\//;
/** memoria's own storage and index code: the containers' business, never the Worker's. */
const storageSources = /^src\/(store|index|teams)\//;

function importProblem(path) {
  if (path.startsWith("cloudflare:")) return null;
  if (path.startsWith("node:")) return "a node: built-in";
  if (builtins.has(path) || builtins.has(path.split("/")[0])) return "a Node built-in";
  if (path.endsWith(".node")) return "a native addon";
  return "an import workerd cannot resolve";
}

/**
 * Every module the bundle's text still imports (static, dynamic or require): what esbuild left external.
 * Comment lines are skipped: esbuild keeps a library's doc comments, and hono's quote example imports
 * (`import { Hono } from 'hono'`, `from 'itty-router'`) that are no import at all.
 */
export function importsInText(bundle) {
  const code = bundle.replace(/^[ \t]*(?:\/\/|\/\*|\*).*$/gm, "");
  const found = new Set();
  const patterns = [
    /\bimport\s*(?:[\w*${}\s,]+\s*from\s*)?["']([^"']+)["']/g,
    /\bexport\s*(?:\*|\{[^}]*\})\s*from\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) found.add(match[1]);
  return [...found];
}

function checkBundle(metafilePath, problems, passed) {
  if (!existsSync(metafilePath)) {
    problems.push(`the dry run wrote no metafile at ${relative(root, metafilePath)}.`);
    return;
  }
  const meta = JSON.parse(readFileSync(metafilePath, "utf8"));
  const externals = new Set();
  const outputs = Object.entries(meta.outputs ?? {}).filter(([file]) => !file.endsWith(".map"));
  if (outputs.length === 0) problems.push("the metafile lists no output.");
  for (const [file, output] of outputs) {
    for (const imported of output.imports ?? []) {
      if (!imported.external) continue;
      const problem = importProblem(imported.path);
      if (problem) problems.push(`the bundle ${basename(file)} imports ${imported.path}: ${problem}.`);
      else externals.add(imported.path);
    }
  }
  for (const input of Object.keys(meta.inputs ?? {})) {
    const path = input.replaceAll("\\", "/");
    if (path.endsWith(".node") || nativePackages.test(path)) {
      problems.push(`the bundle contains ${path}: native code.`);
    } else if (storageSources.test(path)) {
      problems.push(`the bundle contains ${path}: storage or index code, which the Worker must never touch.`);
    } else if (path.startsWith("node:")) {
      problems.push(`the bundle contains ${path}: a Node built-in.`);
    }
  }
  // Belt and braces: the text itself, in case something reached it around esbuild's graph.
  for (const [file] of outputs) {
    const path = resolve(root, file);
    if (!existsSync(path)) continue;
    for (const specifier of importsInText(readFileSync(path, "utf8"))) {
      const problem = importProblem(specifier);
      if (problem) problems.push(`the bundle text of ${basename(file)} imports ${specifier}: ${problem}.`);
    }
  }
  const size = outputs
    .map(([file]) => resolve(root, file))
    .filter((f) => existsSync(f))
    .reduce((sum, f) => sum + statSync(f).size, 0);
  if (!problems.some((p) => p.startsWith("the bundle"))) {
    passed.push(
      `bundle: ${outputs.map(([f]) => relative(root, resolve(root, f))).join(", ")} (${Math.round(size / 1024)} KiB, ` +
        `${Object.keys(meta.inputs ?? {}).length} modules) imports only ${[...externals].join(", ") || "nothing external"}; ` +
        "no node: or Node built-in, no native module, no storage code",
    );
  }
}

// ---- The run ----

/** A copy of the configuration with every container image a registry reference, and its path. */
async function writeCheckConfig(configPath) {
  const { experimental_readRawConfig } = await import("wrangler");
  const { rawConfig } = experimental_readRawConfig({ config: configPath });
  const copy = structuredClone(rawConfig);
  const withImages = (section) => {
    for (const container of section?.containers ?? []) container.image = CHECK_IMAGE;
  };
  withImages(copy);
  for (const env of Object.values(copy.env ?? {})) withImages(env);
  const path = join(dirname(configPath), `.wrangler-check-${process.pid}.json`);
  writeFileSync(path, `${JSON.stringify(copy, null, 2)}\n`);
  return { rawConfig, path };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const problems = [];
  const passed = [];
  const metafile = join(args.outdir, "bundle-meta.json");
  rmSync(args.outdir, { recursive: true, force: true });
  mkdirSync(args.outdir, { recursive: true });

  console.log(`deploy-check: ${relative(root, args.config) || args.config}`);
  const { rawConfig, path: checkConfig } = await writeCheckConfig(args.config);
  try {
    checkMigrations(rawConfig, problems, passed);
    checkCrons(rawConfig, problems, passed);

    const run = wrangler(
      ["deploy", "--dry-run", "-c", checkConfig, "--outdir", args.outdir, "--metafile", metafile],
      args.outdir,
    );
    if (run.status !== 0) {
      problems.push(
        `wrangler deploy --dry-run failed (exit ${run.status}):\n${indent(run.output || String(run.error))}`,
      );
    } else {
      passed.push(
        `wrangler deploy --dry-run: bindings and containers accepted (image ${CHECK_IMAGE} standing in for the Dockerfile)`,
      );
      checkBundle(metafile, problems, passed);
    }
  } finally {
    rmSync(checkConfig, { force: true });
  }

  if (args.types !== null) {
    const types = relative(root, args.types);
    const run = wrangler(["types", types, "--check", "-c", args.config], args.outdir);
    if (run.status !== 0) {
      problems.push(
        `${types} is not current for the configuration; regenerate it: ${TYPES_REGENERATE}\n${indent(run.output)}`,
      );
    } else {
      passed.push(`types: ${types} is current (wrangler types --check)`);
    }
  } else {
    passed.push("types: not checked (a configuration other than wrangler.toml, and no --types)");
  }

  for (const line of passed) console.log(`  ok    ${line}`);
  for (const line of problems) console.error(`  FAIL  ${line}`);
  if (problems.length > 0) {
    console.error(`deploy-check: ${problems.length} problem${problems.length === 1 ? "" : "s"}.`);
    process.exit(1);
  }
  console.log(`deploy-check: passed; bundle and metafile in ${relative(root, args.outdir) || args.outdir}`);
}

function indent(text) {
  return text
    .split("\n")
    .map((line) => `        ${line}`)
    .join("\n");
}

main().catch((error) => {
  console.error(`deploy-check: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

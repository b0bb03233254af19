// The `memoria` command (bin/memoria.mjs loads this through tsx): parse the arguments, check the folder,
// run the import, export or restore. Exit codes: 0 nothing failed, 1 something did, 2 bad arguments.

import { stat } from "node:fs/promises";
import { type Command, parseCommand, USAGE, USAGE_LINE, UsageError } from "./args.js";
import { BackupError, type BackupIO, runExport, runRestore, terminalPassphrase } from "./backup.js";
import { describeError, type ImportIO, runImport } from "./import.js";

export interface MainIO extends ImportIO {
  env: Record<string, string | undefined>;
  askPassphrase?: BackupIO["askPassphrase"];
}

async function checkFolder(folder: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(folder);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      code === "ENOENT" ? `No folder at ${folder}.` : `Cannot open ${folder}: ${describeError(error)}.`,
    );
  }
  if (!info.isDirectory()) throw new UsageError(`${folder} is not a folder.`);
}

export async function main(argv: string[], io: MainIO): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv, io.env);
    if (command.kind === "import") await checkFolder(command.options.folder);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`memoria: ${error.message}\n${USAGE_LINE}\n(memoria --help says more)\n`);
    return 2;
  }
  if (command.kind === "help") {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    if (command.kind === "export") return await runExport(command.options, io);
    if (command.kind === "restore") return await runRestore(command.options, io);
    return await runImport(command.options, io);
  } catch (error) {
    const reason = error instanceof BackupError ? error.message : describeError(error);
    io.stderr.write(`memoria ${command.kind}: ${reason}\n`);
    return 1;
  }
}

/** Runs with the process's own arguments, streams and environment, and sets its exit code. */
export async function run(): Promise<void> {
  process.exitCode = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    askPassphrase: terminalPassphrase(process.stdin, process.stderr),
  });
}

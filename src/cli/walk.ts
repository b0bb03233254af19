// Finds the files an import sends. Links are followed only when their real path is inside the folder, and
// every real file and folder is taken once: the walk goes through the real tree first, then follows the
// links it met (and any met inside a linked folder), skipping whatever it has already seen — so a file keeps
// its own path when the walk reaches it without a link, a link to a file already taken is a duplicate, and
// a link back to a folder being walked cannot loop. Names starting with "." (.git, .obsidian, .trash) are
// not walked. See docs/decisions/0014-import.md.

import { constants } from "node:fs";
import { open, readdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import type { DocumentFormat } from "../ingest/formats.js";
import { formatOfFile } from "../ingest/formats.js";

export interface FoundFile {
  /** The path from the folder as the folder shows it, "/"-separated (through a link when it took one). */
  relativePath: string;
  /** The file's real path: what is read. */
  realPath: string;
  format: DocumentFormat;
}

export type SkipReason = "outside" | "broken" | "duplicate";

export interface SkippedLink {
  relativePath: string;
  reason: SkipReason;
  /** For a duplicate: the path under which the file or folder was already taken ("" is the folder itself). */
  sameAs?: string;
}

export interface UnreadableFolder {
  /** "/"-separated path of the folder that could not be listed. */
  relativePath: string;
  error: string;
}

export interface WalkResult {
  /** The folder's real path. */
  root: string;
  /** Sorted by relativePath. */
  files: FoundFile[];
  skipped: SkippedLink[];
  unreadable: UnreadableFolder[];
}

/** Whether `target` is `root` or lies under it (both real paths). */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  if (rel === "") return true;
  return rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export async function walkFolder(folder: string): Promise<WalkResult> {
  const root = await realpath(folder);
  const seenFolders = new Map<string, string>([[root, ""]]);
  const seenFiles = new Map<string, string>();
  const links: { relativePath: string; path: string; name: string }[] = [];
  const files: FoundFile[] = [];
  const skipped: SkippedLink[] = [];
  const unreadable: UnreadableFolder[] = [];

  const takeFile = (realPath: string, relativePath: string, name: string) => {
    const format = formatOfFile(name);
    if (!format) return;
    const prior = seenFiles.get(realPath);
    if (prior !== undefined) {
      skipped.push({ relativePath, reason: "duplicate", sameAs: prior });
      return;
    }
    seenFiles.set(realPath, relativePath);
    files.push({ relativePath, realPath, format });
  };

  const enterFolder = async (realPath: string, relativePath: string): Promise<void> => {
    const prior = seenFolders.get(realPath);
    if (prior !== undefined) {
      skipped.push({ relativePath, reason: "duplicate", sameAs: prior });
      return;
    }
    seenFolders.set(realPath, relativePath);
    await walk(realPath, relativePath);
  };

  // `dir` is a real path, so every entry in it that is not a link has a real path too.
  const walk = async (dir: string, dirRelative: string): Promise<void> => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (dirRelative === "") throw error;
      unreadable.push({ relativePath: dirRelative, error: errorCode(error) });
      return;
    }
    for (const entry of entries.sort(byName)) {
      if (entry.name.startsWith(".")) continue;
      const relativePath = dirRelative ? `${dirRelative}/${entry.name}` : entry.name;
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) links.push({ relativePath, path, name: entry.name });
      else if (entry.isDirectory()) await enterFolder(path, relativePath);
      else if (entry.isFile()) takeFile(path, relativePath, entry.name);
      // Sockets, pipes and devices are never documents.
    }
  };

  await walk(root, "");
  // Following a linked folder can add links to the end of the list; each is taken in turn.
  for (let i = 0; i < links.length; i++) {
    const link = links[i] as (typeof links)[number];
    let target: string;
    let isFolder: boolean;
    try {
      target = await realpath(link.path);
      isFolder = (await stat(target)).isDirectory();
    } catch {
      // A dangling link only matters when it looks like something the import would send.
      if (formatOfFile(link.name)) skipped.push({ relativePath: link.relativePath, reason: "broken" });
      continue;
    }
    if (!isInside(root, target)) {
      if (isFolder || formatOfFile(link.name))
        skipped.push({ relativePath: link.relativePath, reason: "outside" });
      continue;
    }
    if (isFolder) await enterFolder(target, link.relativePath);
    else takeFile(target, link.relativePath, link.name);
  }

  files.sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
  return { root, files, skipped, unreadable };
}

/**
 * Reads a file the walk found, as UTF-8. The path is the real one, so no component of it should be a link;
 * O_NOFOLLOW refuses the file itself if it was swapped for a link since the walk, and a folder on the way
 * swapped for a link (which O_NOFOLLOW does not see) is caught by resolving the path again and checking that
 * it still names the very file opened.
 */
export async function readFound(file: FoundFile): Promise<string> {
  // As readFile("utf8") reads it: a byte order mark is kept (the server drops it, and hashes what it keeps).
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await readFoundBytes(file));
}

/** The file's bytes, read as readFound reads its text (a PDF or DOCX is sent as it is). */
export async function readFoundBytes(file: FoundFile): Promise<Uint8Array> {
  const handle = await open(file.realPath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw new Error("not a regular file");
    const [resolved, named] = await Promise.all([realpath(file.realPath), stat(file.realPath)]);
    if (resolved !== file.realPath || named.dev !== opened.dev || named.ino !== opened.ino) {
      throw new Error("the file's path changed since the walk");
    }
    return new Uint8Array(await handle.readFile());
  } finally {
    await handle.close();
  }
}

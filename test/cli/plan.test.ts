// The sync plan's pure parts: the first look at each file, and which documents --prune may delete.

import { describe, expect, it } from "vitest";
import {
  contentHash,
  documentsToDelete,
  externalIdOf,
  type FileDocument,
  fileDocuments,
  firstLook,
  pathOf,
  type RemoteDocument,
} from "../../src/cli/plan.js";

const local: FileDocument = {
  externalId: "file:guides/a.md",
  title: "A",
  path: ["guides"],
  format: "markdown",
  contentHash: contentHash("# A\n\nalpha"),
};
const remote = (over: Partial<RemoteDocument> = {}): RemoteDocument => ({
  id: "d1",
  title: "A",
  path: ["guides"],
  format: "markdown",
  externalId: "file:guides/a.md",
  contentHash: contentHash("# A\n\nalpha"),
  ...over,
});

describe("firstLook", () => {
  it("sends a file the team has no document for", () => {
    expect(firstLook(local, undefined)).toBe("new");
  });

  it("sends without comparing content when the title, path or format differ", () => {
    expect(firstLook(local, remote({ title: "Old title" }))).toBe("changed");
    expect(firstLook(local, remote({ path: ["elsewhere"] }))).toBe("changed");
    expect(firstLook(local, remote({ path: ["guides", "deeper"] }))).toBe("changed");
    expect(firstLook(local, remote({ path: [] }))).toBe("changed");
    expect(firstLook(local, remote({ format: "text" }))).toBe("changed");
  });

  it("decides the rest by the listed contentHash", () => {
    expect(firstLook(local, remote())).toBe("unchanged");
    expect(firstLook(local, remote({ contentHash: contentHash("# A\n\nalpha, edited") }))).toBe("changed");
  });

  it("sends a changed title even when the content is the same", () => {
    expect(firstLook(local, remote({ title: "B" }))).toBe("changed");
  });

  it("leaves a document listed without contentHash (stored before v1.1) to a read-back", () => {
    const { contentHash: _, ...old } = remote();
    expect(firstLook(local, old)).toBe("compare");
    expect(firstLook(local, remote({ title: "B", contentHash: undefined }))).toBe("changed");
  });
});

describe("contentHash", () => {
  it("tells texts apart down to one character, and line endings too", () => {
    expect(contentHash("a\nb")).toBe(contentHash("a\nb"));
    expect(contentHash("a\nb")).not.toBe(contentHash("a\r\nb"));
    expect(contentHash("é")).not.toBe(contentHash("e\u0301"));
    expect(contentHash("")).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("externalIdOf and pathOf", () => {
  it("name a file by its relative path and place it by its folders", () => {
    expect(externalIdOf("a/b/c.md")).toBe("file:a/b/c.md");
    expect(pathOf("a/b/c.md")).toEqual(["a", "b"]);
    expect(pathOf("c.md")).toEqual([]);
  });
});

describe("documentsToDelete", () => {
  const listing: RemoteDocument[] = [
    remote({ id: "kept", externalId: "file:keep.md" }),
    remote({ id: "gone", externalId: "file:gone.md" }),
    remote({ id: "gone-deep", externalId: "file:x/y/gone.md" }),
    remote({ id: "notion", externalId: "notion:abc" }),
    remote({ id: "wiki", externalId: "wiki:file:gone.md" }),
    remote({ id: "upper", externalId: "FILE:gone.md" }),
    remote({ id: "none", externalId: undefined }),
    remote({ id: "locked", externalId: "file:locked/inner.md" }),
    remote({ id: "locked-sibling", externalId: "file:locked-not/inner.md" }),
  ];

  it("deletes only file: documents whose files are gone", () => {
    const present = new Set(["file:keep.md"]);
    const gone = documentsToDelete(fileDocuments(listing), present);
    // In externalId order ("-" sorts before "/").
    expect(gone.map((d) => d.id)).toEqual(["gone", "locked-sibling", "locked", "gone-deep"]);
  });

  it("keeps the documents under a folder the walk could not read", () => {
    const present = new Set(["file:keep.md"]);
    const gone = documentsToDelete(fileDocuments(listing), present, ["locked"]);
    expect(gone.map((d) => d.id)).toEqual(["gone", "locked-sibling", "gone-deep"]);
  });

  it("deletes nothing when every file is there", () => {
    const present = new Set(listing.flatMap((d) => (d.externalId ? [d.externalId] : [])));
    expect(documentsToDelete(fileDocuments(listing), present)).toEqual([]);
  });
});

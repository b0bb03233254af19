// The sync plan's pure parts: the first look at each file, and which documents --prune may delete.

import { describe, expect, it } from "vitest";
import {
  adoptable,
  contentHash,
  documentsToDelete,
  externalIdOf,
  type FileDocument,
  fileDocuments,
  firstLook,
  pathOf,
  type RemoteDocument,
  relativePathOf,
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
  it("name a file by its source and relative path and place it by its folders", () => {
    expect(externalIdOf("handbook", "a/b/c.md")).toBe("file:handbook/a/b/c.md");
    expect(relativePathOf("handbook", "file:handbook/a/b/c.md")).toBe("a/b/c.md");
    expect(relativePathOf("handbook", "file:a/b/c.md")).toBe("a/b/c.md");
    expect(pathOf("a/b/c.md")).toEqual(["a", "b"]);
    expect(pathOf("c.md")).toEqual([]);
  });
});

describe("documentsToDelete", () => {
  const listing: RemoteDocument[] = [
    remote({ id: "kept", externalId: "file:notes/keep.md" }),
    remote({ id: "gone", externalId: "file:notes/gone.md" }),
    remote({ id: "gone-deep", externalId: "file:notes/x/y/gone.md" }),
    remote({ id: "other-source", externalId: "file:wiki/gone.md" }),
    remote({ id: "prefix-source", externalId: "file:notes-old/gone.md" }),
    remote({ id: "before-sources", externalId: "file:gone.md" }),
    remote({ id: "notion", externalId: "notion:abc" }),
    remote({ id: "wiki", externalId: "wiki:file:notes/gone.md" }),
    remote({ id: "upper", externalId: "FILE:notes/gone.md" }),
    remote({ id: "none", externalId: undefined }),
    remote({ id: "locked", externalId: "file:notes/locked/inner.md" }),
    remote({ id: "locked-sibling", externalId: "file:notes/locked-not/inner.md" }),
  ];

  it("deletes only this source's documents whose files are gone, never another source's", () => {
    const present = new Set(["file:notes/keep.md"]);
    const gone = documentsToDelete(fileDocuments(listing), "notes", present);
    // In externalId order ("-" sorts before "/").
    expect(gone.map((d) => d.id)).toEqual(["gone", "locked-sibling", "locked", "gone-deep"]);
  });

  it("keeps the documents under a folder the walk could not read", () => {
    const present = new Set(["file:notes/keep.md"]);
    const gone = documentsToDelete(fileDocuments(listing), "notes", present, ["locked"]);
    expect(gone.map((d) => d.id)).toEqual(["gone", "locked-sibling", "gone-deep"]);
  });

  it("deletes nothing when every file is there", () => {
    const present = new Set(listing.flatMap((d) => (d.externalId ? [d.externalId] : [])));
    expect(documentsToDelete(fileDocuments(listing), "notes", present)).toEqual([]);
  });
});

describe("adoptable", () => {
  const listing = fileDocuments([
    remote({ id: "old-readme", externalId: "file:README.md" }),
    remote({ id: "old-guide", externalId: "file:guides/a.md" }),
    remote({ id: "new-guide", externalId: "file:notes/guides/a.md" }),
    remote({ id: "own", externalId: "file:notes/b.md" }),
  ]);

  it("adopts the document an import before sources stored at the file's relative path", () => {
    expect(adoptable(listing, "notes", "README.md")?.id).toBe("old-readme");
  });

  it("adopts nothing when the source already holds the file's document", () => {
    expect(adoptable(listing, "notes", "guides/a.md")).toBeUndefined();
  });

  it("never adopts one of the source's own documents as if it were from before sources", () => {
    // file:notes/b.md is notes' b.md; a file notes/b.md inside the folder notes is another document.
    expect(adoptable(listing, "notes", "notes/b.md")).toBeUndefined();
    expect(adoptable(listing, "notes", "missing.md")).toBeUndefined();
  });
});

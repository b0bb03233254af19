// The parts of Notion's API objects memoria reads (Notion-Version 2025-09-03), as loose zod schemas: fields
// memoria does not read pass through untouched, and an answer missing a field it does read is refused
// instead of turning into an empty document.

import { z } from "zod";

export const richTextSchema = z.looseObject({ plain_text: z.string() });
export type RichText = z.infer<typeof richTextSchema>;

/** Where a page, database, data source or block lives. */
export const parentSchema = z.looseObject({
  type: z.string(),
  page_id: z.string().optional(),
  database_id: z.string().optional(),
  data_source_id: z.string().optional(),
  block_id: z.string().optional(),
});
export type NotionParent = z.infer<typeof parentSchema>;

export const pageSchema = z.looseObject({
  object: z.literal("page"),
  id: z.string(),
  last_edited_time: z.string(),
  in_trash: z.boolean().optional(),
  archived: z.boolean().optional(),
  parent: parentSchema,
  properties: z.record(z.string(), z.looseObject({ type: z.string() })),
});
export type NotionPage = z.infer<typeof pageSchema>;

export const databaseSchema = z.looseObject({
  object: z.literal("database"),
  id: z.string(),
  title: z.array(richTextSchema).optional(),
  parent: parentSchema.optional(),
});
export type NotionDatabase = z.infer<typeof databaseSchema>;

export const dataSourceSchema = z.looseObject({
  object: z.literal("data_source"),
  id: z.string(),
  title: z.array(richTextSchema).optional(),
  parent: parentSchema.optional(),
});
export type NotionDataSource = z.infer<typeof dataSourceSchema>;

/** A block: its type names the key that holds its payload (`{type: "paragraph", paragraph: {...}}`). */
export const blockSchema = z.looseObject({
  object: z.literal("block"),
  id: z.string(),
  type: z.string(),
  has_children: z.boolean().optional(),
  parent: parentSchema.optional(),
  in_trash: z.boolean().optional(),
  archived: z.boolean().optional(),
});
export type NotionBlock = z.infer<typeof blockSchema>;

export const listSchema = <T extends z.ZodType>(item: T) =>
  z.looseObject({
    object: z.literal("list"),
    results: z.array(item),
    next_cursor: z.string().nullable().optional(),
    has_more: z.boolean(),
  });
export interface NotionList<T> {
  results: T[];
  next_cursor?: string | null | undefined;
  has_more: boolean;
}

/** Joins rich text to what a reader sees. */
export function plainText(parts: readonly RichText[] | undefined): string {
  return (parts ?? []).map((p) => p.plain_text).join("");
}

/** A page's title: the one property of type `title`, whatever the property is called. */
export function pageTitle(page: NotionPage): string {
  for (const property of Object.values(page.properties)) {
    if (property.type !== "title") continue;
    const parts = z.array(richTextSchema).safeParse(property.title);
    return parts.success ? plainText(parts.data).trim() : "";
  }
  return "";
}

/** Notion's ids with or without dashes, as one canonical lower-case dashed form; null for anything else. */
export function canonicalId(id: string): string | null {
  const hex = id.replaceAll("-", "").toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

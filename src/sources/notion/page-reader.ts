// Reads one Notion page into what a document needs: its title, its blocks as markdown (every page of block
// children, recursing into blocks that have children), and its ancestry as a path of titles, root first
// ("Handbook", "Onboarding"). One reader serves one sync: the titles of ancestors it looked up are kept, so
// a pull of a hundred pages under one parent asks Notion for that parent once.

import { ListingCursors, NOTION_PAGE_SIZE, NotionApiError, type NotionClient } from "./client.js";
import { type BlockNode, ownsChildren, renderBlocks } from "./markdown.js";
import { type NotionPage, type NotionParent, pageTitle, plainText } from "./types.js";

/** How deep blocks nest below the page before deeper children are left out. */
export const MAX_BLOCK_DEPTH = 8;
/** The most blocks read from one page; the rest are left out rather than read forever. */
export const MAX_BLOCKS_PER_PAGE = 10_000;
/**
 * The most requests one block's children may take (200). Reading MAX_BLOCKS_PER_PAGE blocks at
 * NOTION_PAGE_SIZE a request takes 100 full answers; twice that leaves room for the short answers Notion
 * sometimes gives, and a listing still going after that is not making progress (empty answers that keep
 * saying `has_more`). It stops with a NotionListingError rather than asking forever.
 */
export const MAX_CHILDREN_REQUESTS = (2 * MAX_BLOCKS_PER_PAGE) / NOTION_PAGE_SIZE;
/** The most parents walked up from a page before the path stops. */
export const MAX_ANCESTRY = 16;
/** Titles and path segments are cut to what the documents API accepts. */
const MAX_NAME_CHARS = 512;
const MAX_PATH_SEGMENTS = 32;
const UNTITLED = "Untitled";

export interface PageDocument {
  pageId: string;
  title: string;
  content: string;
  path: string[];
}

/** The page is in the trash (or archived): its document should go. */
export interface TrashedPage {
  pageId: string;
  trashed: true;
}

interface Ancestor {
  /** The name it adds to a path; null for a block, which adds none. */
  title: string | null;
  parent: NotionParent | null;
}

function name(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return UNTITLED;
  const points = [...trimmed];
  return points.length > MAX_NAME_CHARS ? points.slice(0, MAX_NAME_CHARS).join("") : trimmed;
}

/** Not found or not shared with the integration: an ancestor the path cannot name. */
function unreachable(error: unknown): boolean {
  return error instanceof NotionApiError && (error.status === 404 || error.status === 403);
}

export class PageReader {
  readonly #ancestors = new Map<string, Promise<Ancestor>>();

  constructor(private readonly client: NotionClient) {}

  /** Reads a page, or uses the page object a search already returned, and everything under and above it. */
  async read(pageId: string, known?: NotionPage): Promise<PageDocument | TrashedPage> {
    const page = known ?? (await this.client.getPage(pageId));
    if (page.in_trash || page.archived) return { pageId, trashed: true };
    // Seen by later pages of the same sync whose parent this page is.
    this.#ancestors.set(
      `page:${pageId}`,
      Promise.resolve({ title: name(pageTitle(page)), parent: page.parent }),
    );
    const [blocks, path] = await Promise.all([
      this.#children(pageId, 0, { left: MAX_BLOCKS_PER_PAGE }),
      this.path(page.parent),
    ]);
    return { pageId, title: name(pageTitle(page)), content: renderBlocks(blocks), path };
  }

  /** The titles of the pages and databases above `parent`, root first. */
  async path(parent: NotionParent): Promise<string[]> {
    const titles: string[] = [];
    let at: NotionParent | null = parent;
    for (let step = 0; at && step < MAX_ANCESTRY; step++) {
      let ancestor: Ancestor | null;
      try {
        ancestor = await this.#ancestor(at);
      } catch (error) {
        if (unreachable(error)) break;
        throw error;
      }
      if (!ancestor) break;
      if (ancestor.title !== null) titles.push(ancestor.title);
      at = ancestor.parent;
    }
    return titles.reverse().slice(-MAX_PATH_SEGMENTS);
  }

  /** The ancestor a parent reference points at; null at the top (the workspace) or for kinds unknown here. */
  #ancestor(parent: NotionParent): Promise<Ancestor> | null {
    const lookup = (key: string, load: () => Promise<Ancestor>) => {
      const cached = this.#ancestors.get(key);
      if (cached) return cached;
      const loading = load();
      this.#ancestors.set(key, loading);
      // A failed lookup is not remembered: the next page of the sync may try again.
      loading.catch(() => this.#ancestors.delete(key));
      return loading;
    };
    const { page_id, database_id, data_source_id, block_id } = parent;
    switch (parent.type) {
      case "page_id":
        if (!page_id) return null;
        return lookup(`page:${page_id}`, async () => {
          const page = await this.client.getPage(page_id);
          return { title: name(pageTitle(page)), parent: page.parent };
        });
      case "database_id":
        if (!database_id) return null;
        return this.#database(database_id, lookup);
      case "data_source_id":
        // A page in a database's data source: the database names it (a data source's parent is its database).
        if (database_id) return this.#database(database_id, lookup);
        if (!data_source_id) return null;
        return lookup(`data_source:${data_source_id}`, async () => {
          const source = await this.client.getDataSource(data_source_id);
          return { title: null, parent: source.parent ?? null };
        });
      case "block_id":
        // A page inside a block (a toggle, a column): the block names nothing; its page above it does.
        if (!block_id) return null;
        return lookup(`block:${block_id}`, async () => {
          const block = await this.client.getBlock(block_id);
          return { title: null, parent: block.parent ?? null };
        });
      default:
        return null;
    }
  }

  #database(
    databaseId: string,
    lookup: (key: string, load: () => Promise<Ancestor>) => Promise<Ancestor>,
  ): Promise<Ancestor> {
    return lookup(`database:${databaseId}`, async () => {
      const database = await this.client.getDatabase(databaseId);
      return { title: name(plainText(database.title)), parent: database.parent ?? null };
    });
  }

  /**
   * Every child of a block, page by page, with their children down to MAX_BLOCK_DEPTH. A listing that
   * repeats a cursor or takes more than MAX_CHILDREN_REQUESTS requests throws a NotionListingError.
   */
  async #children(blockId: string, depth: number, budget: { left: number }): Promise<BlockNode[]> {
    const nodes: BlockNode[] = [];
    const cursors = new ListingCursors("GET /v1/blocks/{id}/children", MAX_CHILDREN_REQUESTS);
    let cursor: string | null = null;
    do {
      const list = await this.client.listBlockChildren(blockId, cursor);
      for (const block of list.results) {
        if (budget.left <= 0) return nodes;
        budget.left--;
        if (block.in_trash || block.archived) continue;
        const deeper = block.has_children === true && ownsChildren(block) && depth + 1 < MAX_BLOCK_DEPTH;
        nodes.push({ block, children: deeper ? await this.#children(block.id, depth + 1, budget) : [] });
      }
      cursor = cursors.next(list);
    } while (cursor);
    return nodes;
  }
}

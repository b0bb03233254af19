// The corpus shapes the bench measures, by the name `--shapes` takes.
import { CORPUS_SEED, type CorpusDocument, generateCorpus } from "./corpus.js";
import { generateSciFactCorpus } from "./scifact.js";

/**
 * sections: design notes and runbooks, ten ~1 KB sections a document (one sealed row per ten passages).
 * scifact: short notes, one ~1.5 KB passage a document on average 1.1 (one sealed row per passage or so).
 */
export const CORPUS_SHAPES = ["sections", "scifact"] as const;
export type CorpusShape = (typeof CORPUS_SHAPES)[number];

export function isCorpusShape(name: string): name is CorpusShape {
  return (CORPUS_SHAPES as readonly string[]).includes(name);
}

/** The documents of a shape holding exactly `chunks` passages, for the bench's one seed. */
export function generateShape(shape: CorpusShape, chunks: number): CorpusDocument[] {
  return shape === "scifact"
    ? generateSciFactCorpus({ chunks, seed: CORPUS_SEED })
    : generateCorpus({ chunks, seed: CORPUS_SEED });
}

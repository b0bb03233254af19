// Readiness: whether storage answers. (Liveness needs nothing: answering at all is the proof.)

import { DomainError } from "../errors.js";
import type { Storage } from "../store/storage.js";

/**
 * How recent an answer from storage readiness takes as its own. Within it, /readyz answers without a round
 * trip: over remote storage 20 ms away that was 8–16 ms of a start's ~240 ms exec to ready, spent asking again
 * what the start's own check had just asked (decision 0107). A probe after a call that failed always asks.
 */
export const READY_TRUSTS_ANSWER_MS = 1000;

export interface HealthDeps {
  storage: Storage;
}

export class HealthService {
  constructor(private readonly deps: HealthDeps) {}

  /** Resolves when storage answers; `unavailable` otherwise, never with storage's own error. */
  async ready(): Promise<void> {
    if (this.deps.storage.answeredWithin(READY_TRUSTS_ANSWER_MS)) return;
    try {
      await this.deps.storage.ping();
    } catch {
      throw new DomainError("unavailable", "Storage is not answering.");
    }
  }
}

// Readiness: whether storage answers. (Liveness needs nothing: answering at all is the proof.)

import { DomainError } from "../errors.js";
import type { Storage } from "../store/storage.js";

export interface HealthDeps {
  storage: Storage;
}

export class HealthService {
  constructor(private readonly deps: HealthDeps) {}

  /** Resolves when storage answers; `unavailable` otherwise, never with storage's own error. */
  async ready(): Promise<void> {
    try {
      await this.deps.storage.ping();
    } catch {
      throw new DomainError("unavailable", "Storage is not answering.");
    }
  }
}

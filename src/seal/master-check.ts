// Whether the master keys a start was given are the ones storage's team keys were wrapped with. A wrong
// MEMORIA_MASTER_KEY that starts anyway serves every team as unreadable, and a team made meanwhile is
// wrapped with the wrong key and lost once the right one is back; trying a few stored team keys first
// turns that into a refused start.

import { isDomainError } from "../errors.js";
import { type MasterKeys, unwrapTeamKey } from "./master.js";

export interface MasterKeyCheck {
  /** Team keys tried. */
  tried: number;
  /** Of those, the ones neither the current nor the previous master key opens. */
  unopened: number;
}

/**
 * Tries each stored team key with the current master key, then the previous one. Nothing is re-wrapped or
 * stored: the caller has not yet been allowed to write. Throws on anything but a key that does not open.
 */
export async function checkMasterKeys(
  master: MasterKeys,
  teamKeys: readonly { teamId: string; wrappedKey: Uint8Array }[],
): Promise<MasterKeyCheck> {
  let unopened = 0;
  for (const { teamId, wrappedKey } of teamKeys) {
    try {
      await unwrapTeamKey(master, teamId, wrappedKey);
    } catch (error) {
      if (!isDomainError(error, "unreadable")) throw error;
      unopened++;
    }
  }
  return { tried: teamKeys.length, unopened };
}

// Ids are random, not sequential: a sequential id would tell one team how many documents the others have.
// 16 characters of base32 is 80 bits, far past any collision worry at a team's scale. Lower case letters and
// digits only, so a team id can sit inside an API key (`mem_<teamId>_<secret>`) without escaping.

const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
const ID_CHARS = 16;

export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(ID_CHARS));
  let out = prefix;
  for (const b of bytes) out += alphabet[b & 31];
  return out;
}

/** Team ids: `t` and base32, never an underscore (the API key is split at underscores). */
export const teamIdPattern = /^t[a-z2-7]{16}$/;

/**
 * An id made from given bytes instead of random ones (the first ID_CHARS of them), in the same alphabet: a
 * stable id for something that must get the same new id each time, such as an imported row renamed.
 */
export function idOfBytes(prefix: string, bytes: Uint8Array): string {
  if (bytes.length < ID_CHARS) throw new RangeError(`idOfBytes needs ${ID_CHARS} bytes`);
  let out = prefix;
  for (const b of bytes.subarray(0, ID_CHARS)) out += alphabet[b & 31];
  return out;
}

/** Document and entry ids as newId makes them: the prefix and 16 characters of base32. */
export const documentIdPattern = /^d[a-z2-7]{16}$/;
export const entryIdPattern = /^e[a-z2-7]{16}$/;

// Passwords, hashed with argon2id at OWASP's parameters (19 MiB, two passes, one lane): memory-hard, so a
// copy of the hashes costs an attacker memory per guess, not only time. The hash is then sealed under the
// team's key with the rest of the member's row (sealed-rows/members.ts), so even the hash needs the master key.
//
// `@node-rs/argon2` hashes on libuv's thread pool, 14–17 ms a hash on this 2-core machine against 25–30 ms
// for the `argon2` package and 541 ms for node:crypto's scrypt at its OWASP setting (decision 0101). It is
// loaded on first use: a server that never sees a password never pays its import.

/**
 * Hashes at once, at most (the caller holds them to it: services/members.ts): each takes ~19 MiB while it runs
 * (+70 MiB measured for four at once), and on two cores a third would only wait for a thread. Sign-in's rate
 * limit (30 failures a minute an address) bounds what waits.
 */
export const PASSWORD_HASHES_AT_ONCE = 2;

/** argon2id, as `@node-rs/argon2` numbers its algorithms (a const enum, so not importable as a value). */
const ARGON2ID = 2;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * A hash of a random password nobody knows, verified against when a sign-in names no member, so an unknown
 * address takes as long to refuse as a wrong password.
 */
const NOBODY =
  "$argon2id$v=19$m=19456,t=2,p=1$gXSsr4S5uTRKm9FNlmd23g$NpirXZ/eD5HDwxSUIcu5uG0CZz6pl1WjdKoM78pB6ls";

type Argon2 = typeof import("@node-rs/argon2");

export class PasswordHasher {
  #argon2: Promise<Argon2> | null = null;

  #load(): Promise<Argon2> {
    this.#argon2 ??= import("@node-rs/argon2");
    return this.#argon2;
  }

  /** The PHC string of a new password (algorithm, parameters, salt and hash). */
  async hash(password: string): Promise<string> {
    const argon2 = await this.#load();
    return argon2.hash(password, OPTIONS);
  }

  /** Whether `password` is the one `hashed` was made from; null `hashed` refuses after the same work. */
  async verify(hashed: string | null, password: string): Promise<boolean> {
    const argon2 = await this.#load();
    const ok = await argon2.verify(hashed ?? NOBODY, password).catch(() => false);
    return hashed !== null && ok;
  }
}

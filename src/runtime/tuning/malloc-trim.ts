// glibc's malloc_trim(0), called after the idle collection has freed what V8 held. glibc returns a heap's free
// space to the system only from the heap's top; the free chunks between live ones (left by a build's page
// caches, sealed rows and request buffers, freed in an order unlike the one they were taken in) stay in the
// process until malloc_trim, which walks every arena and gives their whole free pages back. Node does not
// expose it, so it is bound through koffi (a C FFI whose prebuilt binaries come with the npm package), loaded
// on the first trim, never at start (decision 0073). Measured again beside a server without it (decision
// 0111): RSS a byte of text 2.14× after a build and 2.25× after 300 long questions with it off.
//
// Soft everywhere it cannot work: not glibc (musl, macOS, Windows), koffi's binary missing for the platform,
// or any failure loading it: trim() then does nothing, and the server is as it was without it.

/** What malloc_trim needs to find: the C library of a glibc system (the name its loader knows). */
const GLIBC = "libc.so.6";

/**
 * How long after a collection the trim runs: V8 frees the ArrayBuffers a full collection found dead on a
 * background thread after the collection returns, so a trim at once would miss part of what it can give back.
 */
export const TRIM_DELAY_MS = 250;

function isGlibc(): boolean {
  if (process.platform !== "linux") return false;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)
    ?.header;
  return typeof header?.glibcVersionRuntime === "string";
}

export class MallocTrim {
  /** Resolves to the bound function, or null where it cannot be had; loaded by the first request. */
  #trim: Promise<(() => void) | null> | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;
  /** Trims run so far: tests read it. */
  trims = 0;

  readonly #delayMs: number;
  readonly #trimmed: ((ms: number) => void) | undefined;

  constructor(
    options: {
      delayMs?: number;
      /** Told of each trim: how long it took, in ms. */
      trimmed?: (ms: number) => void;
    } = {},
  ) {
    this.#delayMs = options.delayMs ?? TRIM_DELAY_MS;
    this.#trimmed = options.trimmed;
  }

  /** Asks for a trim after TRIM_DELAY_MS; requests before it runs are one trim. */
  request(): void {
    if (this.#stopped || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#run();
    }, this.#delayMs);
    this.#timer.unref();
  }

  /** Whether malloc_trim could be bound here (loads it). */
  async available(): Promise<boolean> {
    return (await this.#load()) !== null;
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #load(): Promise<(() => void) | null> {
    this.#trim ??= (async () => {
      if (!isGlibc()) return null;
      try {
        const koffi = (await import("koffi")).default;
        const mallocTrim = koffi.load(GLIBC).func("int malloc_trim(size_t pad)") as (pad: number) => number;
        return () => {
          mallocTrim(0);
        };
      } catch {
        return null;
      }
    })();
    return this.#trim;
  }

  async #run(): Promise<void> {
    const trim = await this.#load();
    if (!trim || this.#stopped) return;
    const started = performance.now();
    trim();
    this.trims++;
    this.#trimmed?.(performance.now() - started);
  }
}

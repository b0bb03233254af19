// The counted body on its own: bytes pass through one chunk at a time until the limit, the chunk past it
// fails the stream with 413 and nothing after it is pulled from the source.

import { describe, expect, it } from "vitest";
import { isDomainError } from "../../src/errors.js";
import { boundedBody, readAtMost } from "../../src/http/bounded-body.js";

/** A source of `count` chunks of `size` bytes that records how many were pulled. */
function source(count: number, size: number) {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled === count) return controller.close();
        pulled += 1;
        controller.enqueue(new Uint8Array(size).fill(pulled));
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled };
}

describe("boundedBody", () => {
  it("passes a body at its limit through whole, and says it was read", async () => {
    const from = source(4, 256);
    const body = boundedBody(from.stream, 1024);
    expect(body.state).toBe("unread");
    const bytes = new Uint8Array(await new Response(body.stream).arrayBuffer());
    expect(bytes.byteLength).toBe(1024);
    expect(bytes[1023]).toBe(4);
    expect(body.state).toBe("read");
    expect(body.bytes).toBe(1024);
  });

  it("fails with 413 on the chunk past its limit and pulls nothing after it", async () => {
    const from = source(1000, 256);
    const body = boundedBody(from.stream, 1000);
    const failure = await new Response(body.stream).arrayBuffer().then(
      () => null,
      (error: unknown) => error,
    );
    expect(isDomainError(failure, "payload_too_large")).toBe(true);
    expect(body.state).toBe("too_large");
    // Four chunks make 1024 > 1000 bytes: the fourth is the last one ever asked for.
    expect(from.pulled()).toBe(4);
  });

  it("pulls nothing until its reader asks", async () => {
    const from = source(10, 16);
    const body = boundedBody(from.stream, 1024);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(from.pulled()).toBe(0);
    expect(body.state).toBe("unread");
  });
});

describe("readAtMost", () => {
  it("reads a stream up to its limit into one buffer, in order", async () => {
    const bytes = await readAtMost(source(3, 100).stream, 300);
    expect(bytes.byteLength).toBe(300);
    expect([bytes[0], bytes[100], bytes[299]]).toEqual([1, 2, 3]);
  });

  it("refuses a stream longer than its limit with 413, holding no more than the limit", async () => {
    const from = source(1_000_000, 1024);
    await expect(readAtMost(from.stream, 64 * 1024)).rejects.toMatchObject({ code: "payload_too_large" });
    expect(from.pulled()).toBe(65);
  });
});

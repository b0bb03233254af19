// Request bodies that show whether a route read them.

/**
 * A request body that counts how often it was pulled: nothing is pulled unless something reads it
 * (highWaterMark 0). With `chunks` it ends after them; without, it never ends, so a route that read it would
 * never answer.
 */
export function watchedBody(chunks?: Uint8Array[]) {
  let pulls = 0;
  const queue = chunks ? [...chunks] : undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        pulls++;
        if (queue === undefined) return controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
        const next = queue.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulls: () => pulls };
}

/**
 * A JSON document upload in flight: half its body sent at once, the rest only when `sendRest` is called, so
 * a test can act (a signal, say) while the request is certainly unfinished.
 */
export function halfSentUpload(url: string, apiKey: string, bytes: Uint8Array) {
  let sendRest = () => {};
  const rest = new Promise<void>((resolve) => {
    sendRest = resolve;
  });
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(bytes.subarray(0, bytes.length >> 1));
      await rest;
      controller.enqueue(bytes.subarray(bytes.length >> 1));
      controller.close();
    },
  });
  const response = fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body,
    duplex: "half",
  } as RequestInit);
  return { response, sendRest: () => sendRest() };
}

// A forwarding HTTP proxy on loopback that notes the method and path of every request it passes on: a test
// sees which of storage's endpoints a client used (Hrana 3's `/v3-protobuf/`, the client's `/v2/`). It runs in
// a process of its own: an embedded replica's takeover pulls synchronously on the thread that opens it, and a
// proxy on that thread could not answer it.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export interface PathProxy {
  /** `http://127.0.0.1:PORT`, forwarding to the target. */
  url: string;
  /** "METHOD /path" of every request so far, in arrival order. */
  paths: string[];
  /** Resolves once every request the proxy has received is in `paths`. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

const PROXY_SOURCE = `
const http = require("node:http");
const target = Number(process.argv[1]);
const server = http.createServer((request, response) => {
  process.stdout.write("path " + request.method + " " + request.url + "\\n");
  const upstream = http.request(
    { host: "127.0.0.1", port: target, method: request.method, path: request.url, headers: request.headers },
    (answer) => {
      response.writeHead(answer.statusCode || 502, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on("error", () => response.destroy());
  request.pipe(upstream);
});
server.listen(0, "127.0.0.1", () => process.stdout.write("port " + server.address().port + "\\n"));
process.stdin.on("data", (chunk) => {
  for (const byte of chunk) if (byte === 10) process.stdout.write("mark\\n");
});
process.stdin.on("end", () => process.exit(0));
`;

export async function startPathProxy(targetPort: number): Promise<PathProxy> {
  const child = spawn(process.execPath, ["-e", PROXY_SOURCE, String(targetPort)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const paths: string[] = [];
  const marks: { resolve: () => void; reject: (error: Error) => void }[] = [];
  let ended = false;
  exited.then(() => {
    ended = true;
    for (const mark of marks.splice(0)) mark.reject(new Error("the path proxy ended"));
  });
  // A write to a proxy that has ended fails its mark above, not the process.
  child.stdin.on("error", () => undefined);
  let portFound: (port: number) => void = () => undefined;
  const port = new Promise<number>((resolve, reject) => {
    portFound = resolve;
    exited.then(() => reject(new Error("the path proxy ended before it listened")));
  });
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (line.startsWith("path ")) paths.push(line.slice("path ".length));
    else if (line.startsWith("port ")) portFound(Number(line.slice("port ".length)));
    else if (line === "mark") marks.shift()?.resolve();
  });
  return {
    url: `http://127.0.0.1:${await port}`,
    paths,
    // The proxy notes a request before forwarding it, so one answered before this call is noted before the mark.
    settled: () =>
      new Promise<void>((resolve, reject) => {
        if (ended) return reject(new Error("the path proxy ended"));
        marks.push({ resolve, reject });
        child.stdin.write("\n");
      }),
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

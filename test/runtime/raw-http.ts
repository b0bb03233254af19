// A raw HTTP/1.1 client over a socket, for what fetch cannot do: send headers and then trickle a chunked body,
// stall mid-body, or vanish, while watching what the server answers and when it closes the connection.

import { connect, type Socket } from "node:net";

/** A raw socket that records what it receives and when it closes. */
export interface RawClient {
  socket: Socket;
  received(): string;
  /** Resolves when the server has sent this much, with everything so far. */
  until(pattern: RegExp): Promise<string>;
  closed: Promise<void>;
}

export async function rawClient(port: number): Promise<RawClient> {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let text = "";
  const waiters: (() => void)[] = [];
  socket.on("data", (d: Buffer) => {
    text += d.toString("latin1");
    for (const w of waiters.splice(0)) w();
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return {
    socket,
    received: () => text,
    until(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(text)) resolve(text);
          else waiters.push(check);
        };
        closed.then(() => (pattern.test(text) ? resolve(text) : reject(new Error(`closed after: ${text}`))));
        check();
      });
    },
    closed,
  };
}

export function chunk(bytes: string): string {
  return `${Buffer.byteLength(bytes).toString(16)}\r\n${bytes}\r\n`;
}

export const chunkedPost = (path: string, headers: Record<string, string>) =>
  `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ntransfer-encoding: chunked\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n`;

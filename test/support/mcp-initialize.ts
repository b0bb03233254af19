// The request an MCP client opens a session with, sent to a server running in a process of its own: the tests
// of what a start loads and of the bundled image each check /mcp answers it.

/** POST `${base}/mcp` with a JSON-RPC `initialize`, as a client of the 2025-06-18 protocol sends it. */
export function postMcpInitialize(base: string, apiKey: string, clientName = "test"): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: clientName, version: "1" },
      },
    }),
  });
}

// /openapi.json as clients generate from it: valid OpenAPI 3.1 by an independent validator, a summary and
// exactly one declared tag on every operation, /mcp described as a JSON-RPC POST; and the MCP tools' schemas
// free of `type` arrays, which several MCP clients read as one string (MCP Inspector warns about each).

import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { OPENAPI_TAGS } from "../../src/routes/tags.js";
import { makeTeam } from "../support/app.js";
import { withApp } from "./contract.js";

type Operation = {
  summary?: string;
  tags?: string[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, unknown>;
};
type OpenApiDocument = {
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties: object; required: string[] }> };
};

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

function operations(doc: OpenApiDocument): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]),
  );
}

/** Every `type` that is an array, anywhere in a JSON value, by its path. */
function typeArrays(value: unknown, at = ""): string[] {
  if (value === null || typeof value !== "object") return [];
  const here = Array.isArray((value as { type?: unknown }).type) ? [at] : [];
  return here.concat(Object.entries(value).flatMap(([key, child]) => typeArrays(child, `${at}/${key}`)));
}

describe("GET /openapi.json", () => {
  it("is valid OpenAPI 3.1 to an independent validator", () =>
    withApp(async (app) => {
      const doc = (await (await app.request("/openapi.json")).json()) as OpenApiDocument;
      const validator = new Validator();
      const result = await validator.validate(doc);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe("3.1");
      // The validator bites: the same document with an operation whose parameters are not a list is refused.
      const broken = structuredClone(doc);
      (broken.paths["/v1/search"]?.get as unknown as { parameters: unknown }).parameters = "q";
      expect((await new Validator().validate(broken)).valid).toBe(false);
    }));

  it("gives every operation a summary and exactly one tag, each tag declared once", () =>
    withApp(async (app) => {
      const doc = (await (await app.request("/openapi.json")).json()) as OpenApiDocument;
      const declared = (doc.tags ?? []).map((t) => t.name);
      expect(declared).toEqual(OPENAPI_TAGS.map((t) => t.name));
      expect(new Set(declared).size).toBe(declared.length);
      const ops = operations(doc);
      expect(ops.length).toBeGreaterThanOrEqual(32);
      const lacking = ops.filter(([, op]) => !op.summary?.trim() || op.tags?.length !== 1);
      expect(lacking.map(([name]) => name)).toEqual([]);
      const unknown = ops.filter(([, op]) => !declared.includes(op.tags?.[0] ?? ""));
      expect(unknown.map(([name]) => name)).toEqual([]);
      // Every declared tag has an operation: none is left empty in a viewer.
      const used = new Set(ops.map(([, op]) => op.tags?.[0]));
      expect(declared.filter((tag) => !used.has(tag))).toEqual([]);
    }));

  it("describes POST /mcp with a JSON-RPC body, under the MCP tag", () =>
    withApp(async (app) => {
      const doc = (await (await app.request("/openapi.json")).json()) as OpenApiDocument;
      expect(Object.keys(doc.paths["/mcp"] ?? {})).toEqual(["post"]);
      const mcp = doc.paths["/mcp"]?.post as Operation;
      expect(mcp.tags).toEqual(["MCP"]);
      expect(mcp.requestBody?.content["application/json"]?.schema).toEqual({
        $ref: "#/components/schemas/JsonRpcMessage",
      });
      const message = doc.components.schemas.JsonRpcMessage;
      expect(message?.properties).toMatchObject({ jsonrpc: { enum: ["2.0"] }, method: { type: "string" } });
      expect(message?.required).toEqual(["jsonrpc", "method"]);
      expect(Object.keys(mcp.responses)).toEqual(expect.arrayContaining(["200", "401"]));
    }));
});

describe("the MCP tools' schemas", () => {
  it("have no type arrays: nullable fields are anyOf branches of one type each", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const res = await app.request("/mcp", {
        method: "POST",
        token: apiKey,
        headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(res.status).toBe(200);
      const { result } = (await res.json()) as {
        result: { tools: { name: string; inputSchema: unknown; outputSchema?: unknown }[] };
      };
      expect(result.tools.map((t) => t.name).sort()).toEqual(["forget", "memory", "remember", "search"]);
      expect(typeArrays(result.tools)).toEqual([]);
      // The nullable fields are still nullable, now as two branches.
      const remember = result.tools.find((t) => t.name === "remember") as {
        inputSchema: { properties: Record<string, { anyOf?: { type: string }[] }> };
      };
      expect(remember.inputSchema.properties.impact?.anyOf?.map((b) => b.type)).toEqual(["string", "null"]);
    }));
});

// The authorization server's machine endpoints for MCP clients that sign in: the protected resource metadata
// of /mcp (RFC 9728), the authorization server metadata (RFC 8414), dynamic registration (RFC 7591), the token
// endpoint (authorization code with PKCE, refresh with rotation) and revocation (RFC 7009). They speak OAuth's
// own JSON and error form, which every OAuth client reads, not memoria's envelope. The authorization endpoint
// and its consent page are the page's (src/page/oauth-routes.tsx): a person answers them in a browser.
//
// Browser-based clients (MCP Inspector) call these from another origin, so they answer CORS for any origin;
// none reads a cookie, so no credentialed CORS is offered.

import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../http/env.js";
import { mcpResource, oauthIssuer, PROTECTED_RESOURCE_PATH } from "../http/mcp-challenge.js";
import { publicUrl } from "../http/public-url.js";
import { OAuthError, statusOfOAuthError } from "../oauth-error.js";
import { oauthScopes } from "../oauth-scope.js";
import { MAX_CLIENT_NAME_LENGTH, MAX_REDIRECT_URIS } from "../services/client-metadata.js";
import type { OAuthService } from "../services/oauth.js";
import type { ClientCredentials } from "../services/oauth-clients.js";
import { MAX_REDIRECT_URI_CHARS } from "../services/redirect-uri.js";
import { json } from "./responses.js";
import { router } from "./router.js";

export const OAUTH_PATHS = {
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  revoke: "/oauth/revoke",
} as const;

const AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server";
const ROOT_PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

/** What a client asks to register as (RFC 7591 §2): bounded, so a registration cannot carry a large record. */
export const registrationRequest = z
  .object({
    redirect_uris: z.array(z.string().max(MAX_REDIRECT_URI_CHARS)).min(1).max(MAX_REDIRECT_URIS),
    client_name: z.string().max(MAX_CLIENT_NAME_LENGTH).optional(),
    token_endpoint_auth_method: z.string().max(100).optional(),
    grant_types: z.array(z.string().max(100)).max(10).optional(),
    response_types: z.array(z.string().max(100)).max(10).optional(),
  })
  .openapi("OAuthRegistrationRequest");

const registrationAnswer = z
  .object({
    client_id: z.string(),
    client_secret: z.string().optional(),
    client_id_issued_at: z.number().int(),
    client_secret_expires_at: z.number().int().optional(),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    token_endpoint_auth_method: z.string(),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
  })
  .openapi("OAuthRegistration");

const tokenAnswer = z
  .object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int(),
    refresh_token: z.string(),
    scope: z.enum(oauthScopes),
  })
  .openapi("OAuthToken");

const oauthErrorAnswer = z
  .object({ error: z.string(), error_description: z.string().optional() })
  .openapi("OAuthError");

/** A protocol error in OAuth's form, with no-store as every answer of the token endpoint carries. */
function oauthError(c: Context<AppEnv>, error: OAuthError): Response {
  const status = statusOfOAuthError(error.code);
  // RFC 6749 §5.2: a client that tried to authenticate and failed is told the scheme it may use.
  if (status === 401 && c.req.header("authorization") !== undefined)
    c.header("WWW-Authenticate", 'Basic realm="memoria"');
  c.header("Cache-Control", "no-store");
  return c.json({ error: error.code, error_description: error.description }, status);
}

/** A form body's fields as strings; a field sent twice is refused (RFC 6749 §3.2), as is a body that is no form. */
async function formFields(c: Context<AppEnv>): Promise<Map<string, string>> {
  const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded.");
  const params = new URLSearchParams(await c.req.text());
  const fields = new Map<string, string>();
  for (const [name, value] of params) {
    if (fields.has(name)) throw new OAuthError("invalid_request", "A parameter is sent more than once.");
    fields.set(name, value);
  }
  return fields;
}

/**
 * The client's credentials: HTTP Basic (RFC 6749 §2.3.1, each part form-encoded), or client_id and
 * client_secret in the body; both at once is refused.
 */
function credentialsOf(c: Context<AppEnv>, fields: Map<string, string>): ClientCredentials {
  const header = c.req.header("authorization");
  const basic = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i);
  if (header !== undefined && !basic)
    throw new OAuthError("invalid_client", "Only HTTP Basic client authentication is accepted in a header.");
  if (basic?.[1]) {
    if (fields.has("client_secret"))
      throw new OAuthError("invalid_request", "The client authenticated in two ways at once.");
    let decoded: string;
    try {
      decoded = atob(basic[1]);
    } catch {
      throw new OAuthError("invalid_client", "The Basic credentials do not decode.");
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new OAuthError("invalid_client", "The Basic credentials do not decode.");
    const decode = (part: string) => {
      try {
        return decodeURIComponent(part.replaceAll("+", " "));
      } catch {
        throw new OAuthError("invalid_client", "The Basic credentials do not decode.");
      }
    };
    const clientId = decode(decoded.slice(0, colon));
    const bodyId = fields.get("client_id");
    if (bodyId !== undefined && bodyId !== clientId)
      throw new OAuthError("invalid_client", "client_id differs between the header and the body.");
    return { clientId, clientSecret: decode(decoded.slice(colon + 1)) };
  }
  return { clientId: fields.get("client_id") ?? null, clientSecret: fields.get("client_secret") ?? null };
}

/** `resource` as a client sent it, one trailing slash forgiven (some clients add it to the URL they were given). */
function resourceOf(fields: Map<string, string>, expected: string): string | null {
  const given = fields.get("resource");
  if (given === undefined) return null;
  return given === `${expected}/` ? expected : given;
}

export function oauthRoutes(oauth: OAuthService): OpenAPIHono<AppEnv> {
  const app = router();
  // Ten minutes of preflight caching: a browser-based client signs in with a handful of calls, then refreshes
  // hourly; nothing here changes between releases that a preflight would need to see sooner.
  const anyOrigin = cors({ origin: "*", allowMethods: ["GET", "POST", "OPTIONS"], maxAge: 600 });
  for (const path of [
    PROTECTED_RESOURCE_PATH,
    ROOT_PROTECTED_RESOURCE_PATH,
    AUTHORIZATION_SERVER_PATH,
    OAUTH_PATHS.token,
    OAUTH_PATHS.register,
    OAUTH_PATHS.revoke,
  ])
    app.use(path, anyOrigin);

  const protectedResource = (c: Context<AppEnv>) =>
    c.json({
      resource: mcpResource(c),
      authorization_servers: [oauthIssuer(c)],
      scopes_supported: [...oauthScopes],
      bearer_methods_supported: ["header"],
      resource_name: "memoria",
      resource_documentation: publicUrl(c, "/docs"),
    });
  // The path-aware document clients ask for first, and the root one some ask for instead (one resource here).
  app.get(PROTECTED_RESOURCE_PATH, protectedResource);
  app.get(ROOT_PROTECTED_RESOURCE_PATH, protectedResource);

  app.get(AUTHORIZATION_SERVER_PATH, (c) => {
    const issuer = oauthIssuer(c);
    const authMethods = ["none", "client_secret_basic", "client_secret_post"];
    return c.json({
      issuer,
      authorization_endpoint: `${issuer}${OAUTH_PATHS.authorize}`,
      token_endpoint: `${issuer}${OAUTH_PATHS.token}`,
      registration_endpoint: `${issuer}${OAUTH_PATHS.register}`,
      revocation_endpoint: `${issuer}${OAUTH_PATHS.revoke}`,
      scopes_supported: [...oauthScopes],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: authMethods,
      revocation_endpoint_auth_methods_supported: authMethods,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });

  app.post(OAUTH_PATHS.register, async (c) => {
    c.header("Cache-Control", "no-store");
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return oauthError(c, new OAuthError("invalid_client_metadata", "The body must be a JSON object."));
    }
    const parsed = registrationRequest.safeParse(body);
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path[0];
      const redirect = field === "redirect_uris";
      return oauthError(
        c,
        new OAuthError(
          redirect ? "invalid_redirect_uri" : "invalid_client_metadata",
          `${String(field ?? "body")} is missing or not acceptable.`,
        ),
      );
    }
    try {
      const { client, clientSecret, issuedAt } = await oauth.clients.register(parsed.data);
      return c.json(
        {
          client_id: client.clientId,
          ...(clientSecret === null ? {} : { client_secret: clientSecret, client_secret_expires_at: 0 }),
          client_id_issued_at: issuedAt,
          client_name: client.name,
          redirect_uris: client.redirectUris,
          token_endpoint_auth_method: client.auth.method,
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
        },
        201,
      );
    } catch (error) {
      if (error instanceof OAuthError) return oauthError(c, error);
      throw error;
    }
  });

  app.post(OAUTH_PATHS.token, async (c) => {
    c.header("Cache-Control", "no-store");
    c.header("Pragma", "no-cache");
    try {
      const fields = await formFields(c);
      const credentials = credentialsOf(c, fields);
      const resource = mcpResource(c);
      const grantType = fields.get("grant_type");
      if (grantType === "authorization_code") {
        const code = fields.get("code");
        if (!code) throw new OAuthError("invalid_request", "code is missing.");
        return c.json(
          await oauth.exchangeCode(
            {
              code,
              codeVerifier: fields.get("code_verifier") ?? "",
              redirectUri: fields.get("redirect_uri") ?? null,
              resource: resourceOf(fields, resource),
            },
            credentials,
            resource,
          ),
        );
      }
      if (grantType === "refresh_token") {
        const refreshToken = fields.get("refresh_token");
        if (!refreshToken) throw new OAuthError("invalid_request", "refresh_token is missing.");
        return c.json(
          await oauth.refresh(
            { refreshToken, resource: resourceOf(fields, resource), scope: fields.get("scope") ?? null },
            credentials,
            resource,
          ),
        );
      }
      throw new OAuthError(
        grantType === undefined ? "invalid_request" : "unsupported_grant_type",
        "grant_type must be authorization_code or refresh_token.",
      );
    } catch (error) {
      if (error instanceof OAuthError) return oauthError(c, error);
      throw error;
    }
  });

  app.post(OAUTH_PATHS.revoke, async (c) => {
    c.header("Cache-Control", "no-store");
    try {
      const fields = await formFields(c);
      const credentials = credentialsOf(c, fields);
      const token = fields.get("token");
      if (!token) throw new OAuthError("invalid_request", "token is missing.");
      await oauth.revoke(token, credentials);
      return c.body(null, 200);
    } catch (error) {
      if (error instanceof OAuthError) return oauthError(c, error);
      throw error;
    }
  });

  const described = (
    method: "get" | "post",
    path: string,
    summary: string,
    description: string,
    responses: Parameters<typeof app.openAPIRegistry.registerPath>[0]["responses"],
    body?: { type: string; schema: z.ZodType },
  ) =>
    app.openAPIRegistry.registerPath({
      method,
      path,
      summary,
      description,
      tags: ["OAuth"],
      ...(body
        ? { request: { body: { content: { [body.type]: { schema: body.schema } }, required: true } } }
        : {}),
      responses,
    });
  const metadata = z.record(z.string(), z.unknown());
  described(
    "get",
    PROTECTED_RESOURCE_PATH,
    "Protected resource metadata of /mcp (RFC 9728)",
    "Names this instance as /mcp's authorization server and the scopes it grants. Also served at " +
      "`/.well-known/oauth-protected-resource`.",
    { 200: json(metadata, "The metadata document.") },
  );
  described(
    "get",
    AUTHORIZATION_SERVER_PATH,
    "Authorization server metadata (RFC 8414)",
    "Endpoints, PKCE S256 only, Client ID Metadata Documents and dynamic registration supported.",
    { 200: json(metadata, "The metadata document.") },
  );
  described(
    "post",
    OAUTH_PATHS.register,
    "Dynamic client registration (RFC 7591)",
    "Redirect URIs must be https, http to a loopback host, or an app's own scheme. Nothing is stored: " +
      "the client's record is sealed into the `client_id` it is given.",
    {
      201: json(registrationAnswer, "The registered client."),
      400: json(oauthErrorAnswer, "invalid_redirect_uri or invalid_client_metadata."),
    },
    { type: "application/json", schema: registrationRequest },
  );
  const tokenForm = z.object({
    grant_type: z.enum(["authorization_code", "refresh_token"]),
    code: z.string().optional(),
    code_verifier: z.string().optional(),
    redirect_uri: z.string().optional(),
    refresh_token: z.string().optional(),
    resource: z.string().optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
  });
  described(
    "post",
    OAUTH_PATHS.token,
    "Token endpoint: authorization code with PKCE, or refresh",
    "Access tokens last an hour and are bound to this instance's /mcp URL; a refresh token is spent on use, " +
      "and one spent before ends every token its sign-in issued.",
    {
      200: json(tokenAnswer, "A new access and refresh token."),
      400: json(oauthErrorAnswer, "invalid_request, invalid_grant, invalid_target, unsupported_grant_type."),
      401: json(oauthErrorAnswer, "invalid_client."),
    },
    { type: "application/x-www-form-urlencoded", schema: tokenForm },
  );
  described(
    "post",
    OAUTH_PATHS.revoke,
    "Token revocation (RFC 7009)",
    "Ends the sign-in the token belongs to. Answered 200 whether or not the token was known.",
    { 200: { description: "Revoked, or not known." }, 401: json(oauthErrorAnswer, "invalid_client.") },
    {
      type: "application/x-www-form-urlencoded",
      schema: z.object({ token: z.string(), client_id: z.string().optional() }),
    },
  );

  return app;
}

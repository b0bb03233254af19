// The clients of memoria's authorization server: who they are (a metadata document's URL, fetched with bounds,
// or an id a registration sealed the client's record into, so registering stores nothing), where their codes may
// be sent, and whether a client presenting itself at the token or revocation endpoint is that client.

import type { Clock } from "../clock.js";
import { isDomainError } from "../errors.js";
import { OAuthError } from "../oauth-error.js";
import type { Keyring } from "../seal/keyring.js";
import { generateSecret, tokensEqual } from "../seal/secret.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import {
  openRegisteredClient,
  type RegisteredClient,
  sealRegisteredClient,
} from "../sealed-rows/registered-client.js";
import {
  type ClientMetadataDocument,
  type ClientMetadataFetcher,
  isClientMetadataUrl,
} from "./client-metadata.js";
import { acceptableRedirectUri } from "./redirect-uri.js";

/** A client as memoria knows it: from its metadata document, or carried in the id it registered for. */
export interface OAuthClient {
  clientId: string;
  /**
   * `document`: its id is an https URL whose host vouches for it; `registered`: it registered itself here, and its
   * name is only its own claim.
   */
  kind: "document" | "registered";
  name: string;
  redirectUris: string[];
  auth: RegisteredClient["auth"];
}

/** A client's credentials at the token and revocation endpoints: its id, and its secret if it has one. */
export interface ClientCredentials {
  clientId: string | null;
  clientSecret: string | null;
}

/** A client asking to register (RFC 7591 §2), as sent. */
export interface RegistrationRequest {
  redirect_uris: string[];
  client_name?: string;
  token_endpoint_auth_method?: string;
  grant_types?: string[];
  response_types?: string[];
}

/**
 * The record a registration seals into its client id, at most: a client id travels in every authorization URL
 * and the return cookie, so it must stay well under a URL's and a cookie's 4 KiB. Ten long redirect URIs would
 * not; real clients register one to three.
 */
const MAX_REGISTRATION_BYTES = 2048;

export interface OAuthClientsDeps {
  clock: Clock;
  keyring: Keyring;
  clientMetadata: ClientMetadataFetcher;
}

export class OAuthClients {
  constructor(private readonly deps: OAuthClientsDeps) {}

  /** Registers a client (RFC 7591): nothing is stored; its record is sealed into the client id it is given. */
  async register(
    request: RegistrationRequest,
  ): Promise<{ client: OAuthClient; clientSecret: string | null; issuedAt: number }> {
    const method = request.token_endpoint_auth_method ?? "client_secret_basic";
    if (!["none", "client_secret_basic", "client_secret_post"].includes(method))
      throw new OAuthError(
        "invalid_client_metadata",
        "token_endpoint_auth_method must be none, client_secret_basic or client_secret_post.",
      );
    for (const grant of request.grant_types ?? ["authorization_code"])
      if (grant !== "authorization_code" && grant !== "refresh_token")
        throw new OAuthError(
          "invalid_client_metadata",
          "grant_types may name authorization_code and refresh_token only.",
        );
    for (const type of request.response_types ?? ["code"])
      if (type !== "code")
        throw new OAuthError("invalid_client_metadata", "response_types may name code only.");
    if (!request.redirect_uris.every(acceptableRedirectUri))
      throw new OAuthError(
        "invalid_redirect_uri",
        "Each redirect URI must be https, http to a loopback host, or an app's own scheme, with no fragment.",
      );
    const issuedAt = Math.floor(this.deps.clock.now().getTime() / 1000);
    const clientSecret = method === "none" ? null : generateSecret();
    const record: RegisteredClient = {
      name: request.client_name?.trim() || "An unnamed client",
      redirectUris: request.redirect_uris,
      auth:
        clientSecret === null
          ? { method: "none" }
          : {
              method: method as "client_secret_basic" | "client_secret_post",
              secretHash: hashSecretNow(clientSecret),
            },
      issuedAt,
    };
    if (new TextEncoder().encode(JSON.stringify(record)).length > MAX_REGISTRATION_BYTES)
      throw new OAuthError(
        "invalid_client_metadata",
        "The registration is too large: register fewer or shorter redirect URIs.",
      );
    const clientId = await sealRegisteredClient(this.deps.keyring, record);
    return {
      client: {
        clientId,
        kind: "registered",
        name: record.name,
        redirectUris: record.redirectUris,
        auth: record.auth,
      },
      clientSecret,
      issuedAt,
    };
  }

  /** Whether a client named by a metadata document's URL is known now without fetching it. */
  knowsClient(clientId: string): boolean {
    return this.deps.clientMetadata.cached(clientId);
  }

  /** A client by its id: a metadata document's URL is fetched (bounded, cached); a registered id is opened. */
  async client(clientId: string): Promise<OAuthClient> {
    if (isClientMetadataUrl(clientId)) {
      let document: ClientMetadataDocument;
      try {
        document = await this.deps.clientMetadata.fetch(clientId);
      } catch (error) {
        // One sentence whatever the reason: anyone may name any URL here, and the reasons (a status, a time
        // out, a refused address) would map hosts and ports that are not theirs to know.
        if (isDomainError(error))
          throw new OAuthError(
            "invalid_client",
            "This client's metadata document could not be fetched, or does not hold.",
          );
        throw error;
      }
      if (!document.redirect_uris.every(acceptableRedirectUri))
        throw new OAuthError(
          "invalid_client",
          "This client's metadata document names a redirect URI not allowed here.",
        );
      return {
        clientId,
        kind: "document",
        name: document.client_name?.trim() || new URL(clientId).host,
        redirectUris: document.redirect_uris,
        auth: { method: "none" },
      };
    }
    const record = await openRegisteredClient(this.deps.keyring, clientId);
    if (!record) throw new OAuthError("invalid_client", "This client is not known here; register it again.");
    return {
      clientId,
      kind: "registered",
      name: record.name,
      redirectUris: record.redirectUris,
      auth: record.auth,
    };
  }

  /** Checks a client's credentials against what it registered: none for a public client, else its secret. */
  async authenticate(credentials: ClientCredentials): Promise<OAuthClient> {
    if (!credentials.clientId) throw new OAuthError("invalid_client", "client_id is missing.");
    let client: OAuthClient;
    try {
      client = await this.client(credentials.clientId);
    } catch (error) {
      if (error instanceof OAuthError) throw new OAuthError("invalid_client", error.description);
      throw error;
    }
    if (client.auth.method === "none") {
      if (credentials.clientSecret !== null)
        throw new OAuthError("invalid_client", "This client registered without a secret.");
      return client;
    }
    if (
      credentials.clientSecret === null ||
      !(await tokensEqual(hashSecretNow(credentials.clientSecret), client.auth.secretHash))
    )
      throw new OAuthError("invalid_client", "The client's secret is missing or wrong.");
    return client;
  }
}

// Signing in with an organisation's OpenID Connect provider (MEMORIA_OIDC_*): authorisation code with PKCE,
// `state` and `nonce`, through `openid-client` (decision 0101: discovery, the `iss` check on the answer and
// ID-token validation in one call), loaded on first use. A person is known by (issuer, subject), never by
// email: an address can change hands at a provider, a subject cannot.

import type { OidcConfig } from "../config.js";
import { DomainError } from "../errors.js";
import type { SignInAttempt } from "../seal/sign-in-attempt.js";

type OpenIdClient = typeof import("openid-client");
type Configuration = Awaited<ReturnType<OpenIdClient["discovery"]>>;

/** Who the provider says signed in. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  /** The name and address the provider gives, if it gives them (for a new member's record only). */
  name: string | null;
  email: string | null;
}

/** The provider's answer did not hold: said as one refusal, never the library's message. */
function refused(): DomainError {
  return new DomainError("unauthorized", "The sign-in with your organisation's account was not accepted.");
}

function unreachable(): DomainError {
  return new DomainError("unavailable", "Your organisation's sign-in cannot be reached; try again shortly.");
}

export class OidcService {
  #client: Promise<{ oc: OpenIdClient; config: Configuration }> | null = null;

  constructor(private readonly config: OidcConfig) {}

  /** The provider's host, for the page's button ("Sign in with login.example.com"). */
  get providerName(): string {
    return new URL(this.config.issuer).host;
  }

  /** Discovery once per process; a failure is forgotten, so the next sign-in tries again. */
  #load(): Promise<{ oc: OpenIdClient; config: Configuration }> {
    this.#client ??= (async () => {
      const oc = await import("openid-client");
      const { issuer, clientId, clientSecret, allowHttp } = this.config;
      const config = await oc.discovery(
        new URL(issuer),
        clientId,
        clientSecret,
        oc.ClientSecretBasic(clientSecret),
        allowHttp ? { execute: [oc.allowInsecureRequests] } : undefined,
      );
      // The ID token's signature is checked against the provider's keys too, not only TLS to its token endpoint.
      oc.enableNonRepudiationChecks(config);
      return { oc, config };
    })().catch((error: unknown) => {
      this.#client = null;
      throw error;
    });
    return this.#client;
  }

  /** The provider's authorisation URL for this attempt. 503 when the provider cannot be reached. */
  async authorizationUrl(attempt: SignInAttempt, redirectUri: string): Promise<string> {
    const { oc, config } = await this.#load().catch(() => {
      throw unreachable();
    });
    return oc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: "openid email profile",
      state: attempt.state,
      nonce: attempt.nonce,
      code_challenge: await oc.calculatePKCECodeChallenge(attempt.codeVerifier),
      code_challenge_method: "S256",
    }).href;
  }

  /** Exchanges the provider's answer (the callback URL as the browser opened it) for who signed in; 401 else. */
  async identify(attempt: SignInAttempt, callbackUrl: string): Promise<OidcIdentity> {
    const { oc, config } = await this.#load().catch(() => {
      throw unreachable();
    });
    try {
      const tokens = await oc.authorizationCodeGrant(config, new URL(callbackUrl), {
        pkceCodeVerifier: attempt.codeVerifier,
        expectedState: attempt.state,
        expectedNonce: attempt.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw refused();
      const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value : null);
      return {
        issuer: claims.iss,
        subject: claims.sub,
        name: text(claims.name),
        // Kept only as the provider vouches for it: an address it has not verified could be anyone's.
        email: claims.email_verified === true ? text(claims.email) : null,
      };
    } catch (error) {
      // The provider not answering (a network failure, a timeout) is not a refusal of the person.
      if (error instanceof TypeError || (error instanceof Error && /abort|timeout/i.test(error.name)))
        throw unreachable();
      throw refused();
    }
  }
}

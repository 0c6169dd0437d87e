/**
 * Amazon Cognito sign-in (OpenID Connect, endpoints discovered from the user pool's issuer).
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";
import { firstText, fullName } from "./_shared/claims.js";

/** One linked identity of a user who signed in through a federated provider. */
export interface CognitoIdentity {
  userId: string;
  providerName: string;
  providerType: string;
  issuer?: string | null;
  primary?: string;
  dateCreated?: string;
}

/**
 * The claims of a Cognito user pool ID token, as Cognito documents them: the pool's standard
 * attributes the app client may read, `cognito:` claims, and `custom:` attributes.
 */
export interface CognitoProfile {
  /** The user's unique id in the pool (a UUID). */
  sub: string;
  /** The user name in the pool (for a federated user, `<provider>_<id>`). */
  "cognito:username": string;
  "cognito:groups"?: string[];
  email?: string;
  /** The pool's `email_verified` attribute. */
  email_verified?: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  /** The `picture` attribute, when the pool has one for the user. */
  picture?: string;
  phone_number?: string;
  phone_number_verified?: boolean;
  /** Present for users who signed in through a federated identity provider. */
  identities?: CognitoIdentity[];
  token_use?: "id";
  auth_time?: number;
  [claim: string]: unknown;
}

/** Options of {@link Cognito}: credentials, the user pool's issuer, and any provider field to override. */
export type CognitoOptions = Partial<Omit<OAuthConfig<CognitoProfile>, "type">>;

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#ffffff" d="M12 2 3 7v10l9 5 9-5V7zm0 5a3 3 0 1 1 0 6 3 3 0 0 1 0-6zm-5 10c.6-2.3 2.6-3.5 5-3.5s4.4 1.2 5 3.5z"/></svg>',
  );

/**
 * The Amazon Cognito provider. The issuer is the user pool's,
 * `https://cognito-idp.<region>.amazonaws.com/<userPoolId>` (for example
 * `https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123`), from the `issuer` option or
 * `AUTH_COGNITO_ISSUER`; a configuration without one is refused with an error naming that
 * variable. Discovery at that issuer names the pool's domain for the hosted sign-in pages. Client
 * id and secret (an app client with a secret) come from the options or `AUTH_COGNITO_ID` and
 * `AUTH_COGNITO_SECRET`. The callback URL to register in the app client's "Allowed callback
 * URLs" is `<origin><basePath>/callback/cognito`.
 *
 * Sign-in uses PKCE, state and nonce, the scope `openid profile email` (all three must be allowed
 * scopes of the app client) and `client_secret_basic`. An address Cognito marks
 * `email_verified: false` never finds, links or is stored as a user's address.
 *
 * @example
 * ```ts
 * import Cognito from "@gatehousejs/core/providers/cognito";
 *
 * const provider = Cognito({ issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123" });
 * ```
 */
export default function Cognito(options: CognitoOptions = {}): OAuthConfig<CognitoProfile> {
  return {
    id: "cognito",
    name: "Cognito",
    authorization: { params: { scope: "openid profile email" } },
    checks: ["pkce", "state", "nonce"],
    client: { token_endpoint_auth_method: "client_secret_basic" },
    profile(profile) {
      return {
        id: profile.sub,
        name: firstText(
          profile.name,
          fullName(profile.given_name, profile.family_name),
          profile.preferred_username,
          profile["cognito:username"],
        ),
        email: firstText(profile.email),
        image: firstText(profile.picture),
      };
    },
    style: { bg: "#dd344c", text: "#ffffff", brandColor: "#dd344c", logo },
    ...options,
    type: "oidc",
  };
}

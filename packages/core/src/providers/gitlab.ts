/**
 * GitLab sign-in (OpenID Connect: GitLab.com or a self-managed instance).
 * @module
 */
import { processEnv } from "../lib/env.js";
import type { OAuthConfig } from "../lib/types/providers.js";
import { firstText } from "./_shared/claims.js";

/**
 * The claims GitLab's `/oauth/userinfo` endpoint answers for the `openid profile email` scopes,
 * as GitLab documents them ("GitLab as OpenID Connect identity provider").
 */
export interface GitLabProfile {
  /** The user's id (a string of digits). */
  sub: string;
  /** Deprecated opaque id, kept by GitLab for migrations. */
  sub_legacy?: string;
  /** The user's full name. */
  name?: string;
  /** The username. */
  nickname?: string;
  preferred_username?: string;
  /**
   * The primary address when the application may read it (`email` scope), else the public one.
   */
  email?: string;
  email_verified?: boolean;
  website?: string;
  /** The profile page URL. */
  profile?: string;
  /** The avatar URL. */
  picture?: string;
  /** Paths of the groups the user belongs to, directly or through an ancestor group. */
  groups?: string[];
  /** Paths of the groups the user is a direct member of. */
  groups_direct?: string[];
  "https://gitlab.org/claims/groups/owner"?: string[];
  "https://gitlab.org/claims/groups/maintainer"?: string[];
  "https://gitlab.org/claims/groups/developer"?: string[];
  [claim: string]: unknown;
}

/** Options of {@link GitLab}. */
export type GitLabOptions = Partial<Omit<OAuthConfig<GitLabProfile>, "type">>;

/** GitLab.com's issuer; a self-managed instance's is its URL (`issuer` or `AUTH_GITLAB_ISSUER`). */
export const GITLAB_ISSUER = "https://gitlab.com";

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#ffffff" d="m12 21.5-9.3-7a1 1 0 0 1-.3-1.1L5.3 4a.5.5 0 0 1 1 0L8.4 10h7.2l2.1-6a.5.5 0 0 1 1 0l2.9 9.4a1 1 0 0 1-.3 1.1z"/></svg>',
  );

/**
 * The GitLab provider. Client id and secret (the application's "Application ID" and "Secret")
 * come from the options or from `AUTH_GITLAB_ID` and `AUTH_GITLAB_SECRET`; a self-managed
 * instance is named by the `issuer` option or `AUTH_GITLAB_ISSUER` (default
 * `https://gitlab.com`). The callback URL to register is `<origin><basePath>/callback/gitlab`;
 * the application needs the `openid`, `profile` and `email` scopes.
 *
 * Sign-in uses PKCE (S256), state and nonce. GitLab's ID token carries only some claims (its
 * documentation lists which), so the profile is read from the userinfo endpoint, whose subject
 * must match the ID token's. An address GitLab marks `email_verified: false` never finds, links or
 * is stored as a user's address.
 *
 * @example
 * ```ts
 * import GitLab from "@gatehousejs/core/providers/gitlab";
 *
 * const selfManaged = GitLab({ issuer: "https://gitlab.example.com" });
 * ```
 */
export default function GitLab(options: GitLabOptions = {}): OAuthConfig<GitLabProfile> {
  return {
    id: "gitlab",
    name: "GitLab",
    authorization: { params: { scope: "openid profile email" } },
    checks: ["pkce", "state", "nonce"],
    idToken: false,
    profile(profile) {
      return {
        id: profile.sub,
        name: firstText(profile.name, profile.nickname, profile.preferred_username),
        email: firstText(profile.email),
        image: firstText(profile.picture),
      };
    },
    style: { bg: "#fc6d26", text: "#ffffff", brandColor: "#fc6d26", logo },
    ...options,
    issuer: options.issuer ?? (processEnv().AUTH_GITLAB_ISSUER || GITLAB_ISSUER),
    type: "oidc",
  };
}

/**
 * The app's Gatehouse configuration, as next-auth v5's `auth.ts`: the auth route's handlers,
 * `auth` (the session in Server Components and Server Actions, and the proxy), `signIn` and
 * `signOut` for Server Actions. Server-only: the password check, the database and the secrets
 * live here.
 */
import { hashPassword, needsRehash, verifyPassword } from "@gatehousejs/core/password";
import Credentials from "@gatehousejs/core/providers/credentials";
import Nodemailer from "@gatehousejs/core/providers/nodemailer";
import OIDC from "@gatehousejs/core/providers/oidc";
import Passkey from "@gatehousejs/core/providers/passkey";
import Password from "@gatehousejs/core/providers/password";
import TwoFactor from "@gatehousejs/core/two-factor";
import Gatehouse, { type GatehouseConfig } from "@gatehousejs/nextjs";
import { PostgresAdapter } from "@gatehousejs/pg-adapter";
import { db, revocationStore, securityEventStore } from "./lib/db";

/** The app's name and colour, also worn by the built-in sign-in pages. */
export const BRAND = { name: "Gatehouse Demo", color: "#1d4ed8", logo: "/logo.svg" } as const;

/** The pages the proxy (proxy.ts) lets through only with a verified session. */
export const PROTECTED_PATHS = ["/protected"];

async function checkPassword(email: string, password: string) {
  const { rows } = await db.query(
    `SELECT u.id, u.name, u.email, p.hash FROM users u JOIN app_passwords p ON p."userId" = u.id
     WHERE u.email = $1`,
    [email.trim().toLowerCase()],
  );
  const row = rows[0] as
    | { id: string; name: string | null; email: string; hash: string }
    | undefined;
  // With no such user this still runs scrypt, so the time taken does not tell which exist.
  const matches = await verifyPassword(password, row?.hash ?? null);
  if (!row || !matches) return null;
  // An older or weaker hash is replaced while the right password is at hand.
  if (needsRehash(row.hash)) {
    await db
      .query(`UPDATE app_passwords SET hash = $1 WHERE "userId" = $2 AND hash = $3`, [
        await hashPassword(password),
        row.id,
        row.hash,
      ])
      .catch(() => console.warn("[auth] could not upgrade a password hash"));
  }
  return { id: row.id, name: row.name, email: row.email };
}

/** The sign-in methods: the OpenID provider only when one is configured (see the README). */
function providers(): GatehouseConfig["providers"] {
  const list: GatehouseConfig["providers"] = [
    Credentials({
      name: "Email and password",
      credentials: {
        email: { label: "Email", type: "email" },
        password: { label: "Password", type: "password" },
      },
      authorize: ({ email, password }) =>
        typeof email === "string" && typeof password === "string"
          ? checkPassword(email, password)
          : null,
    }),
    // The link opens a confirmation page (mail scanners cannot use it); the code is typed on
    // the "check your email" page, in the browser that asked for it. EMAIL_SERVER says where
    // the mail goes: the demo's SMTP capture, or your server.
    Nodemailer({ name: "Email link", code: true }),
    // Accounts people make themselves: sign-up with a proven address, reset and change, the
    // hash in the adapter's accounts table. Its mail goes where the email link's does.
    Password({ name: "Password account" }),
  ];
  // The local OpenID provider in demo mode, or a real one configured the same way.
  if (process.env.AUTH_OIDC_ISSUER) {
    list.push(OIDC({ name: process.env.AUTH_OIDC_NAME ?? "OpenID Connect" }));
  }
  list.push(Passkey());
  return list;
}

/**
 * Everything but the Next-only keys: JWT sessions people can list and end (through the
 * revocation store), a security activity log, and users, accounts and passkeys in PostgreSQL
 * (or PGlite). `listSecurityEvents(authConfig, …)` on the activity page reads it too.
 */
export const authConfig = {
  adapter: PostgresAdapter(db),
  session: { strategy: "jwt", revocation: { store: revocationStore } },
  securityLog: { store: securityEventStore, retentionDays: 90 },
  experimental: { enableWebAuthn: true },
  providers: providers(),
  // Two-factor sign-in, set up on the app's /two-factor page: after a password, an email link or
  // a code, a user who turned it on is asked for a code (or a backup code) on the built-in
  // challenge page before any session exists.
  twoFactor: TwoFactor({ issuer: "Gatehouse demo" }),
  theme: { brandColor: BRAND.color, logo: BRAND.logo, buttonText: "#ffffff" },
  callbacks: {
    jwt({ token, trigger, session }) {
      // update({ name }) from the profile page: only a display name is accepted from the client.
      if (trigger === "update") {
        const name = (session as { name?: unknown } | undefined)?.name;
        if (typeof name === "string" && name.trim() !== "") token.name = name.trim().slice(0, 80);
      }
      return token;
    },
    session({ session, token, user }) {
      // The user's id, for the pages that read the user's own sessions and activity.
      const id = user?.id ?? token?.sub;
      if (session.user && id) session.user.id = id;
      return session;
    },
  },
  logger: {
    warn(code) {
      if (code !== "experimental-webauthn") console.warn(`[auth] warning: ${code}`);
    },
  },
} satisfies GatehouseConfig;

export const { handlers, auth, signIn, signOut } = Gatehouse({
  ...authConfig,
  // Signed out, these go to the built-in sign-in page, which comes back to them.
  protect: PROTECTED_PATHS,
});

/** A sign-in method's display name by its id ("credentials" is "Email and password"). */
export function providerName(id: string | null | undefined): string | null {
  if (!id) return null;
  for (const provider of authConfig.providers ?? []) {
    if (typeof provider !== "function" && provider.id === id) return provider.name;
  }
  return id;
}

/** Every sign-in method's display name by id, for the sessions page. */
export function providerNames(): Record<string, string> {
  const names: Record<string, string> = {};
  for (const provider of authConfig.providers ?? []) {
    if (typeof provider !== "function") names[provider.id] = provider.name;
  }
  return names;
}

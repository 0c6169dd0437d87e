/**
 * The app's Gatehouse configuration, shared by the auth route, the pages and the middleware.
 * Server-only: the password check, the database and the secrets live here.
 */
import TwoFactor from "@gatehousejs/core/two-factor";
import { PostgresAdapter } from "@gatehousejs/pg-adapter";
import { peerAddressOf, type SolidAuthConfig } from "@gatehousejs/solid-start";
import Credentials from "@gatehousejs/solid-start/providers/credentials";
import Nodemailer from "@gatehousejs/solid-start/providers/nodemailer";
import OIDC from "@gatehousejs/solid-start/providers/oidc";
import Passkey from "@gatehousejs/solid-start/providers/passkey";
import Password from "@gatehousejs/solid-start/providers/password";
import TikTok from "@gatehousejs/solid-start/providers/tiktok";
import { db, revocationStore, securityEventStore } from "./db";
import { isDemo } from "./env";
import { hashPassword, needsRehash, verifyPassword } from "./password";

/** The app's name and colours, also used by the built-in sign-in pages. */
export const BRAND = { name: "Gatehouse Demo", color: "#1d4ed8", logo: "/logo.svg" } as const;

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

/** The sign-in methods: which ones depend on the environment (see the README). */
function providers(): SolidAuthConfig["providers"] {
  const list: SolidAuthConfig["providers"] = [
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
    // the "check your email" page, in the browser that asked for it.
    Nodemailer({ name: "Email link", code: true }),
    // Accounts people make themselves: sign-up with a proven address, reset and change, the
    // hash in the adapter's accounts table. Its mail goes where the email link's does
    // (EMAIL_SERVER: the demo's SMTP capture, or your server).
    Password({ name: "Password account" }),
  ];
  // The local OpenID provider in demo mode, or a real one configured the same way.
  if (process.env.AUTH_OIDC_ISSUER) {
    list.push(OIDC({ name: process.env.AUTH_OIDC_NAME ?? "OpenID Connect" }));
  }
  // The built-in page shows the passkey buttons only: a passkey names its user.
  list.push(Passkey());
  if (process.env.AUTH_TIKTOK_ID && process.env.AUTH_TIKTOK_SECRET) list.push(TikTok());
  return list;
}

/**
 * The rate limits, written out so that the demo's home page can say which apply (they are
 * core's defaults). They count per client address: see `clientAddress` below.
 */
export const RATE_LIMITS = {
  credentials: {
    perClient: { max: 30, windowSeconds: 60 },
    failures: { freeAttempts: 5, baseSeconds: 1, maxSeconds: 15 * 60 },
  },
  email: {
    perAddress: { max: 3, windowSeconds: 10 * 60 },
    perClient: { max: 10, windowSeconds: 10 * 60 },
  },
  webauthn: { perClient: { max: 60, windowSeconds: 60 } },
  oauth: { perClient: { max: 60, windowSeconds: 60 } },
} as const satisfies SolidAuthConfig["rateLimit"];

/**
 * JWT sessions by default; `AUTH_SESSION_STRATEGY=database` keeps them as rows in the database
 * instead (the browser tests run the app both ways).
 */
export function sessionStrategy(): "jwt" | "database" {
  return process.env.AUTH_SESSION_STRATEGY === "database" ? "database" : "jwt";
}

/**
 * The configuration: sessions people can list and end (JWT sessions through the revocation
 * store, database sessions as rows), a security activity log, two-factor sign-in, and accounts,
 * passkeys and second factors, all stored in PostgreSQL (or PGlite).
 */
export const authConfig: SolidAuthConfig = {
  adapter: PostgresAdapter(db),
  session: { strategy: sessionStrategy(), revocation: { store: revocationStore } },
  securityLog: { store: securityEventStore, retentionDays: 90 },
  experimental: { enableWebAuthn: true },
  providers: providers(),
  // Two-factor sign-in: "Two-factor sign-in" on the Account page opens the built-in settings
  // page, where a user enrols an authenticator app; after a password, an email link or a code,
  // such a user is asked for a code (or a backup code) before any session exists.
  twoFactor: TwoFactor({ issuer: "Gatehouse demo" }),
  rateLimit: RATE_LIMITS,
  // Demo mode runs on your machine with nothing in front of the server: the socket's peer (your
  // browser, on loopback) is the client. Deployed behind a proxy, set AUTH_TRUSTED_PROXIES
  // instead; deployed without one, the integration uses a public peer address by itself.
  clientAddress: isDemo() ? peerAddressOf : undefined,
  theme: { brandColor: BRAND.color, logo: BRAND.logo, buttonText: "#ffffff" },
  callbacks: {
    jwt({ token, trigger, session }) {
      // POST /session from the profile page: only a display name is accepted from the client.
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
};

/**
 * Module augmentation as Auth.js users write it: `Session`, `User` and `JWT` take new fields, a
 * property `DefaultSession` already has is redeclared narrower, and the new fields reach the
 * `session` and `jwt` callbacks, the `session` event and what the JWT helpers return.
 */
import { decode, getToken } from "@gatehousejs/core/jwt";
import type {
  AuthConfig,
  DefaultSession,
  JWT,
  Session,
  SessionCallbackResult,
  User,
} from "@gatehousejs/core/types";

declare module "@gatehousejs/core/types" {
  interface Session {
    user: { address: string } & DefaultSession["user"];
    accessToken?: string;
  }
  interface User {
    address?: string;
  }
}

declare module "@gatehousejs/core/jwt" {
  interface JWT {
    address?: string;
    role?: "admin" | "member";
  }
}

export const config = {
  providers: [],
  callbacks: {
    jwt({ token, user }) {
      if (user) token.address = user.address;
      // @ts-expect-error TS2322 role is "admin" or "member"
      token.role = "owner";
      return token;
    },
    session({ strategy, session, token, user }) {
      const address = (strategy === "jwt" ? token.address : user.address) ?? "";
      return { ...session, user: { ...session.user, address } };
    },
  },
  events: {
    session({ session }) {
      const address: string = session.user.address;
      void address;
    },
  },
} satisfies AuthConfig;

// The callback's answer must carry the augmented fields.
export const answer: SessionCallbackResult = {
  expires: new Date(),
  user: { name: "Ada", address: "1 Loop Rd" },
  accessToken: "at",
};
// @ts-expect-error TS2322 the augmented Session requires user.address
export const missing: SessionCallbackResult = { expires: "", user: { name: "Ada" } };
// @ts-expect-error TS2322 accessToken is a string
export const wrong: Session = { expires: "", user: { address: "x" }, accessToken: 1 };

// The stored user, and every other User, carries the augmented field.
export const stored: User = { id: "1", address: "1 Loop Rd" };

// The JWT helpers return the augmented claims.
export async function helpers(request: Request): Promise<string | undefined> {
  const token: JWT | null = await getToken({ req: request, secret: "s" });
  const decoded = await decode({ token: "t", salt: "authjs.session-token", secret: "s" });
  const role: "admin" | "member" | undefined = decoded?.role;
  return role ?? token?.address;
}

// The Auth.js-style callback that publishes the stored user's field, under database sessions.
export const database = {
  providers: [],
  callbacks: {
    session({ strategy, session, user }) {
      if (strategy !== "database") return { ...session, user: { ...session.user, address: "" } };
      return { ...session, user: { ...session.user, address: user.address ?? "" } };
    },
  },
} satisfies AuthConfig;

// A callback that forgets user.address, or returns it as a number, is a type error.
export const forgets = {
  providers: [],
  callbacks: {
    // @ts-expect-error TS2322 the stored user (database sessions) has no required address
    session: ({ session }) => session,
  },
} satisfies AuthConfig;
export const asNumber = {
  providers: [],
  callbacks: {
    // @ts-expect-error TS2322 address is a string
    session: ({ session }) => ({ ...session, user: { ...session.user, address: 1 } }),
  },
} satisfies AuthConfig;

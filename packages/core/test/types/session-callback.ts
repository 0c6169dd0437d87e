/**
 * The `session` callback is typed by strategy: `token` under JWT sessions, `user` (and a `Date`
 * expiry) under database sessions. Each `@ts-expect-error` names the error it expects; the test
 * checks that exactly that error happens on the next line.
 */
import type { AuthConfig, CallbacksOptions, Session } from "@gatehousejs/core/types";

type SessionCallback = NonNullable<CallbacksOptions["session"]>;

// The Auth.js snippet that crashes under JWT sessions (there is no `user`) is a type error.
export const commonSnippet: SessionCallback = ({ session, user }) => ({
  ...session,
  // @ts-expect-error TS18048 `user` is possibly undefined: there is none under JWT sessions
  user: { ...session.user, id: user.id },
});

// Reading the token without knowing the strategy is a type error too.
export const tokenSnippet: SessionCallback = ({ session, token }) => ({
  ...session,
  // @ts-expect-error TS18048 `token` is possibly undefined: there is none under database sessions
  sub: token.sub,
});

// Auth.js code that destructures everything still compiles, and narrowing makes it sound.
export const narrowed: SessionCallback = ({
  strategy,
  session,
  token,
  user,
  newSession,
  trigger,
}) => {
  if (strategy === "jwt") {
    const expires: string = session.expires;
    // No trigger under JWT sessions: updates go to the jwt callback.
    const none: undefined = trigger;
    return { ...session, expires, none, user: { ...session.user, id: token.sub } };
  }
  // Database sessions: the stored user, the stored expiry as a Date, and updates.
  const expires: Date = session.expires;
  const storedUser: typeof user = session.user;
  const verified: Date | null = user.emailVerified;
  const absent: undefined = session.sessionToken;
  if (trigger === "update" && typeof newSession === "string") return { ...session, newSession };
  return { ...session, expires, user: { id: storedUser.id }, verified, absent };
};

// Narrowing on `token` or `user` works as well.
export const byPresence: SessionCallback = ({ session, token, user }) => {
  if (token) return { ...session, sub: token.sub };
  if (user) return { ...session, user: { ...session.user, id: user.id } };
  return session;
};

// The answer is a Session; `expires` may be a Date (it is sent as its ISO string), not a number.
// @ts-expect-error TS2322 expires is a string or a Date
export const badExpiry: SessionCallback = ({ session }) => ({ ...session, expires: 0 });

// In a configuration, contextually typed.
export const config = {
  providers: [],
  callbacks: {
    session({ strategy, session, token, user }) {
      const id = strategy === "jwt" ? token.sub : user.id;
      return { ...session, user: { ...session.user, id } };
    },
  },
  events: {
    session({ session }) {
      const expires: string = session.expires;
      void expires;
    },
  },
} satisfies AuthConfig;

// What the client sees has a string expiry.
export const seen: Session = { expires: new Date(0).toISOString() };
// @ts-expect-error TS2322 the client's session has an ISO string, not a Date
export const notADate: Session = { expires: new Date(0) };

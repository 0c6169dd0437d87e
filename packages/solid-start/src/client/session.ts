/**
 * `createSession()`: the session as Solid signals, for components.
 */
import type { Session } from "@gatehousejs/core/types";
import { createSignal, getOwner, onCleanup } from "solid-js";
import { isServer } from "solid-js/web";
import { basePathOf } from "./base-path.js";
import { fetchCsrfToken, onSessionChange } from "./transport.js";

/** Where a session stands: not known yet, present, or absent. */
export type SessionStatus = "loading" | "authenticated" | "unauthenticated";

/** Options of {@link createSession}. */
export interface CreateSessionOptions {
  /** The auth route's base path. Default: `configureClient`'s, else `/api/auth`. */
  basePath?: string;
}

/** The reactive session {@link createSession} returns. */
export interface SessionResource {
  /** The session; `null` when signed out, `undefined` while loading (and on the server). */
  session(): Session | null | undefined;
  /** `"loading"` until the first answer, then `"authenticated"` or `"unauthenticated"`. */
  status(): SessionStatus;
  /** Reads the session again (`GET <basePath>/session`) and resolves with it. */
  refetch(): Promise<Session | null>;
  /**
   * Updates the session (`POST <basePath>/session` with `{ csrfToken, data }`): the `jwt` and
   * `session` callbacks see `trigger: "update"` and `data`. Resolves with the new session.
   */
  update(data?: unknown): Promise<Session | null>;
}

function asSession(body: unknown): Session | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  return Object.keys(body).length === 0 ? null : (body as Session);
}

async function readSession(response: Response): Promise<Session | null> {
  if (!response.ok) {
    throw new Error(`The auth route answered ${response.status} for the session`);
  }
  return asSession(await response.json());
}

/**
 * The session of the visitor as signals, fetched from `<basePath>/session` in the browser.
 * On the server it stays `loading` (no request is made): read the session there with
 * `getSession` or `requireSession` instead. It refetches after {@link signIn} or
 * {@link signOut} calls that stay on the page (`redirect: false`).
 *
 * @example
 * ```tsx
 * import { createSession, signOut } from "@gatehousejs/solid-start/client";
 * import { Show } from "solid-js";
 *
 * export function UserBadge() {
 *   const { session, status } = createSession();
 *   return (
 *     <Show when={status() === "authenticated"} fallback={<a href="/api/auth/signin" rel="external">Sign in</a>}>
 *       <span>{session()?.user?.name}</span>
 *       <button type="button" onClick={() => signOut()}>Sign out</button>
 *     </Show>
 *   );
 * }
 * ```
 */
export function createSession(options: CreateSessionOptions = {}): SessionResource {
  const base = basePathOf(options.basePath);
  const [session, setSession] = createSignal<Session | null | undefined>(undefined, {
    equals: false,
  });
  // Answers can arrive out of order: only the latest request may set the signal.
  let latest = 0;

  const settle = async (request: Promise<Response>): Promise<Session | null> => {
    const ticket = ++latest;
    try {
      const value = await readSession(await request);
      if (ticket === latest) setSession(value);
      return value;
    } catch (error) {
      if (ticket === latest && session() === undefined) setSession(null);
      throw error;
    }
  };

  const refetch = () =>
    settle(
      fetch(`${base}/session`, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      }),
    );

  const update = async (data?: unknown) => {
    const csrfToken = await fetchCsrfToken(base);
    return settle(
      fetch(`${base}/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ csrfToken, data }),
        credentials: "same-origin",
      }),
    );
  };

  if (!isServer) {
    refetch().catch(() => undefined);
    const unsubscribe = onSessionChange(() => {
      refetch().catch(() => undefined);
    });
    if (getOwner()) onCleanup(unsubscribe);
  }

  const status = (): SessionStatus => {
    const value = session();
    return value === undefined ? "loading" : value ? "authenticated" : "unauthenticated";
  };

  return { session, status, refetch, update };
}

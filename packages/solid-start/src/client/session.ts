/**
 * `createSession()`: the session as Solid signals, for components, over core's session source.
 */
import { createSessionSource, type SessionStatus, statusOf } from "@gatehousejs/core/client";
import type { Session } from "@gatehousejs/core/types";
import { createSignal, getOwner, onCleanup } from "solid-js";
import { isServer } from "solid-js/web";

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
  const [session, setSession] = createSignal<Session | null | undefined>(undefined, {
    equals: false,
  });
  const source = createSessionSource({
    basePath: options.basePath,
    onChange: (value) => setSession(value),
  });
  if (!isServer) {
    const stop = source.follow();
    if (getOwner()) onCleanup(stop);
  }
  return {
    session,
    status: () => statusOf(session()),
    refetch: source.refetch,
    update: source.update,
  };
}

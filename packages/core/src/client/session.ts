/**
 * The session as the browser sees it: read from `<basePath>/session`, updated through it, and
 * read again after this client's sign-ins and sign-outs. A framework integration wraps it in its
 * own reactive state (Solid signals, a React store).
 */
import type { Session } from "../types.js";
import { basePathOf } from "./base-path.js";
import { fetchCsrfToken, onSessionChange } from "./transport.js";

/** Where a session stands: not known yet, present, or absent. */
export type SessionStatus = "loading" | "authenticated" | "unauthenticated";

/** The status of a session value: `undefined` is loading, `null` signed out. */
export function statusOf(session: Session | null | undefined): SessionStatus {
  return session === undefined ? "loading" : session ? "authenticated" : "unauthenticated";
}

/** Options of {@link createSessionSource}. */
export interface SessionSourceOptions {
  /** The auth route's base path. Default: `configureClient`'s, else `/api/auth`. */
  basePath?: string;
  /**
   * Told every value the source takes: the session, or `null` when signed out (also when the
   * first read fails, so that nothing waits on a load that ended).
   */
  onChange?: (session: Session | null) => void;
}

/** The session of the visitor, read from the auth route: what {@link createSessionSource} returns. */
export interface SessionSource {
  /** The last value read: `undefined` until the first answer, then the session or `null`. */
  current(): Session | null | undefined;
  /** Reads the session again (`GET <basePath>/session`) and resolves with it. */
  refetch(): Promise<Session | null>;
  /**
   * Updates the session (`POST <basePath>/session` with `{ csrfToken, data }`): the `jwt` and
   * `session` callbacks see `trigger: "update"` and `data`. Resolves with the new session.
   */
  update(data?: unknown): Promise<Session | null>;
  /**
   * Reads the session now and again after every sign-in, sign-out or revocation of this client
   * that stayed on the page. Returns the function that stops following.
   */
  follow(): () => void;
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
 * The session of the visitor, read from the auth route. Answers can arrive out of order (a
 * refetch after a sign-in overtaken by an older one): only the latest request's answer becomes
 * the value. Nothing is fetched until `refetch`, `update` or `follow` is called, so it can be
 * created during server rendering.
 *
 * @example
 * ```ts
 * import { createSessionSource } from "@gatehousejs/core/client";
 *
 * const source = createSessionSource({
 *   onChange: (session) => {
 *     document.title = session?.user?.name ?? "Signed out";
 *   },
 * });
 * const stop = source.follow();
 * // later, when the page goes: stop();
 * ```
 */
export function createSessionSource(options: SessionSourceOptions = {}): SessionSource {
  const base = basePathOf(options.basePath);
  let value: Session | null | undefined;
  let latest = 0;

  const set = (session: Session | null) => {
    value = session;
    options.onChange?.(session);
  };

  const settle = async (request: Promise<Response>): Promise<Session | null> => {
    const ticket = ++latest;
    try {
      const session = await readSession(await request);
      if (ticket === latest) set(session);
      return session;
    } catch (error) {
      if (ticket === latest && value === undefined) set(null);
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

  const follow = () => {
    refetch().catch(() => undefined);
    return onSessionChange(() => {
      refetch().catch(() => undefined);
    });
  };

  return { current: () => value, refetch, update, follow };
}

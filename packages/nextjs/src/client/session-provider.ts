"use client";
/**
 * `SessionProvider` and `useSession()`: the session in React, seeded by the server so the first
 * render already knows it, and kept current over core's session source.
 */
import {
  createSessionSource,
  onSessionChange,
  type SessionStatus,
  statusOf,
} from "@gatehousejs/core/client";
import type { Session } from "@gatehousejs/core/types";
import {
  createContext,
  createElement,
  type ReactNode,
  useContext,
  useEffect,
  useMemo,
  useState,
} from "react";

/** What {@link useSession} returns. */
export interface SessionContextValue {
  /** The session; `null` when signed out, `undefined` while loading. */
  data: Session | null | undefined;
  /** `"loading"` until the session is known, then `"authenticated"` or `"unauthenticated"`. */
  status: SessionStatus;
  /**
   * Updates the session (`POST <basePath>/session`): the `jwt` and `session` callbacks see
   * `trigger: "update"` and `data`; without `data` it reads the session again. Resolves with
   * the new session.
   */
  update(data?: unknown): Promise<Session | null>;
}

const SessionContext = createContext<SessionContextValue | undefined>(undefined);

/** Props of {@link SessionProvider}. */
export interface SessionProviderProps {
  children?: ReactNode;
  /**
   * The session from the server (`await auth()` in the layout): the first render, on the server
   * and in the browser, shows it, with no signed-out flash and no request. `undefined` (not
   * passed): the session is fetched in the browser.
   */
  session?: Session | null;
  /** The auth route's base path. Default: `configureClient`'s, else `/api/auth`. */
  basePath?: string;
  /** Read the session again when the tab becomes visible. Default `true`. */
  refetchOnWindowFocus?: boolean;
  /** Read the session again every this many seconds (`0`: never). Default `0`. */
  refetchInterval?: number;
}

/**
 * Provides the session to `useSession()` below it. Put it in the root layout with the session
 * the server read, so pages render signed in from the first byte (streamed or not).
 *
 * @example
 * ```ts
 * // app/layout.tsx, written with createElement here
 * import { SessionProvider } from "@gatehousejs/nextjs/client";
 * import { createElement, type ReactNode } from "react";
 *
 * declare function auth(): Promise<import("@gatehousejs/nextjs").Session | null>;
 * export default async function RootLayout({ children }: { children: ReactNode }) {
 *   const session = await auth();
 *   return createElement(SessionProvider, { session }, children);
 * }
 * ```
 */
export function SessionProvider(props: SessionProviderProps): ReactNode {
  const { basePath, refetchOnWindowFocus = true, refetchInterval = 0 } = props;
  const [session, setSession] = useState<Session | null | undefined>(props.session);
  const source = useMemo(
    () => createSessionSource({ basePath, onChange: (value) => setSession(value) }),
    [basePath],
  );
  const seeded = props.session !== undefined;

  // A new server render (after a Server Action, router.refresh()) brings a newer session.
  useEffect(() => {
    if (props.session !== undefined) setSession(props.session);
  }, [props.session]);

  useEffect(() => {
    if (!seeded) return source.follow();
    return onSessionChange(() => {
      source.refetch().catch(() => undefined);
    });
  }, [source, seeded]);

  useEffect(() => {
    if (!refetchOnWindowFocus || typeof document === "undefined") return;
    const onVisible = () => {
      if (document.visibilityState === "visible") source.refetch().catch(() => undefined);
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, [source, refetchOnWindowFocus]);

  useEffect(() => {
    if (!(refetchInterval > 0)) return;
    const timer = setInterval(() => {
      source.refetch().catch(() => undefined);
    }, refetchInterval * 1000);
    return () => clearInterval(timer);
  }, [source, refetchInterval]);

  const value = useMemo<SessionContextValue>(
    () => ({
      data: session,
      status: statusOf(session),
      update: (data?: unknown) => (data === undefined ? source.refetch() : source.update(data)),
    }),
    [session, source],
  );
  return createElement(SessionContext.Provider, { value }, props.children);
}

/** Options of {@link useSession}. */
export interface UseSessionOptions {
  /**
   * The page needs a session: once the visitor is known to be signed out, `onUnauthenticated`
   * runs, by default a visit to the sign-in page with `callbackUrl` set to this page.
   */
  required?: boolean;
  /** What to do for a signed-out visitor when `required` is set. */
  onUnauthenticated?: () => void;
  /** The auth route's base path, for the default sign-in redirect. Default `/api/auth`. */
  basePath?: string;
}

/**
 * The session of the visitor, from the nearest {@link SessionProvider}: `{ data, status,
 * update }`. Throws when no provider is above the component.
 *
 * @example
 * ```ts
 * "use client";
 * import { useSession } from "@gatehousejs/nextjs/client";
 *
 * export function Greeting() {
 *   const { data, status } = useSession();
 *   return status === "authenticated" ? `Hello ${data?.user?.name}` : "Hello";
 * }
 * ```
 */
export function useSession(options: UseSessionOptions = {}): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) {
    throw new Error("useSession() must be used inside a <SessionProvider>");
  }
  const { required, onUnauthenticated, basePath = "/api/auth" } = options;
  const unauthenticated = value.status === "unauthenticated";
  useEffect(() => {
    if (!required || !unauthenticated) return;
    if (onUnauthenticated) onUnauthenticated();
    else {
      const here = `${window.location.pathname}${window.location.search}`;
      window.location.assign(`${basePath}/signin?callbackUrl=${encodeURIComponent(here)}`);
    }
  }, [required, unauthenticated, onUnauthenticated, basePath]);
  return value;
}

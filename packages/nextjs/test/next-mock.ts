/**
 * A stand-in for what Next.js gives server code: `headers()` and `cookies()` of `next/headers`
 * over one request, with the cookie store read-only (a Server Component) or writable (a Server
 * Action, a Route Handler) as Next.js makes it, and `redirect()` of `next/navigation`, which
 * throws as Next's does.
 */
/** The error `redirect()` throws here, carrying the location. */
export class RedirectSignal extends Error {
  constructor(readonly location: string) {
    super(`NEXT_REDIRECT ${location}`);
  }
}

/** A cookie set through `cookies().set`. */
export interface SetCall {
  name: string;
  value: string;
  options: Record<string, unknown>;
}

interface Scene {
  headers: Headers;
  writable: boolean;
  sets: SetCall[];
  /** Calls of a read-only store's `set` (each threw, as Next's does). */
  refused: number;
}

const scene: Scene = { headers: new Headers(), writable: false, sets: [], refused: 0 };

/** How many times code tried to set a cookie in a read-only (Server Component) store. */
export function refusedSets(): number {
  return scene.refused;
}

/** Next's read-only store: `set`, `delete` and `clear` are one function that throws. */
function readOnlyStore() {
  const refuse = () => {
    scene.refused++;
    throw new Error("Cookies can only be modified in a Server Action or Route Handler.");
  };
  return { get: () => undefined, getAll: () => [], set: refuse, delete: refuse, clear: refuse };
}

function writableStore() {
  return {
    get: () => undefined,
    getAll: () => [],
    set(name: string, value: string, options: Record<string, unknown> = {}) {
      scene.sets.push({ name, value, options });
    },
    delete(name: string) {
      scene.sets.push({ name, value: "", options: { maxAge: 0 } });
    },
  };
}

/**
 * `next/headers` as the tests serve it. Each test file mocks the module with it:
 * `vi.mock("next/headers", async () => (await import("./next-mock.js")).nextHeaders)`.
 */
export const nextHeaders = {
  headers: async () => scene.headers,
  cookies: async () => (scene.writable ? writableStore() : readOnlyStore()),
};

/** `next/navigation`'s `redirect()`, throwing a {@link RedirectSignal}. */
export const nextNavigation = {
  redirect: (location: string): never => {
    throw new RedirectSignal(location);
  },
};

/**
 * Serves the next calls as one request: its cookies and headers, in a Server Component
 * (`writable: false`) or a Server Action / Route Handler (`writable: true`). Returns the cookies
 * those calls set.
 */
export function serve(
  options: { cookie?: string; writable?: boolean; headers?: Record<string, string> } = {},
): SetCall[] {
  const headers = new Headers({
    host: "localhost:3000",
    "x-forwarded-proto": "http",
    ...options.headers,
  });
  if (options.cookie) headers.set("cookie", options.cookie);
  scene.headers = headers;
  scene.writable = options.writable ?? false;
  scene.sets = [];
  scene.refused = 0;
  return scene.sets;
}

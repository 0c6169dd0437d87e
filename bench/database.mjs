/**
 * Database sessions, GET /auth/session with the cookie holding a session token, for any store:
 * the same configuration for both libraries (one OAuth provider, which a session check never
 * calls; `strategy: "database"`, maxAge 30 days, updateAge 1 day) and the same rows (one user,
 * one session expiring a full maxAge from now, so the check is inside updateAge and neither
 * library has a reason to write).
 */
import { Auth as AuthjsAuth } from "@auth/core";
import { Auth as GatehouseAuth } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { AuthjsMemoryAdapter } from "./authjs-memory-adapter.mjs";
import { check } from "./check.mjs";
import { SALT, SECRET, sessionRequest, USER } from "./contenders.mjs";
import { loopbackProvider } from "./oauth.mjs";

export const MAX_AGE = 30 * 24 * 60 * 60;
export const UPDATE_AGE = 24 * 60 * 60;
export const Libraries = { Gatehouse: GatehouseAuth, "@auth/core": AuthjsAuth };

/** Creates the bench user and a session for it, as a sign-in would have; returns the user id. */
export async function seed(adapter, sessionToken, { withUserId = true } = {}) {
  const user = await adapter.createUser({
    // The pg schema of @auth/pg-adapter makes its own (serial) ids; the others keep ours.
    ...(withUserId ? { id: USER.sub } : {}),
    name: USER.name,
    email: USER.email,
    emailVerified: null,
    image: USER.picture,
  });
  await adapter.createSession({
    sessionToken,
    userId: user.id,
    expires: new Date(Date.now() + MAX_AGE * 1000),
  });
  return user.id;
}

/**
 * Temporarily replaces `target[method]` with a counting pass-through while `run()` runs, and
 * returns what it resolved to with a label per call (`label(args)`).
 */
export async function countCalls(target, method, label, run) {
  const own = Object.hasOwn(target, method);
  const original = target[method];
  const calls = [];
  target[method] = function counted(...args) {
    calls.push(label(args));
    return original.apply(this, args);
  };
  try {
    return { result: await run(), calls };
  } finally {
    if (own) target[method] = original;
    else delete target[method];
  }
}

/** An adapter whose every method call is recorded by name: for the untimed check only. */
function countingAdapter(adapter, calls) {
  const counted = {};
  for (const [name, fn] of Object.entries(adapter)) {
    if (typeof fn !== "function") continue;
    counted[name] = (...args) => {
      calls.push(name);
      return fn.apply(adapter, args);
    };
  }
  return counted;
}

/**
 * One library's session check on one store. `probe()` runs one untimed check while counting the
 * store calls it made: by default through a counting copy of the adapter; a store can pass its
 * own (`pool.query`, `redis.call`) to count what reaches the driver.
 */
export function databaseContender({ name, adapter, sessionToken, base, logger, probe }) {
  const Auth = Libraries[name];
  const config = {
    secret: SECRET,
    trustHost: true,
    basePath: "/auth",
    providers: [loopbackProvider(base)],
    adapter,
    session: { strategy: "database", maxAge: MAX_AGE, updateAge: UPDATE_AGE },
    logger,
  };
  const once = (c) => Auth(sessionRequest(sessionToken), c);
  return {
    name,
    config,
    sessionToken,
    session: {
      prepare: () => sessionRequest(sessionToken),
      run: (request) => Auth(request, config),
    },
    probe:
      probe?.(() => once(config)) ??
      (async () => {
        const calls = [];
        const result = await once({ ...config, adapter: countingAdapter(adapter, calls) });
        return { result, calls };
      }),
  };
}

const isWrite = (label) => /^(create|update|delete|insert|set|del|expire)/i.test(label);

/**
 * Checks one session check per library: 200, the stored user in the body, no write inside
 * updateAge, and for Gatehouse exactly one call to the store. Returns a note for the log.
 */
export async function checkDatabaseSession(lib, unit) {
  const { result: response, calls } = await lib.probe();
  const body = await response.text();
  check(response.status === 200, `${lib.name}: status ${response.status}, expected 200`);
  let session;
  try {
    session = JSON.parse(body);
  } catch {
    check(false, `${lib.name}: the session body is not JSON`);
  }
  check(session?.user?.email === USER.email, `${lib.name}: the database session has no user`);
  check(session.user.name === USER.name, `${lib.name}: the session user has the wrong name`);
  check(!calls.some(isWrite), `${lib.name}: wrote inside updateAge (${calls.join(", ")})`);
  if (lib.name === "Gatehouse") {
    check(calls.length === 1, `${lib.name}: ${calls.length} ${unit}s per session check, not 1`);
  }
  const reissued = response.headers.getSetCookie().some((c) => c.startsWith(`${SALT}=`));
  const plural = calls.length === 1 ? unit : unit.replace(/y$/, "ie") + "s";
  return `${calls.length} ${plural} (${calls.join(", ")}), ${reissued ? "re-sets the cookie" : "no Set-Cookie"}`;
}

/** The memory-adapter pair: Gatehouse's `MemoryAdapter`, and the bench's Map adapter for @auth/core. */
export async function memoryContenders({ base, logger }) {
  const sessionToken = crypto.randomUUID();
  const gatehouse = MemoryAdapter();
  const authjs = AuthjsMemoryAdapter();
  await seed(gatehouse, sessionToken);
  await seed(authjs, sessionToken);
  return {
    Gatehouse: databaseContender({
      name: "Gatehouse",
      adapter: gatehouse,
      sessionToken,
      base,
      logger,
    }),
    "@auth/core": databaseContender({
      name: "@auth/core",
      adapter: authjs,
      sessionToken,
      base,
      logger,
    }),
  };
}

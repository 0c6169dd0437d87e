/**
 * Better Auth 1.7 for `three-way.mjs`: one instance per variant (its cookie cache on or off), each
 * on its own in-memory database (`better-auth/adapters/memory`), with one user who signed up
 * through Better Auth's own API. The session cookie is taken from that sign-up's answer, so the
 * session check reads exactly what Better Auth wrote.
 *
 * Configuration, as close to the other two libraries' database sessions as Better Auth allows:
 * the bench's secret, sessions of 30 days refreshed after a day (so a fresh session is never
 * written during the run), email and password sign-in, no telemetry, and its rate limiter off:
 * Gatehouse's session check runs no limiter, and Better Auth's is off by default outside
 * production anyway. The cookie cache keeps its defaults (5 minutes, the "compact" strategy: a
 * signed, not encrypted, copy of the session in a second cookie).
 */
import { betterAuth } from "better-auth";
import { memoryAdapter } from "better-auth/adapters/memory";
import { toNodeHandler } from "better-auth/node";
import { ORIGIN, SECRET, USER } from "./contenders.mjs";
import { MAX_AGE, UPDATE_AGE } from "./database.mjs";

export const SESSION_PATH = "/api/auth/get-session";
const PASSWORD = "bench-password-not-a-secret";

const isWrite = (name) => /^(create|update|delete|upsert)/i.test(name);

/**
 * The memory adapter, with every call recorded as `method(model)` while `calls.on` is true. Only
 * the untimed probe instance uses it; the timed instance gets the adapter as shipped.
 */
function countingMemoryAdapter(db, calls) {
  const factory = memoryAdapter(db);
  return (options) => {
    const adapter = factory(options);
    const counted = { ...adapter };
    for (const [name, fn] of Object.entries(adapter)) {
      if (typeof fn !== "function") continue;
      counted[name] = (...args) => {
        if (calls.on) calls.list.push(`${name}(${args[0]?.model ?? ""})`);
        return fn.apply(adapter, args);
      };
    }
    return counted;
  };
}

function options(database, cookieCache, logger) {
  return {
    appName: "gatehouse-bench",
    secret: SECRET,
    baseURL: ORIGIN,
    database,
    emailAndPassword: { enabled: true },
    session: { expiresIn: MAX_AGE, updateAge: UPDATE_AGE, cookieCache: { enabled: cookieCache } },
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    logger: {
      level: "warn",
      log: (level, message) => {
        if (level === "error") logger.error(new Error(`Better Auth: ${message}`));
      },
    },
  };
}

/**
 * One Better Auth variant: `cookie` (the `Cookie` header a browser would send after the
 * sign-up), `auth` (the timed instance), `listener` (its own `toNodeHandler`) and `probe()`, an
 * untimed `getSession` through a second instance on the same database that records the adapter
 * calls it made.
 */
export async function betterAuthContender({ cookieCache, logger }) {
  const db = { user: [], session: [], account: [], verification: [] };
  const auth = betterAuth(options(memoryAdapter(db), cookieCache, logger));
  const calls = { on: false, list: [] };
  const probeAuth = betterAuth(options(countingMemoryAdapter(db, calls), cookieCache, logger));

  const signUp = await auth.api.signUpEmail({
    body: { email: USER.email, password: PASSWORD, name: USER.name, image: USER.picture },
    asResponse: true,
  });
  if (signUp.status !== 200) throw new Error(`Better Auth sign-up answered ${signUp.status}`);
  const cookie = signUp.headers
    .getSetCookie()
    .map((c) => c.slice(0, c.indexOf(";")))
    .join("; ");

  return {
    auth,
    cookie,
    listener: toNodeHandler(auth),
    /** One untimed check: `{ session, calls, writes }`, the adapter calls it made by name. */
    async probe() {
      calls.list = [];
      calls.on = true;
      try {
        const session = await probeAuth.api.getSession({ headers: new Headers({ cookie }) });
        return { session, calls: [...calls.list], writes: calls.list.filter(isWrite) };
      } finally {
        calls.on = false;
      }
    },
  };
}

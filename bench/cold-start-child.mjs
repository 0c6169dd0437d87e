/**
 * One cold start, in a fresh process spawned by `cold-start.mjs`: import a library, configure it
 * with one Credentials provider, answer one request with a valid session cookie, print a JSON line.
 *
 * Nothing is imported statically. The request the server hands over is built first: on Node 20
 * the first `new Request` loads the fetch implementation (20-40 ms here), which the server pays
 * before any library runs. With argv[3] = "framework", `solid-js/web` (the server build SolidStart
 * renders with, loaded by every SolidStart server before its routes) is imported first too; with
 * "bare" it is not. Then the clock starts (`start`), and every import the library needs happens
 * after it. `performance.now()` counts from the process's time origin (its start), so
 * `answered` includes Node's own start-up and `answered - start` is the library's part: imports,
 * configuration, first answer.
 *
 * argv[2], the case:
 *   gatehouse-route    @gatehousejs/solid-start: SolidAuth(config).GET({ request }) for GET /api/auth/session
 *   authjs-route       @auth/solid-start:      SolidAuth(config).GET({ request }) for GET /api/auth/session
 *   gatehouse-session  @gatehousejs/solid-start: getSession(pageRequest, config)
 *   authjs-session     @auth/solid-start:      getSession(pageRequest, config)
 *   gatehouse-core     @gatehousejs/core:        Auth(request, config) for GET /api/auth/session
 *   authjs-core        @auth/core:             Auth(request, config) for GET /api/auth/session
 * The cookie comes in COLD_COOKIE, the secret in COLD_SECRET.
 */
const which = process.argv[2];
const secret = process.env.COLD_SECRET;
const cookie = `authjs.session-token=${process.env.COLD_COOKIE}`;
const origin = "http://localhost:3000";
const credentials = {
  credentials: { email: { label: "Email", type: "email" }, password: { type: "password" } },
  authorize: async ({ email }) => ({ id: "1", email: String(email) }),
};
const incoming = which.endsWith("-session") ? "/account" : "/api/auth/session";
const request = new Request(`${origin}${incoming}`, { headers: { cookie } });
if (process.argv[3] === "framework") await import("solid-js/web");
else if (process.argv[3] !== "bare") throw new Error("argv[3] must be framework or bare");
// For cold-start-hooks.mjs's listing: the modules loaded after this line are the library's.
process.stderr.write("cold-start-child: the clock starts\n");
const start = performance.now();
const routeRequest = () => request;
const pageRequest = () => request;

/** Imports the case's library; returns the call that answers the first request. */
async function load() {
  switch (which) {
    case "gatehouse-route":
    case "gatehouse-session": {
      const { SolidAuth, getSession } = await import("@gatehousejs/solid-start");
      const { default: Credentials } = await import(
        "@gatehousejs/solid-start/providers/credentials"
      );
      // The route's prefix (default /api/auth) is core's basePath: no basePath option needed.
      const config = { secret, trustHost: true, providers: [Credentials(credentials)] };
      if (which === "gatehouse-session") return () => getSession(pageRequest(), config);
      const { GET } = SolidAuth(config);
      return () => GET({ request: routeRequest() });
    }
    case "authjs-route":
    case "authjs-session": {
      const { SolidAuth, getSession } = await import("@auth/solid-start");
      const { default: Credentials } = await import("@auth/solid-start/providers/credentials");
      // @auth/solid-start never turns its prefix into core's basePath (which defaults to /auth):
      // without this option every request under /api/auth is a 400.
      const config = {
        secret,
        trustHost: true,
        basePath: "/api/auth",
        providers: [Credentials(credentials)],
      };
      if (which === "authjs-session") return () => getSession(pageRequest(), config);
      const { GET } = SolidAuth(config);
      return () => GET({ request: routeRequest() });
    }
    case "gatehouse-core": {
      const { Auth } = await import("@gatehousejs/core");
      const { default: Credentials } = await import("@gatehousejs/core/providers/credentials");
      const config = {
        secret,
        trustHost: true,
        basePath: "/api/auth",
        providers: [Credentials(credentials)],
      };
      return () => Auth(routeRequest(), config);
    }
    case "authjs-core": {
      const { Auth } = await import("@auth/core");
      const { default: Credentials } = await import("@auth/core/providers/credentials");
      const config = {
        secret,
        trustHost: true,
        basePath: "/api/auth",
        providers: [Credentials(credentials)],
      };
      return () => Auth(routeRequest(), config);
    }
    default:
      throw new Error(`unknown case ${which}`);
  }
}

const answer = await load();
const imported = performance.now();
const result = await answer();
// A route answers a Response (read its body, as a server would); getSession a session.
const session = result instanceof Response ? await result.json() : result;
const answered = performance.now();
const status = result instanceof Response ? result.status : 200;
console.log(
  JSON.stringify({ which, start, imported, answered, status, email: session?.user?.email ?? null }),
);

/**
 * The contenders of `three-way.mjs`: Gatehouse, @auth/core and Better Auth answering a session
 * check with a valid cookie, in four groups: in process or over `node:http`, and with the session
 * held in the cookie (Gatehouse's and @auth/core's JWT, Better Auth's cookie cache) or read from
 * an in-memory store (each library's database session: Gatehouse's `MemoryAdapter`, the bench's
 * Map adapter for @auth/core, Better Auth's memory adapter without its cookie cache).
 *
 * In process, each library is asked the way server code asks it for the session: Gatehouse's
 * `getSession(request, config)` and Better Auth's `auth.api.getSession({ headers })` return the
 * session; @auth/core has no such call (its framework packages build a request to its session
 * endpoint and read the JSON answer), so it runs `Auth(request, config)` and `response.json()`.
 * Gatehouse the same way is an information row. The incoming `Request` (or `Headers`) is built
 * outside the clock. Over HTTP, every contender is a `node:http` server on 127.0.0.1 and the
 * clock runs from the client's request to the last byte of the answer.
 */
import { Auth as AuthjsAuth } from "@auth/core";
import { encode as authjsEncode } from "@auth/core/jwt";
import AuthjsCredentials from "@auth/core/providers/credentials";
import { Auth as GatehouseAuth, getSession } from "@gatehousejs/core";
import { encode as gatehouseEncode } from "@gatehousejs/core/jwt";
import GatehouseCredentials from "@gatehousejs/core/providers/credentials";
import { betterAuthContender, SESSION_PATH } from "./better-auth.mjs";
import { CheckFailed } from "./check.mjs";
import { SALT, SECRET, sessionRequest, USER } from "./contenders.mjs";
import { memoryContenders } from "./database.mjs";
import { keepAliveClient, listen, nodeListener } from "./node-bridge.mjs";

/** The column each library's figures go in; the rest are information rows. */
export const LIBRARIES = {
  gatehouse: "Gatehouse",
  authjs: "@auth/core",
  "better-auth": "Better Auth",
};

/** A base URL that no session check contacts: the database configuration's OAuth provider. */
const UNUSED_PROVIDER = "http://127.0.0.1:9";

const credentials = {
  credentials: { email: { label: "Email", type: "email" }, password: { type: "password" } },
  authorize: async ({ email }) => ({ id: USER.sub, name: USER.name, email: String(email) }),
};

const jwtConfig = (Credentials, logger) => ({
  secret: SECRET,
  trustHost: true,
  basePath: "/auth",
  providers: [Credentials(credentials)],
  logger,
});

function fail(who, what) {
  throw new CheckFailed(`${who}: ${what} while timed`);
}

/** The session a library answered, or a failure: timed paths must not return an error fast. */
const signedIn = (who, session) =>
  session?.user?.email === USER.email ? session : fail(who, "no session");

/** In-process ops of one library's session, keyed by the kind of call. */
function inProcess(who, { config, cookieValue, Auth }) {
  const prepare = () => sessionRequest(cookieValue);
  const viaAuth = {
    prepare,
    run: async (request) => signedIn(who, await (await Auth(request, config)).json()),
  };
  if (Auth === AuthjsAuth) return { main: viaAuth };
  return {
    main: { prepare, run: async (request) => signedIn(who, await getSession(request, config)) },
    viaAuth,
  };
}

/** The web-handler side of one library, served through the bench's bridge. */
const bridged = (Auth, config, logger) =>
  nodeListener(
    (request) => Auth(request, config),
    (error) => logger.error(error),
  );

/** Two libraries' two sessions each (JWT and database), plus Better Auth's two variants. */
async function libraries(logger) {
  const memory = await memoryContenders({ base: UNUSED_PROVIDER, logger });
  const gatehouseJwt = jwtConfig(GatehouseCredentials, logger);
  const authjsJwt = jwtConfig(AuthjsCredentials, logger);
  const gatehouseToken = await gatehouseEncode({ token: USER, secret: SECRET, salt: SALT });
  const authjsToken = await authjsEncode({ token: USER, secret: SECRET, salt: SALT });
  return {
    gatehouse: {
      cookie: { config: gatehouseJwt, cookieValue: gatehouseToken, Auth: GatehouseAuth },
      database: {
        config: memory.Gatehouse.config,
        cookieValue: memory.Gatehouse.sessionToken,
        Auth: GatehouseAuth,
        probe: memory.Gatehouse,
      },
    },
    authjs: {
      cookie: { config: authjsJwt, cookieValue: authjsToken, Auth: AuthjsAuth },
      database: {
        config: memory["@auth/core"].config,
        cookieValue: memory["@auth/core"].sessionToken,
        Auth: AuthjsAuth,
        probe: memory["@auth/core"],
      },
    },
    betterAuth: {
      cookie: await betterAuthContender({ cookieCache: true, logger }),
      database: await betterAuthContender({ cookieCache: false, logger }),
    },
  };
}

/** One timed HTTP contender: a server of its own and a keep-alive client with one socket. */
async function served(who, listener, path, cookie, servers) {
  const server = await listen(listener);
  const client = keepAliveClient(server.port);
  servers.push(server, client);
  const headers = cookie ? { cookie } : {};
  return {
    get: () => client.get(path, headers),
    op: async () => {
      const { status } = await client.get(path, headers);
      if (status !== 200) fail(who, `status ${status}`);
    },
  };
}

/** The floor of the HTTP rows: `node:http` answering a fixed small JSON body, no library. */
function floorListener(_request, response) {
  response.setHeader("content-type", "application/json");
  response.end('{"user":null}');
}

/**
 * Builds the four groups. Each contender is `{ id, label, info, op, check }`: `op` is the timed
 * operation, `check()` an untimed call that returns the session object (and, over HTTP, the
 * status and the `Set-Cookie` count). `close()` stops every server and client.
 */
export async function threeWayGroups(logger) {
  const libs = await libraries(logger);
  const servers = [];
  const groups = [];
  for (const kind of ["cookie", "database"]) {
    const g = libs.gatehouse[kind];
    const a = libs.authjs[kind];
    const b = libs.betterAuth[kind];
    const gIn = inProcess("Gatehouse", g);
    const aIn = inProcess("@auth/core", a);
    const cookieHeader = (value) => `${SALT}=${value}`;
    const cached = kind === "cookie";
    const sessionKind = cached ? "JWT" : "database session";
    const baKind = cached ? "cookie cache" : "no cookie cache";
    groups.push({
      id: `in-process-${kind}`,
      title: cached
        ? "In process, session in the cookie (no store read)"
        : "In process, session read from the memory store",
      contenders: [
        { id: "gatehouse", label: `Gatehouse getSession(), ${sessionKind}`, op: gIn.main },
        { id: "authjs", label: `@auth/core Auth() + json(), ${sessionKind}`, op: aIn.main },
        {
          id: "better-auth",
          label: `Better Auth api.getSession(), ${baKind}`,
          op: {
            prepare: () => new Headers({ cookie: b.cookie }),
            run: async (headers) =>
              signedIn("Better Auth", await b.auth.api.getSession({ headers })),
          },
        },
        {
          id: "gatehouse-auth",
          label: `Gatehouse Auth() + json(), ${sessionKind}`,
          info: true,
          op: gIn.viaAuth,
        },
      ],
    });
    const gHttp = await served(
      "Gatehouse",
      bridged(GatehouseAuth, g.config, logger),
      "/auth/session",
      cookieHeader(g.cookieValue),
      servers,
    );
    const aHttp = await served(
      "@auth/core",
      bridged(AuthjsAuth, a.config, logger),
      "/auth/session",
      cookieHeader(a.cookieValue),
      servers,
    );
    const bHttp = await served("Better Auth", b.listener, SESSION_PATH, b.cookie, servers);
    const bBridge = await served(
      "Better Auth (bridge)",
      nodeListener(
        (request) => b.auth.handler(request),
        (error) => logger.error(error),
      ),
      SESSION_PATH,
      b.cookie,
      servers,
    );
    const floor = await served("node:http", floorListener, "/", undefined, servers);
    groups.push({
      id: `http-${kind}`,
      title: cached
        ? "Over node:http with keep-alive, session in the cookie"
        : "Over node:http with keep-alive, session read from the memory store",
      contenders: [
        { id: "gatehouse", label: `Gatehouse, ${sessionKind} (bench bridge)`, ...gHttp },
        { id: "authjs", label: `@auth/core, ${sessionKind} (bench bridge)`, ...aHttp },
        { id: "better-auth", label: `Better Auth, ${baKind} (toNodeHandler)`, ...bHttp },
        {
          id: "better-auth-bridge",
          label: `Better Auth, ${baKind} (bench bridge)`,
          info: true,
          ...bBridge,
        },
        { id: "floor", label: "node:http alone, fixed JSON", info: true, ...floor },
      ],
    });
  }
  return {
    groups,
    libs,
    close: async () => {
      for (const s of servers) await s.close();
    },
  };
}

/**
 * Federated logout end to end against oidc-provider with `rpInitiatedLogout` and
 * `backchannelLogout` on: a federated sign-out lands on the provider's end-session page with a valid
 * `id_token_hint` and ends the provider's session; a hostile `post_logout_redirect_uri` is refused;
 * logging out at the provider reaches `Auth()` through a real local HTTP server (its back-channel
 * call) and the app's session is gone on the next request.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Auth } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import OIDC from "@gatehousejs/core/providers/oidc";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from "jose";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { csrfToken, Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";
import { beginSignIn, deliver, sessionOf } from "./support/oauth-flow.js";

const CLIENT_ID = "app";
const CLIENT_SECRET = "app-secret-0123456789abcdef0123456789";

let opServer: Server;
let appServer: Server;
let issuer: string;
/** The config the app server answers with; each test sets its own. */
let current: AuthConfig | undefined;
let backchannelCalls = 0;

/** A browser's cookie jar at the provider, kept across requests (unlike `authorize()`). */
class OpBrowser {
  cookies = new Map<string, string>();
  async fetch(url: URL | string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = [...this.cookies].map(([n, v]) => `${n}=${v}`).join("; ");
    if (cookie) headers.set("cookie", cookie);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const raw of response.headers.getSetCookie()) {
      const [pair = ""] = raw.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === "" || /expires=thu, 01 jan 1970/i.test(raw)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
  /** Follows the provider's redirects until it sends the browser off its origin. */
  async follow(start: URL): Promise<URL> {
    let url = start;
    for (let hop = 0; hop < 10; hop++) {
      const response = await this.fetch(url);
      const location = response.headers.get("location");
      await response.body?.cancel();
      if (!location) throw new Error(`provider answered ${response.status} at ${url.pathname}`);
      const next = new URL(location, url);
      if (next.origin !== url.origin) return next;
      url = next;
    }
    throw new Error("too many redirects");
  }
}

beforeAll(async () => {
  appServer = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
    });
    if (req.url?.includes("backchannel-logout")) backchannelCalls++;
    const response = current ? await Auth(request, current) : new Response(null, { status: 503 });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => appServer.listen(0, "127.0.0.1", r));
  const appOrigin = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;

  let handle: (req: never, res: never) => void = () => {};
  opServer = createServer((req, res) => handle(req as never, res as never));
  await new Promise<void>((r) => opServer.listen(0, "127.0.0.1", r));
  issuer = `http://127.0.0.1:${(opServer.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: "k1", alg: "RS256", use: "sig" };
  const configuration: Configuration = {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [`${ORIGIN}/auth/callback/oidc`],
        post_logout_redirect_uris: [`${ORIGIN}/bye`],
        backchannel_logout_uri: `${appOrigin}/auth/backchannel-logout/oidc`,
        backchannel_logout_session_required: true,
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    conformIdTokenClaims: false,
    ttl: { AccessToken: 300, IdToken: 300, Interaction: 300, Session: 600, Grant: 600 },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => {
          ctx.body = `<!DOCTYPE html><title>Sign out</title>${form}`;
        },
      },
      backchannelLogout: { enabled: true },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, email: `${sub}@example.com`, email_verified: true }),
    }),
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const { account, client } = ctx.oidc;
      if (!account || !client) return undefined;
      const grant = new ctx.oidc.provider.Grant({
        accountId: account.accountId,
        clientId: client.clientId,
      });
      grant.addOIDCScope("openid email");
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  const callback = provider.callback();
  handle = ((req: Parameters<typeof callback>[0], res: Parameters<typeof callback>[1]) => {
    if (req.url?.startsWith("/interaction/")) {
      void provider
        .interactionFinished(req, res, { login: { accountId: "user-1" } })
        .catch(() => res.writeHead(400).end());
      return;
    }
    callback(req, res);
  }) as never;
});

afterAll(async () => {
  for (const server of [opServer, appServer]) {
    await new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections();
  }
});

function config(strategy: "database" | "jwt", over: Record<string, unknown> = {}): AuthConfig {
  current = {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    ...(strategy === "database"
      ? { adapter: MemoryAdapter(), session: { strategy } }
      : { session: { strategy, revocation: { store: MemoryRevocationStore() } } }),
    providers: [
      OIDC({ id: "oidc", issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...over }),
    ],
  };
  return current;
}

/** Signs in at the app through the provider with one browser (both jars kept). */
async function signIn(cfg: AuthConfig, app: Jar, op: OpBrowser) {
  const back = await op.follow(await beginSignIn(cfg, app, "oidc"));
  await deliver(cfg, app, { url: back });
  expect((await sessionOf(cfg, app))?.user?.email).toBe("user-1@example.com");
}

/** Whether the provider still has a session for this browser: a prompt=none authorization. */
async function providerSignedIn(op: OpBrowser): Promise<boolean> {
  const url = new URL(`${issuer}/auth`);
  url.search = new URLSearchParams({
    client_id: CLIENT_ID,
    response_type: "code",
    scope: "openid",
    redirect_uri: `${ORIGIN}/auth/callback/oidc`,
    prompt: "none",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  }).toString();
  const back = await op.follow(url);
  return back.searchParams.has("code");
}

/** Confirms the provider's logout page (its own form with its xsrf secret). */
async function confirmLogout(op: OpBrowser, page: Response): Promise<URL> {
  const html = await page.text();
  const action = /<form id="op.logoutForm" method="post" action="([^"]+)"/.exec(html)?.[1];
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
  expect(action && xsrf, "the provider's logout form").toBeTruthy();
  const response = await op.fetch(new URL(action!, issuer), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ xsrf: xsrf!, logout: "yes" }).toString(),
  });
  const location = response.headers.get("location");
  await response.body?.cancel();
  expect(response.status).toBe(303);
  return new URL(location!, issuer);
}

for (const strategy of ["database", "jwt"] as const) {
  describe(`${strategy} strategy`, () => {
    test("federated sign-out lands on the provider's end-session page with a valid id_token_hint; both sessions end", async () => {
      const cfg = config(strategy);
      const app = new Jar();
      const op = new OpBrowser();
      await signIn(cfg, app, op);
      expect(await providerSignedIn(op)).toBe(true);

      const csrf = await csrfToken(cfg, app);
      const out = await send(cfg, app, "/auth/signout", {
        form: { csrfToken: csrf, federated: "true", callbackUrl: `${ORIGIN}/bye` },
      });
      expect(out.status).toBe(302);
      const target = new URL(out.headers.get("location")!);
      expect(`${target.origin}${target.pathname}`).toBe(`${issuer}/session/end`);
      expect(target.searchParams.get("client_id")).toBe(CLIENT_ID);
      expect(target.searchParams.get("post_logout_redirect_uri")).toBe(`${ORIGIN}/bye`);
      const hint = target.searchParams.get("id_token_hint");
      // The ID token kept on the account row (database) or, without an adapter, in the session
      // JWT's provider token set, verifies against the provider's keys.
      const { payload } = await jwtVerify(hint!, createRemoteJWKSet(new URL(`${issuer}/jwks`)), {
        issuer,
        audience: CLIENT_ID,
        clockTolerance: 3600,
      });
      expect(payload.sub).toBe("user-1");
      expect(await sessionOf(cfg, app)).toBeNull();

      const page = await op.fetch(target);
      expect(page.status).toBe(200);
      const back = await confirmLogout(op, page);
      expect(back.href).toBe(`${ORIGIN}/bye`);
      expect(await providerSignedIn(op)).toBe(false);
    });

    test("logging out at the provider reaches the app by back channel; the next request is signed out", async () => {
      const cfg = config(strategy);
      const app = new Jar();
      const op = new OpBrowser();
      await signIn(cfg, app, op);
      const before = backchannelCalls;
      const page = await op.fetch(`${issuer}/session/end`);
      await confirmLogout(op, page);
      expect(backchannelCalls).toBe(before + 1);
      expect(await sessionOf(cfg, app)).toBeNull();
    });
  });
}

test("a hostile post_logout_redirect_uri is refused, and the local session still ends", async () => {
  const cfg = config("database");
  cfg.callbacks = { redirect: ({ url }) => url };
  const app = new Jar();
  await signIn(cfg, app, new OpBrowser());
  const csrf = await csrfToken(cfg, app);
  const out = await send(cfg, app, "/auth/signout", {
    form: { csrfToken: csrf, federated: "true", callbackUrl: "https://evil.example/phish" },
  });
  expect(out.status).toBe(302);
  const location = new URL(out.headers.get("location")!);
  expect(location.origin).toBe(ORIGIN);
  expect(location.searchParams.get("error")).toBeTruthy();
  expect(await sessionOf(cfg, app)).toBeNull();
});

test("the default redirect rule keeps a hostile callbackUrl off the provider's redirect", async () => {
  const cfg = config("database");
  const app = new Jar();
  await signIn(cfg, app, new OpBrowser());
  const csrf = await csrfToken(cfg, app);
  const out = await send(cfg, app, "/auth/signout", {
    form: { csrfToken: csrf, federated: "true", callbackUrl: "https://evil.example/phish" },
  });
  const location = new URL(out.headers.get("location")!);
  const redirect = location.searchParams.get("post_logout_redirect_uri");
  expect(redirect === null || new URL(redirect).origin === ORIGIN).toBe(true);
  expect(out.headers.get("location")).not.toContain("evil.example");
});

test("federatedLogout on the provider makes federated the default; federated=false opts out", async () => {
  const cfg = config("database", { federatedLogout: true });
  const app = new Jar();
  await signIn(cfg, app, new OpBrowser());
  let csrf = await csrfToken(cfg, app);
  let out = await send(cfg, app, "/auth/signout", { form: { csrfToken: csrf } });
  expect(out.headers.get("location")).toContain(`${issuer}/session/end`);
  await signIn(cfg, app, new OpBrowser());
  csrf = await csrfToken(cfg, app);
  out = await send(cfg, app, "/auth/signout", { form: { csrfToken: csrf, federated: "false" } });
  expect(out.headers.get("location")).toBe(ORIGIN);
});

for (const strategy of ["database", "jwt"] as const) {
  test(`${strategy} strategy: the back channel's sid ends only the session signed in with it`, async () => {
    const cfg = config(strategy);
    const first = { app: new Jar(), op: new OpBrowser() };
    const second = { app: new Jar(), op: new OpBrowser() };
    await signIn(cfg, first.app, first.op);
    await signIn(cfg, second.app, second.op);
    let sids: unknown[];
    if (strategy === "database") {
      const adapter = cfg.adapter as ReturnType<typeof MemoryAdapter>;
      const userId = adapter.rows.account({
        provider: "oidc",
        providerAccountId: "user-1",
      })?.userId;
      sids = (await adapter.listSessionsByUserId(userId ?? "")).map((row) => row.providerSid);
    } else {
      const store = cfg.session!.revocation!.store;
      sids = (await store.listSessions!("oidc:user-1")).map((record) => record.providerSid);
    }
    expect(sids).toHaveLength(2);
    expect(sids.every((sid) => typeof sid === "string" && sid !== "")).toBe(true);
    expect(new Set(sids).size).toBe(2);

    await confirmLogout(first.op, await first.op.fetch(`${issuer}/session/end`));
    expect(await sessionOf(cfg, first.app)).toBeNull();
    expect((await sessionOf(cfg, second.app))?.user?.email).toBe("user-1@example.com");
  });
}

test("with X-Auth-Return-Redirect the end-session URL comes back as JSON", async () => {
  const cfg = config("database");
  const app = new Jar();
  await signIn(cfg, app, new OpBrowser());
  const csrf = await csrfToken(cfg, app);
  const out = await send(cfg, app, "/auth/signout", {
    form: { csrfToken: csrf, federated: "true", callbackUrl: `${ORIGIN}/bye` },
    headers: { "x-auth-return-redirect": "1" },
  });
  expect(out.status).toBe(200);
  const { url } = (await out.json()) as { url: string };
  const target = new URL(url);
  expect(`${target.origin}${target.pathname}`).toBe(`${issuer}/session/end`);
  expect(target.searchParams.get("id_token_hint")).toBeTruthy();
  expect(await sessionOf(cfg, app)).toBeNull();
});

test("a provider that cannot be reached still gets a local sign-out", async () => {
  const cfg = config("database");
  const app = new Jar();
  await signIn(cfg, app, new OpBrowser());
  const down: AuthConfig = { ...cfg, logger: recordingLogger() };
  down.providers = [
    OIDC({
      id: "oidc",
      issuer: "http://127.0.0.1:1",
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
    }),
  ];
  const csrf = await csrfToken(down, app);
  const out = await send(down, app, "/auth/signout", {
    form: { csrfToken: csrf, federated: "true", callbackUrl: `${ORIGIN}/bye` },
  });
  expect(out.status).toBe(302);
  expect(out.headers.get("location")).toBe(`${ORIGIN}/bye`);
  expect(await sessionOf(cfg, app)).toBeNull();
  expect((down.logger as ReturnType<typeof recordingLogger>).error).toHaveBeenCalledTimes(1);
});

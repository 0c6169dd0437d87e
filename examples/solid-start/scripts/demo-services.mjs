/**
 * Demo mode's companions, run beside the app by scripts/start.mjs and by the browser tests:
 *
 * - an SMTP capture (`smtp-server` on 127.0.0.1) that keeps every message as a JSON file in a
 *   mailbox folder, which the app's `/dev/mailbox` page lists;
 * - a local OpenID provider (`oidc-provider` on 127.0.0.1) with a login form of its own, so the
 *   whole OAuth flow works without any outside network.
 *
 * Nothing here is used when the app is deployed for real.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import Provider from "oidc-provider";
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";

const LOOPBACK = "127.0.0.1";

/**
 * Starts the SMTP capture on `port` (0 = any free port).
 * @param {{ port: number, mailbox: string }} options
 * @returns {Promise<{ url: string, port: number, close(): Promise<void> }>}
 */
export async function startSmtpCapture({ port, mailbox }) {
  mkdirSync(mailbox, { recursive: true });
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    disableReverseLookup: true,
    closeTimeout: 200,
    onData(stream, session, callback) {
      const chunks = [];
      stream.on("data", (chunk) => chunks.push(chunk));
      stream.on("end", () => {
        PostalMime.parse(Buffer.concat(chunks))
          .then((email) => {
            const receivedAt = new Date();
            const message = {
              receivedAt: receivedAt.toISOString(),
              from: email.from?.address ?? session.envelope.mailFrom?.address ?? "",
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              subject: email.subject ?? "",
              text: email.text ?? "",
              html: email.html ?? "",
            };
            const name = `${receivedAt.getTime()}-${randomBytes(4).toString("hex")}.json`;
            writeFileSync(join(mailbox, name), JSON.stringify(message, null, 2));
            callback();
          })
          .catch((error) => callback(error));
      });
    },
  });
  await new Promise((resolve, reject) => {
    smtp.once("error", reject);
    smtp.listen(port, LOOPBACK, () => {
      smtp.off("error", reject);
      resolve();
    });
  });
  const bound = smtp.server.address().port;
  return {
    url: `smtp://${LOOPBACK}:${bound}`,
    port: bound,
    close: () => new Promise((resolve) => smtp.close(() => resolve())),
  };
}

const escapeHtml = (text) =>
  String(text).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );

function loginForm(uid, client) {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Gatehouse Demo ID</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f1ea;display:grid;place-items:center;min-height:100vh;margin:0}
form{background:#fff;padding:2rem;border-radius:12px;box-shadow:0 2px 12px #0002;display:grid;gap:.8rem;width:20rem}
h1{font-size:1.2rem;margin:0}p{margin:0;color:#555;font-size:.9rem}
label{display:grid;gap:.3rem}
input{padding:.5rem;border:1px solid #bbb;border-radius:6px;font:inherit}
button{padding:.6rem;border:0;border-radius:6px;background:#1d4ed8;color:#fff;font:inherit;cursor:pointer}
</style></head><body>
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<h1>Gatehouse Demo ID</h1>
<p>A local OpenID provider for trying the OAuth flow offline. <b>${escapeHtml(client)}</b> asks who you are: any name and address will do.</p>
<label>Name <input name="name" value="Olivia Oidc" required data-testid="oidc-name"></label>
<label>Email <input name="email" type="email" value="olivia@example.com" required data-testid="oidc-email"></label>
<button type="submit" data-testid="oidc-submit">Sign in to Gatehouse Demo ID</button>
</form></body></html>`;
}

/** The provider's "sign out?" page for RP-initiated logout; `form` is oidc-provider's own form. */
function logoutPage(form) {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Sign out of Gatehouse Demo ID</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f1ea;display:grid;place-items:center;min-height:100vh;margin:0}
main{background:#fff;padding:2rem;border-radius:12px;box-shadow:0 2px 12px #0002;display:grid;gap:.8rem;width:20rem}
h1{font-size:1.2rem;margin:0}p{margin:0;color:#555;font-size:.9rem}
button{padding:.6rem;border:0;border-radius:6px;background:#1d4ed8;color:#fff;font:inherit;cursor:pointer}
button.secondary{background:#e5e7eb;color:#111}
</style></head><body><main>
<h1>Sign out of Gatehouse Demo ID?</h1>
<p>The app asks to end your session here too.</p>
${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes" data-testid="oidc-logout">Yes, sign me out</button>
<button type="submit" form="op.logoutForm" class="secondary" data-testid="oidc-stay">No, stay signed in</button>
</main></body></html>`;
}

async function readForm(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/**
 * oidc-provider's storage, in memory: one map per provider (the built-in one is shared and warns
 * that it is for quick starts). Restarting the demo forgets sign-ins in progress, nothing else.
 */
function memoryStorage() {
  const entries = new Map();
  const now = () => Math.floor(Date.now() / 1000);
  const read = (key) => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  return (model) => ({
    async upsert(id, payload, expiresIn) {
      const expiresAt = expiresIn ? now() + expiresIn : Number.POSITIVE_INFINITY;
      entries.set(`${model}:${id}`, { payload, expiresAt });
      if (payload.uid) entries.set(`${model}:uid:${payload.uid}`, { payload, expiresAt });
      if (payload.userCode)
        entries.set(`${model}:code:${payload.userCode}`, { payload, expiresAt });
    },
    find: async (id) => read(`${model}:${id}`),
    findByUid: async (uid) => read(`${model}:uid:${uid}`),
    findByUserCode: async (code) => read(`${model}:code:${code}`),
    async consume(id) {
      const payload = read(`${model}:${id}`);
      if (payload) payload.consumed = now();
    },
    async destroy(id) {
      entries.delete(`${model}:${id}`);
    },
    async revokeByGrantId(grantId) {
      for (const [key, entry] of entries)
        if (entry.payload.grantId === grantId) entries.delete(key);
    },
  });
}

/** Lifetimes (seconds): short, it is a demo. */
const TTL = {
  AccessToken: 600,
  AuthorizationCode: 60,
  IdToken: 600,
  Interaction: 600,
  Session: 3600,
  Grant: 3600,
  RefreshToken: 86400,
};

/**
 * Starts the local OpenID provider on `port` (0 = any free port), with one confidential client
 * whose redirect URIs point at the app on `appPort` (`localhost` and `127.0.0.1`).
 * `accessTokenTtl` (seconds, default 600): shorter makes the app renew its access token sooner
 * (the browser tests use it to see the refresh grant at work).
 * @param {{ port: number, appPort: number, basePath?: string, accessTokenTtl?: number }} options
 * @returns {Promise<{ issuer: string, clientId: string, clientSecret: string, close(): Promise<void> }>}
 */
export async function startOidcProvider({
  port,
  appPort,
  basePath = "/api/auth",
  accessTokenTtl = TTL.AccessToken,
}) {
  let handle = (_req, res) => res.end();
  const server = createServer((req, res) => handle(req, res));
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, LOOPBACK, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const issuer = `http://${LOOPBACK}:${server.address().port}`;
  const clientId = "gatehouse-demo";
  const clientSecret = randomBytes(24).toString("base64url");
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: "jwk" }), kid: "demo", alg: "RS256", use: "sig" };
  const accounts = new Map();

  const provider = new Provider(issuer, {
    adapter: memoryStorage(),
    ttl: { ...TTL, AccessToken: accessTokenTtl },
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        redirect_uris: ["localhost", LOOPBACK].map(
          (host) => `http://${host}:${appPort}${basePath}/callback/oidc`,
        ),
        // Where RP-initiated logout may send the browser back: the app, on either host name.
        post_logout_redirect_uris: ["localhost", LOOPBACK].flatMap((host) => [
          `http://${host}:${appPort}`,
          `http://${host}:${appPort}/`,
        ]),
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    claims: { openid: ["sub"], profile: ["name"], email: ["email", "email_verified"] },
    conformIdTokenClaims: false,
    features: {
      devInteractions: { enabled: false },
      // "Sign out of the identity provider too": the end_session_endpoint, with a page of ours.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => {
          ctx.type = "html";
          ctx.body = logoutPage(form);
        },
      },
    },
    // Refresh tokens for the demo's client whatever the scopes asked (the app's getAccessToken
    // demo renews with them), rotated on every use.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: true,
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, ...accounts.get(sub) }),
    }),
    // Consent is implied: the demo's only client gets what it asks for.
    async loadExistingGrant(ctx) {
      const { account, client, params } = ctx.oidc;
      if (!account || !client) return undefined;
      const grant = new ctx.oidc.provider.Grant({
        accountId: account.accountId,
        clientId: client.clientId,
      });
      grant.addOIDCScope(String(params?.scope ?? "openid"));
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();

  handle = (req, res) => {
    const path = new URL(req.url ?? "/", issuer).pathname;
    const match = /^\/interaction\/([^/]+)(\/login)?$/.exec(path);
    if (!match) {
      callback(req, res);
      return;
    }
    (async () => {
      const details = await provider.interactionDetails(req, res);
      if (match[1] !== details.uid) throw new Error("interaction mismatch");
      if (!match[2]) {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(loginForm(details.uid, "Gatehouse SolidStart example"));
        return;
      }
      const form = await readForm(req);
      const email = (form.get("email") ?? "").trim().toLowerCase();
      const name = (form.get("name") ?? "").trim() || email;
      if (!email.includes("@")) {
        res.writeHead(400, { "content-type": "text/html; charset=utf-8" });
        res.end(loginForm(details.uid, "Gatehouse SolidStart example"));
        return;
      }
      const sub = `demo-${Buffer.from(email).toString("base64url")}`;
      accounts.set(sub, { name, email, email_verified: true });
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: sub } },
        { mergeWithLastSubmission: false },
      );
    })().catch((error) => {
      console.error("[oidc] interaction failed:", error.message);
      if (!res.headersSent) res.writeHead(400, { "content-type": "text/plain" });
      res.end("This sign-in attempt expired or is invalid. Go back to the app and start again.");
    });
  };

  return {
    issuer,
    clientId,
    clientSecret,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

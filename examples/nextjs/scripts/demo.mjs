/**
 * Runs the built app in demo mode: the SMTP capture and the local OpenID provider beside it
 * (unless EMAIL_SERVER / AUTH_OIDC_ISSUER name real ones), then `next start` with the
 * environment that points the app at them. Used by scripts/start.mjs and the browser tests.
 *
 * The two services are the SolidStart example's (examples/solid-start/scripts/demo-services.mjs):
 * one SMTP capture and one OpenID provider for every example.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { startOidcProvider, startSmtpCapture } from "../../solid-start/scripts/demo-services.mjs";
import { appDir, nextBin, nextEnv } from "./build.mjs";

/** The demo account (also seeded by lib/db.ts). */
export const DEMO_ACCOUNT = { email: "demo@example.com", password: "gatehouse-demo" };

async function waitUntilServing(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The app exited with code ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/api/auth/providers`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The app did not answer at ${url} within ${timeoutMs / 1000} s`);
}

/**
 * Starts the demo. The SMTP capture and the OpenID provider listen on free ports unless
 * `DEMO_SMTP_PORT` / `DEMO_OIDC_PORT` (or the options) name one; the app's port is always given
 * (the OpenID client's redirect URIs name it).
 * @param {import("./demo.d.mts").DemoOptions} options
 * @returns {Promise<import("./demo.d.mts").Demo>}
 */
export async function startDemo(options) {
  const env = Object.fromEntries(
    Object.entries({ ...process.env, ...options.env }).filter(([, value]) => value !== undefined),
  );
  const dataDir = options.dataDir ?? join(appDir, ".data");
  const closers = [];
  const close = async () => {
    for (const closeOne of closers) await closeOne().catch(() => {});
  };
  try {
    const host = env.HOST ?? "127.0.0.1";
    const appEnv = {
      ...nextEnv(env),
      GATEHOUSE_DEMO: "1",
      NODE_ENV: "production",
      AUTH_TRUST_HOST: env.AUTH_TRUST_HOST ?? "true",
      PGLITE_DIR: env.PGLITE_DIR ?? join(dataDir, "pglite"),
      DEMO_MAILBOX_DIR: join(dataDir, "mailbox"),
    };
    const services = { smtp: env.EMAIL_SERVER ? "configured" : "", oidc: "" };
    if (!env.EMAIL_SERVER) {
      const smtp = await startSmtpCapture({
        port: options.smtpPort ?? Number(env.DEMO_SMTP_PORT ?? 0),
        mailbox: appEnv.DEMO_MAILBOX_DIR,
      });
      closers.push(smtp.close);
      appEnv.EMAIL_SERVER = smtp.url;
      services.smtp = smtp.url;
    }
    if (!env.AUTH_OIDC_ISSUER) {
      const oidc = await startOidcProvider({
        port: options.oidcPort ?? Number(env.DEMO_OIDC_PORT ?? 0),
        appPort: options.port,
        accessTokenTtl: options.oidcAccessTokenTtl,
      });
      closers.push(oidc.close);
      appEnv.AUTH_OIDC_ISSUER = oidc.issuer;
      appEnv.AUTH_OIDC_ID = oidc.clientId;
      appEnv.AUTH_OIDC_SECRET = oidc.clientSecret;
      appEnv.AUTH_OIDC_NAME = "Gatehouse Demo ID";
      services.oidc = oidc.issuer;
    } else {
      services.oidc = env.AUTH_OIDC_ISSUER;
    }

    const child = spawn(
      process.execPath,
      [nextBin, "start", "--port", String(options.port), "--hostname", host],
      {
        cwd: appDir,
        env: appEnv,
        stdio: ["ignore", options.output ?? "inherit", options.output ?? "inherit"],
      },
    );
    let log = "";
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on("data", (chunk) => {
        log = (log + chunk).slice(-20_000);
      });
    }
    const exited = new Promise((resolve) => child.once("exit", resolve));
    closers.unshift(async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    });
    const url = `http://localhost:${options.port}`;
    await waitUntilServing(`http://127.0.0.1:${options.port}`, child, 60_000).catch((error) => {
      throw new Error(`${error.message}\n${log}`);
    });
    return {
      url,
      services,
      mailboxDir: appEnv.DEMO_MAILBOX_DIR,
      child,
      log: () => log,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The SolidStart example (examples/solid-start), built once (its hash stamp skips the build when
 * nothing changed) and started in demo mode on free ports, with a fresh PGlite folder under
 * .tmp/, its SMTP capture and its local OpenID provider.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensureBuilt } from "../../examples/solid-start/scripts/build.mjs";
import { type Demo, startDemo } from "../../examples/solid-start/scripts/demo.mjs";
import { freePort } from "../support/free-port.js";

export { DEMO_ACCOUNT } from "../../examples/solid-start/scripts/demo.mjs";
export { freePort };

/** The repository's scratch folder for test artifacts. */
export const tmpDir = join(import.meta.dirname, "..", "..", ".tmp");

/** A fresh folder under .tmp/example-data/ for one run's database and mailbox. */
export function freshDataDir(label: string): string {
  const dir = join(
    tmpDir,
    "example-data",
    `${label}-${Date.now()}-${randomBytes(3).toString("hex")}`,
  );
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Deletes a folder made by {@link freshDataDir} (a PGlite database takes about 40 MB). */
export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Options of {@link startExample}. */
export interface StartExampleOptions {
  /** Environment of the app on top of the test's (`AUTH_SESSION_STRATEGY=database`, …). */
  env?: Record<string, string | undefined>;
  /** Lifetime (seconds) of the local OpenID provider's access tokens. Default 600. */
  oidcAccessTokenTtl?: number;
}

/**
 * Builds the example if needed and starts it in demo mode. The developer's own settings (a real
 * SMTP server, OpenID issuer, database or TikTok app) are ignored: the tests run offline.
 */
export async function startExample(
  options: StartExampleOptions = {},
): Promise<Demo & { dataDir: string }> {
  await ensureBuilt();
  const dataDir = freshDataDir("example-app");
  const demo = await startDemo({
    port: await freePort(),
    smtpPort: 0,
    oidcPort: 0,
    oidcAccessTokenTtl: options.oidcAccessTokenTtl,
    dataDir,
    output: "pipe",
    env: {
      AUTH_SECRET: randomBytes(32).toString("base64url"),
      AUTH_URL: undefined,
      EMAIL_SERVER: undefined,
      AUTH_NODEMAILER_SERVER: undefined,
      AUTH_OIDC_ISSUER: undefined,
      AUTH_OIDC_ID: undefined,
      AUTH_OIDC_SECRET: undefined,
      AUTH_TIKTOK_ID: undefined,
      AUTH_TIKTOK_SECRET: undefined,
      DATABASE_URL: undefined,
      PGLITE_DIR: undefined,
      HOST: undefined,
      AUTH_SESSION_STRATEGY: undefined,
      ...options.env,
    },
  });
  return { ...demo, dataDir };
}

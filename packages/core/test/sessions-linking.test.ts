/**
 * A revoked JWT session must not link a new provider account to its user: the cookie of a session
 * ended elsewhere is no one's session.
 */
import { revokeUserSessions } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { Jar, recordingLogger, SECRET } from "./helpers.js";
import { signInThrough, twoIdps } from "./support/oauth-flow.js";
import { type OidcServer, startOidcProvider } from "./support/oidc-server.js";

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());

test("a revoked JWT session links nothing; a live one still does", async () => {
  const adapter = MemoryAdapter();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    adapter,
    session: { strategy: "jwt", revocation: { store: MemoryRevocationStore() } },
    providers: twoIdps(op),
  };
  const owner = (provider: string, id: string) =>
    adapter.rows.account({ provider, providerAccountId: id })?.userId;

  const live = new Jar();
  await signInThrough(config, live, "idp");
  const user = owner("idp", "user-1") ?? "";
  await signInThrough(config, live, "idp2", { query: { login_hint: "user-2" } });
  expect(owner("idp2", "user-2")).toBe(user);

  const revoked = new Jar();
  await signInThrough(config, revoked, "idp");
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1000 });
  try {
    await revokeUserSessions(config, user);
    await signInThrough(config, revoked, "idp2", { query: { login_hint: "user-3" } });
  } finally {
    vi.useRealTimers();
  }
  const linked = owner("idp2", "user-3");
  expect(linked).toBeDefined();
  expect(linked).not.toBe(user);
});

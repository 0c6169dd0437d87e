/**
 * Proving an address ends the sessions of the account that held it unproven: someone signs up
 * through the app's own sign-up with an address they do not own, signs in with the password they
 * chose, and keeps that session; when the owner later proves the address by email link or code,
 * Gatehouse adopts the user, and that session must end (database sessions, and JWT sessions with
 * a revocation store). Under JWT without a store nothing could end it, so the link is refused.
 */
import { listSecurityEvents } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test } from "vitest";
import { expectNoSessionCookie, signInError } from "./support/oauth-flow.js";
import { unprovenAddressWorld } from "./support/unproven-address.js";

const OWNER = "owner@corp.example";

const strategies: Array<[string, () => AuthConfig["session"]]> = [
  ["database sessions", () => ({ strategy: "database" })],
  [
    "JWT sessions with a revocation store",
    () => ({ strategy: "jwt", revocation: { store: MemoryRevocationStore() } }),
  ],
];

for (const [name, session] of strategies) {
  describe(name, () => {
    const setup = () => unprovenAddressWorld({ adapter: MemoryAdapter(), session: session() });

    for (const how of ["link", "code"] as const) {
      test(`proving the address by ${how} ends the session of whoever signed up with it`, async () => {
        const w = setup();
        const user = await w.signUp(OWNER, "chosen-by-someone-else");
        const intruder = await w.passwordSignIn(OWNER, "chosen-by-someone-else");
        const second = await w.passwordSignIn(OWNER, "chosen-by-someone-else");
        expect(await w.signedInAs(intruder)).toBe(OWNER);

        const { response, jar } =
          how === "link" ? await w.linkSignIn(OWNER) : await w.codeSignIn(OWNER);
        expect(response.status).toBe(302);
        expect(response.headers.get("location")).not.toContain("error=");

        expect(await w.signedInAs(intruder)).toBeNull();
        expect(await w.signedInAs(second)).toBeNull();
        expect(await w.signedInAs(jar)).toBe(OWNER);
        expect((await w.config.adapter!.getUser!(user.id))?.emailVerified).toBeInstanceOf(Date);

        const events = await listSecurityEvents(w.config, user.id, { limit: 20 });
        expect(events.find((e) => e.type === "sessionRevoked")).toMatchObject({
          reason: "addressProven",
          sessionId: null,
        });
      });
    }

    test("a browser signed in as the user that proves its address keeps a fresh session; the others end", async () => {
      const w = setup();
      await w.signUp(OWNER, "pw");
      const elsewhere = await w.passwordSignIn(OWNER, "pw");
      const here = await w.passwordSignIn(OWNER, "pw");
      const { response } = await w.linkSignIn(OWNER, here);
      expect(response.headers.get("location")).not.toContain("error=");
      expect(await w.signedInAs(here)).toBe(OWNER);
      expect(await w.signedInAs(elsewhere)).toBeNull();
    });

    test("a user whose address was already proven keeps its other sessions", async () => {
      const w = setup();
      const user = await w.signUp(OWNER, "pw", new Date());
      const other = await w.passwordSignIn(OWNER, "pw");
      const { jar } = await w.linkSignIn(OWNER);
      expect(await w.signedInAs(jar)).toBe(OWNER);
      expect(await w.signedInAs(other)).toBe(OWNER);
      const events = await listSecurityEvents(w.config, user.id, { limit: 20 });
      expect(events.some((e) => e.type === "sessionRevoked")).toBe(false);
    });
  });
}

describe("JWT sessions without a revocation store", () => {
  const setup = (credentials = true) =>
    unprovenAddressWorld({ adapter: MemoryAdapter(), session: { strategy: "jwt" }, credentials });

  test("with a Credentials provider the link is refused: a session it cannot end may exist", async () => {
    const w = setup();
    const user = await w.signUp(OWNER, "chosen-by-someone-else");
    await w.passwordSignIn(OWNER, "chosen-by-someone-else");
    const { response, jar } = await w.linkSignIn(OWNER);
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expectNoSessionCookie(response);
    expect(await w.signedInAs(jar)).toBeNull();
    expect((await w.config.adapter!.getUser!(user.id))?.emailVerified).toBeNull();
  });

  test("a browser already signed in as the user still proves its address", async () => {
    const w = setup();
    const user = await w.signUp(OWNER, "pw");
    const jar = await w.passwordSignIn(OWNER, "pw");
    const { response } = await w.linkSignIn(OWNER, jar);
    expect(response.headers.get("location")).not.toContain("error=");
    expect(await w.signedInAs(jar)).toBe(OWNER);
    expect((await w.config.adapter!.getUser!(user.id))?.emailVerified).toBeInstanceOf(Date);
  });

  test("without a Credentials provider an invited user is adopted as before", async () => {
    const w = setup(false);
    const user = await w.signUp(OWNER, "unused");
    const { response, jar } = await w.linkSignIn(OWNER);
    expect(response.headers.get("location")).not.toContain("error=");
    expect(await w.signedInAs(jar)).toBe(OWNER);
    expect((await w.config.adapter!.getUser!(user.id))?.emailVerified).toBeInstanceOf(Date);
  });
});

describe("database sessions with an adapter that cannot list a user's sessions", () => {
  test("with a Credentials provider the link is refused, as under JWT without a store", async () => {
    const { listSessionsByUserId: _omitted, ...adapter } = MemoryAdapter();
    const w = unprovenAddressWorld({ adapter, session: { strategy: "database" } });
    const user = await w.signUp(OWNER, "chosen-by-someone-else");
    const intruder = await w.passwordSignIn(OWNER, "chosen-by-someone-else");
    const { response } = await w.linkSignIn(OWNER);
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expect(await w.signedInAs(intruder)).toBe(OWNER);
    expect((await w.config.adapter!.getUser!(user.id))?.emailVerified).toBeNull();
  });
});

/**
 * Changing the address while signed in (docs/passwords.md, "Changing the address"): a link to the
 * new address, single-use and stored hashed; nothing changes until it is used; an address
 * another user holds is never taken, neither at the request (which answers the same) nor when
 * the link is used; then every session ends, the old address is told, and the security log
 * records it. Written as the attacker where a rule is a defence.
 */
import type { Adapter } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { afterEach, describe, expect, test, vi } from "vitest";
import { csrfToken, Jar, ORIGIN, send } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld } from "./password-world.js";
import { formOf } from "./support/email-link.js";

const OWNER = "owner@example.com";
const NEW = "new@example.com";
const OTHER = "other@example.com";

type World = ReturnType<typeof passwordWorld>;

async function signedIn(w: World, email = OWNER, password = PASSWORD): Promise<Jar> {
  const jar = new Jar();
  const response = await w.signIn(jar, email, password);
  expect(response.headers.get("location")).toBe(ORIGIN);
  return jar;
}

/** The link of the last `changeEmail` mail to `to`. */
function changeLink(w: World, to: string): URL {
  return new URL(w.lastMail(to, "changeEmail").url);
}

/** Posts the form the link's page answers, in `jar`. */
async function useLink(w: World, jar: Jar, link: URL, json = false): Promise<Response> {
  const page = await w.open(jar, link);
  expect(page.status).toBe(200);
  const { action, fields } = formOf(await page.text());
  const target = new URL(action, ORIGIN);
  return send(w.config, jar, target.pathname, json ? { json: fields } : { form: fields });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("with the current password", () => {
  test("the link moves the user to the new address; every session ends; the old one is told", async () => {
    const w = passwordWorld();
    const user = await w.verifiedUser(OWNER);
    const other = await signedIn(w);
    const jar = await signedIn(w);

    const asked = await w.changeEmail(jar, NEW, PASSWORD);
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain("Check your email");
    // Nothing changes until the link is used.
    expect((await w.adapter.getUser(user.id))?.email).toBe(OWNER);
    expect(await w.signedInAs(jar)).toBe(OWNER);

    // A scanner opening the link spends nothing.
    const link = changeLink(w, NEW);
    expect(link.pathname).toBe("/auth/change-email/password");
    expect((await w.open(new Jar(), link)).status).toBe(200);
    expect((await w.adapter.getUser(user.id))?.email).toBe(OWNER);

    const before = Date.now();
    const used = await useLink(w, new Jar(), link);
    expect(used.status).toBe(200);
    expect(await used.text()).toContain("Your email address was changed");
    const moved = await w.adapter.getUser(user.id);
    expect(moved?.email).toBe(NEW);
    expect(moved?.emailVerified?.valueOf()).toBeGreaterThanOrEqual(before);

    // Every session ended, this browser's too; the password account is the same.
    expect(await w.signedInAs(jar)).toBeNull();
    expect(await w.signedInAs(other)).toBeNull();
    expect(await w.signedInAs(await signedIn(w, NEW))).toBe(NEW);
    expect((await w.signIn(new Jar(), OWNER)).headers.get("location")).not.toBe(ORIGIN);

    expect(w.lastMail(OWNER, "emailChanged").url).toBe(`${ORIGIN}/auth/signin`);
    const events = await w.securityLog.list(user.id, { limit: 50 });
    expect(events.map((e) => e.type)).toContain("emailChanged");
  });

  test("the address is normalised, and the JSON answers are stable", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const asked = await w.changeEmail(jar, "  New@Example.COM ", PASSWORD, true);
    expect(asked.status).toBe(200);
    expect(await asked.json()).toMatchObject({ status: "emailChangeSent" });
    const used = await useLink(w, new Jar(), changeLink(w, NEW), true);
    expect(used.status).toBe(200);
    expect(await used.json()).toMatchObject({ status: "emailChanged" });
    expect(await w.adapter.getUserByEmail(NEW)).not.toBeNull();
  });

  test("a wrong current password is refused, counted, and mails nothing", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const response = await w.changeEmail(jar, NEW, OTHER_PASSWORD, true);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "WrongPassword" });
    const page = await w.changeEmail(jar, NEW, undefined);
    expect(page.status).toBe(400);
    expect(w.mails.filter((m) => m.to === NEW)).toEqual([]);
  });

  test("the same address, a malformed one, and a signed-out request are refused", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const same = await w.changeEmail(jar, OWNER, PASSWORD, true);
    expect(await same.json()).toMatchObject({ error: "SameEmail" });
    const bad = await w.changeEmail(jar, "not an address", PASSWORD, true);
    expect(await bad.json()).toMatchObject({ error: "InvalidEmail" });
    const out = await w.changeEmail(new Jar(), NEW, PASSWORD, true);
    expect(out.status).toBe(401);
    expect(await out.json()).toMatchObject({ error: "Unauthenticated" });
  });
});

describe("as an attacker", () => {
  test("without the CSRF token nothing is asked", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const response = await send(w.config, jar, "/auth/change-email/password", {
      form: { email: NEW, currentPassword: PASSWORD },
    });
    expect(response.headers.get("location")).toContain("error=MissingCSRF");
    expect(w.mails.filter((m) => m.to === NEW)).toEqual([]);
  });

  test("asking for an address another user holds answers the same, and its owner is told it cannot be used", async () => {
    // The store's round trips are counted: they are the same for a held and a free address.
    const memory = MemoryAdapter();
    const calls: string[] = [];
    const counted: Adapter = {
      ...memory,
      createVerificationToken: (token) => {
        calls.push("createVerificationToken");
        return memory.createVerificationToken(token);
      },
      getUserByEmail: (email) => {
        calls.push("getUserByEmail");
        return memory.getUserByEmail(email);
      },
    };
    const w = passwordWorld({ adapter: counted });
    await w.verifiedUser(OWNER);
    const victim = await w.verifiedUser(OTHER, OTHER_PASSWORD);
    const jar = await signedIn(w);

    calls.length = 0;
    const free = await w.changeEmail(jar, NEW, PASSWORD, true);
    const freeCalls = calls.splice(0);
    const held = await w.changeEmail(jar, OTHER, PASSWORD, true);
    expect(held.status).toBe(free.status);
    expect(await held.text()).toBe(await free.text());
    expect(calls).toEqual(freeCalls);

    const mail = w.lastMail(OTHER);
    expect(mail.kind).toBe("changeEmailUnavailable");
    expect(mail.url).not.toContain("change-email");
    expect((await w.adapter.getUser(victim.id))?.email).toBe(OTHER);
    expect(await w.signedInAs(jar)).toBe(OWNER);
  });

  test("a held link does not take an address another user took since", async () => {
    const w = passwordWorld();
    const user = await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    await w.changeEmail(jar, NEW, PASSWORD);
    const link = changeLink(w, NEW);
    const taker = await w.verifiedUser(NEW, OTHER_PASSWORD);

    const used = await useLink(w, new Jar(), link, true);
    expect(used.status).toBe(400);
    expect(await used.json()).toMatchObject({ error: "EmailTaken" });
    expect((await w.adapter.getUser(user.id))?.email).toBe(OWNER);
    expect((await w.adapter.getUserByEmail(NEW))?.id).toBe(taker.id);
    expect(await w.signedInAs(jar)).toBe(OWNER);
  });

  test("two users racing for one address: at most one gets it", async () => {
    // A store whose reads and writes take a while, so the two uses interleave.
    const memory = MemoryAdapter();
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    const slow: Adapter = {
      ...memory,
      getUserByEmail: (email) => tick().then(() => memory.getUserByEmail(email)),
      updateUser: (patch) => tick().then(() => memory.updateUser(patch)),
    };
    const w = passwordWorld({ adapter: slow });
    const a = await w.verifiedUser(OWNER);
    const b = await w.verifiedUser(OTHER, OTHER_PASSWORD);
    await w.changeEmail(await signedIn(w, OWNER), NEW, PASSWORD);
    const linkA = changeLink(w, NEW);
    await w.changeEmail(await signedIn(w, OTHER, OTHER_PASSWORD), NEW, OTHER_PASSWORD);
    const linkB = changeLink(w, NEW);
    expect(linkB.href).not.toBe(linkA.href);

    // Both pages first, then both posts at once.
    const posts = await Promise.all(
      [linkA, linkB].map(async (link) => {
        const jar = new Jar();
        const page = await w.open(jar, link);
        const { action, fields } = formOf(await page.text());
        return () => send(w.config, jar, new URL(action, ORIGIN).pathname, { json: fields });
      }),
    );
    const answers = await Promise.all(posts.map((post) => post()));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400]);
    const refused = answers.find((r) => r.status === 400) as Response;
    expect(await refused.json()).toMatchObject({ error: "EmailTaken" });
    const emails = [(await w.adapter.getUser(a.id))?.email, (await w.adapter.getUser(b.id))?.email];
    expect(emails.filter((e) => e === NEW)).toHaveLength(1);
  });

  test("a link works once, for the user it was made for, and not after their address changed", async () => {
    const w = passwordWorld();
    const user = await w.verifiedUser(OWNER);
    const mallory = await w.verifiedUser(OTHER, OTHER_PASSWORD);
    const jar = await signedIn(w);
    await w.changeEmail(jar, NEW, PASSWORD);
    const link = changeLink(w, NEW);

    // Retargeted at another user: nothing.
    const retargeted = new URL(link);
    retargeted.searchParams.set("user", mallory.id);
    const wrong = await useLink(w, new Jar(), retargeted);
    expect(wrong.headers.get("location")).toContain("error=Verification");
    expect((await w.adapter.getUser(mallory.id))?.email).toBe(OTHER);

    // A second link made before the first is used dies with the change.
    await w.changeEmail(jar, "third@example.com", PASSWORD);
    const older = changeLink(w, "third@example.com");
    expect((await useLink(w, new Jar(), link)).status).toBe(200);
    expect((await w.adapter.getUser(user.id))?.email).toBe(NEW);
    const again = await useLink(w, new Jar(), link);
    expect(again.headers.get("location")).toContain("error=Verification");
    const stale = await useLink(w, new Jar(), older);
    expect(stale.headers.get("location")).toContain("error=Verification");
    expect((await w.adapter.getUser(user.id))?.email).toBe(NEW);
  });

  test("the old address's email sign-in account no longer reaches the user", async () => {
    const w = passwordWorld({ emailSignIn: true });
    const user = await w.verifiedUser(OWNER);
    // The user once signed in with an emailed link: an `email` account named after the address.
    const first = new Jar();
    await w.emailSignIn(first, OWNER);
    expect(
      await w.adapter.getUserByAccount({ provider: "email", providerAccountId: OWNER }),
    ).toMatchObject({ id: user.id });

    const jar = await signedIn(w);
    await w.changeEmail(jar, NEW, PASSWORD);
    expect((await useLink(w, new Jar(), changeLink(w, NEW))).status).toBe(200);
    expect(
      await w.adapter.getUserByAccount({ provider: "email", providerAccountId: OWNER }),
    ).toBeNull();

    // Whoever holds the old mailbox now is not signed in as the user.
    const old = new Jar();
    await w.emailSignIn(old, OWNER);
    const session = await send(w.config, old, "/auth/session");
    const body = (await session.json()) as { user?: { email?: string } } | null;
    expect(body?.user?.email).not.toBe(NEW);
    // The new address signs in with an emailed link.
    const fresh = new Jar();
    await w.emailSignIn(fresh, NEW);
    expect(await w.signedInAs(fresh)).toBe(NEW);
  });

  test("no token or hash reaches a log line, a response, an event or the security log", async () => {
    const w = passwordWorld();
    const user = await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const asked = await w.changeEmail(jar, NEW, PASSWORD, true);
    const link = changeLink(w, NEW);
    const token = link.searchParams.get("token") as string;
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const used = await useLink(w, new Jar(), link, true);
    const seen = JSON.stringify([
      await asked.text(),
      await used.text(),
      w.logger.warn.mock.calls,
      w.logger.error.mock.calls,
      w.logger.debug.mock.calls,
      w.events,
      await w.securityLog.list(user.id, { limit: 50 }),
      w.mails.filter((m) => m.kind !== "changeEmail"),
    ]);
    expect(seen).not.toContain(token);
    expect(seen).not.toContain("scrypt$");
  });
});

describe("without a password", () => {
  test("a recent sign-in may ask; an older one must sign in again", async () => {
    const w = passwordWorld();
    const user = await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    // The password goes (as after removing it): the user holds a session and no password.
    await w.adapter.updateAccount({
      provider: "password",
      providerAccountId: user.id,
      passwordHash: null,
    });

    const recent = await w.changeEmail(jar, NEW, undefined, true);
    expect(recent.status).toBe(200);
    expect(w.lastMail(NEW).kind).toBe("changeEmail");

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11 * 60_000 });
    const late = await w.changeEmail(jar, "later@example.com", undefined, true);
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({ error: "ReauthenticationRequired" });
    expect(w.mails.filter((m) => m.to === "later@example.com")).toEqual([]);
  });
});

describe("the pages", () => {
  test("the form asks for the current password only when the user has one", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const page = await send(w.config, jar, "/auth/change-email/password");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('name="email"');
    expect(html).toContain('name="currentPassword"');
    const out = await send(w.config, new Jar(), "/auth/change-email/password");
    expect(out.status).toBe(302);
    expect(out.headers.get("location")).toContain("/auth/signin");
    await csrfToken(w.config, jar);
  });
});

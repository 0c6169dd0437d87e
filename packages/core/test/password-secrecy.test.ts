/**
 * A password and its hash stay where they belong: every hash the adapter was ever given, and
 * every password typed, is absent from every response (status line, headers, body), every log
 * line (at debug level), every event and callback argument, every email and the security log,
 * through a whole journey: sign-ups, the link in both browsers, sign-ins right and wrong, an
 * upgraded hash, a refused one. A failed write whose error quotes the row is logged without it.
 */
import { inspect } from "node:util";
import type { AdapterAccount } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { hashPassword } from "@gatehousejs/core/password";
import { describe, expect, test } from "vitest";
import { Jar, send } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld } from "./password-world.js";

const THIRD_PASSWORD = "yet another long passphrase";

/** Every value inside `value`, as text: errors with their causes, stacks and properties. */
const dump = (value: unknown) => inspect(value, { depth: 12, showHidden: false });

describe("the hash never leaves the adapter", () => {
  test("a whole journey: no response, log line, event, callback, email or log entry holds it", async () => {
    const base = MemoryAdapter();
    const hashes = new Set<string>();
    const keep = (account: Partial<AdapterAccount>) => {
      const value = account.passwordHash;
      if (typeof value === "string") {
        hashes.add(value);
        hashes.add(value.replace(/^pending\$/, ""));
      }
    };
    const adapter = {
      ...base,
      linkAccount: (account: AdapterAccount) => {
        keep(account);
        return base.linkAccount(account);
      },
      updateAccount: (...args: Parameters<typeof base.updateAccount>) => {
        keep(args[0]);
        return base.updateAccount(...args);
      },
    };
    const seen: unknown[] = [];
    const w = passwordWorld({
      adapter,
      password: { hash: {} },
      config: {
        debug: true,
        callbacks: {
          signIn: (params) => {
            seen.push(params);
            return true;
          },
          jwt: (params) => {
            seen.push(params);
            return params.token;
          },
          session: (params) => {
            seen.push(params);
            return params.session;
          },
        },
      },
    });
    const responses: string[] = [];
    const keepResponse = async (response: Response) => {
      const headers = [...response.headers].map(([k, v]) => `${k}: ${v}`).join("\n");
      responses.push(`${response.status}\n${headers}\n\n${await response.clone().text()}`);
      return response;
    };

    // Sign up; the owner of a taken address is told; the link in the browser that signed up.
    const alice = new Jar();
    await keepResponse(await w.signUp(alice, "alice@example.com", PASSWORD));
    await keepResponse(await w.signUp(new Jar(), "alice@example.com", OTHER_PASSWORD));
    await keepResponse(await w.signIn(new Jar(), "alice@example.com", PASSWORD));
    const link = w.mails.find((m) => m.kind === "verifyEmail")!;
    const confirmed = await w.follow(alice, new URL(link.url));
    await keepResponse(confirmed.response);
    // Signed in and out, right and wrong.
    await keepResponse(await w.signIn(new Jar(), "alice@example.com", PASSWORD));
    await keepResponse(await w.signIn(new Jar(), "alice@example.com", OTHER_PASSWORD));
    await keepResponse(await send(w.config, alice, "/auth/session"));
    // An older hash, upgraded at sign-in.
    const bob = await w.adapter.createUser({
      id: crypto.randomUUID(),
      email: "bob@example.com",
      emailVerified: new Date(),
    });
    await w.adapter.linkAccount({
      userId: bob.id,
      type: "password",
      provider: "password",
      providerAccountId: bob.id,
      passwordHash: await hashPassword(PASSWORD, { N: 2 ** 14 }),
    });
    await keepResponse(await w.signIn(new Jar(), "bob@example.com", PASSWORD));
    // Someone else's sign-up, secured by the address's owner in another browser.
    await keepResponse(await w.signUp(new Jar(), "carol@example.com", OTHER_PASSWORD));
    const carol = w.mails.filter((m) => m.to === "carol@example.com").at(-1)!;
    const secured = await w.follow(new Jar(), new URL(carol.url), { password: THIRD_PASSWORD });
    await keepResponse(secured.response);
    responses.push(confirmed.html, secured.html);

    expect(hashes.size).toBeGreaterThanOrEqual(6);
    const users = [
      bob.id,
      ...(await Promise.all(
        ["alice@example.com", "carol@example.com"].map(
          async (email) => (await w.adapter.getUserByEmail(email))!.id,
        ),
      )),
    ];
    const securityLog = await Promise.all(users.map((id) => w.securityLog.list(id, { limit: 50 })));
    const places: Record<string, string> = {
      responses: responses.join("\n\n"),
      logs: dump([w.logger.error.mock.calls, w.logger.warn.mock.calls, w.logger.debug.mock.calls]),
      events: dump(w.events),
      callbacks: dump(seen),
      emails: dump(w.mails),
      securityLog: dump(securityLog),
    };
    expect(w.logger.debug.mock.calls.length).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0);
    expect(w.events.some((e) => e.name === "linkAccount")).toBe(true);
    for (const [place, text] of Object.entries(places)) {
      for (const secret of [...hashes, PASSWORD, OTHER_PASSWORD, THIRD_PASSWORD]) {
        expect(text.includes(secret), `${place} holds a password or hash`).toBe(false);
      }
      expect(text.includes("passwordHash"), `${place} names passwordHash`).toBe(false);
    }
  });

  test("a failed write whose error quotes the row is logged without the hash", async () => {
    const base = MemoryAdapter();
    let written = "";
    const adapter = {
      ...base,
      linkAccount: (account: AdapterAccount) => {
        written = String(account.passwordHash);
        const error = new Error(`insert into account values (${account.passwordHash}) failed`);
        Object.assign(error, { parameters: [account.passwordHash] });
        return Promise.reject(error);
      },
    };
    const w = passwordWorld({ adapter });
    const response = await w.signUp(new Jar(), "x@example.com");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toContain("error=Configuration");
    expect(written).toMatch(/^pending\$scrypt\$/);
    const logged = dump(w.logger.error.mock.calls);
    expect(logged).toContain("insert into account values (pending$[password hash]) failed");
    expect(logged.includes(written.slice("pending$".length))).toBe(false);
    // The user that was created for it is taken back.
    expect(await w.adapter.getUserByEmail("x@example.com")).toBeNull();
  });
});

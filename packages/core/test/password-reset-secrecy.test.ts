/**
 * Resetting and changing a password leak nothing: through a journey of reset requests (known and
 * unknown addresses), a link opened, refused and used, and password changes right and wrong,
 * every hash the adapter was given, every password typed, every reset token and every stored
 * token hash is absent from every log line (at debug level), event and callback argument, and the
 * security log; and from every response, but the one page a link opens, which carries the link's
 * own token back in its form (the browser already holds it, in the address bar).
 */
import { inspect } from "node:util";
import type { AdapterAccount, VerificationToken } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { describe, expect, test } from "vitest";
import { Jar, send } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld } from "./password-world.js";

const RESET_PASSWORD = "a brand new passphrase for me";
const WRONG_PASSWORD = "not the password at all, sorry";
const OWNER = "owner@example.com";

const dump = (value: unknown) => inspect(value, { depth: 12, showHidden: false });

describe("reset and change keep every secret in its place", () => {
  test("no response, log line, event, callback or log entry holds a hash, password or token", async () => {
    const base = MemoryAdapter();
    const secrets = new Set<string>();
    const keepHash = (account: Partial<AdapterAccount>) => {
      if (typeof account.passwordHash === "string") {
        secrets.add(account.passwordHash.replace(/^pending\$/, ""));
      }
    };
    const adapter = {
      ...base,
      linkAccount: (account: AdapterAccount) => {
        keepHash(account);
        return base.linkAccount(account);
      },
      updateAccount: (...args: Parameters<typeof base.updateAccount>) => {
        keepHash(args[0]);
        return base.updateAccount(...args);
      },
      createVerificationToken: (row: VerificationToken) => {
        secrets.add(row.token);
        return base.createVerificationToken(row);
      },
    };
    const seen: unknown[] = [];
    const w = passwordWorld({
      adapter,
      config: {
        debug: true,
        session: { strategy: "database" },
        callbacks: {
          signIn: (params) => {
            seen.push(params);
            return true;
          },
          session: (params) => {
            seen.push(params);
            return params.session;
          },
        },
      },
    });
    const responses: string[] = [];
    const keep = async (response: Response) => {
      const headers = [...response.headers].map(([k, v]) => `${k}: ${v}`).join("\n");
      responses.push(`${response.status}\n${headers}\n\n${await response.clone().text()}`);
      return response;
    };

    const user = await w.verifiedUser(OWNER, PASSWORD);
    const laptop = new Jar();
    await keep(await w.signIn(laptop, OWNER, PASSWORD));
    // Requests: the owner's (form and JSON), an unknown address.
    await keep(await w.requestReset(new Jar(), OWNER));
    await keep(await w.requestReset(new Jar(), "nobody@example.com", true));
    await keep(await w.requestReset(new Jar(), OWNER, true));
    const link = new URL(w.lastMail(OWNER, "resetPassword").url);
    const token = link.searchParams.get("token")!;
    secrets.add(token);
    // The link: a refused password, then the reset (its page is the one exception).
    const browser = new Jar();
    const refused = await w.follow(browser, link, { password: "short" });
    // Refused, the form comes back: the link's page again, with its token.
    const refusedPage = await refused.response.text();
    const done = await w.follow(browser, link, { password: RESET_PASSWORD });
    await keep(done.response);
    await keep(await send(w.config, browser, "/auth/session"));
    // Changes: a wrong current password, then a right one.
    await keep(await w.changePassword(browser, WRONG_PASSWORD, OTHER_PASSWORD));
    await keep(await w.changePassword(browser, RESET_PASSWORD, OTHER_PASSWORD, true));
    await keep(await send(w.config, browser, "/auth/change-password/password"));
    await keep(await send(w.config, laptop, "/auth/session"));

    expect(secrets.size).toBeGreaterThanOrEqual(6);
    const places: Record<string, string> = {
      responses: responses.join("\n\n"),
      logs: dump([w.logger.error.mock.calls, w.logger.warn.mock.calls, w.logger.debug.mock.calls]),
      events: dump(w.events),
      callbacks: dump(seen),
      securityLog: dump(await w.securityLog.list(user.id, { limit: 50 })),
      // The emails: a link carries its own token, and nothing else secret.
      emails: dump(w.mails).split(token).join("[the link's own token]"),
    };
    expect(w.logger.debug.mock.calls.length).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0);
    const types = (await w.securityLog.list(user.id, { limit: 50 })).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["passwordReset", "passwordChanged"]));
    for (const [place, text] of Object.entries(places)) {
      for (const secret of [...secrets, PASSWORD, RESET_PASSWORD, OTHER_PASSWORD, WRONG_PASSWORD]) {
        expect(text.includes(secret), `${place} holds a secret`).toBe(false);
      }
      expect(text.includes("passwordHash"), `${place} names passwordHash`).toBe(false);
    }
    // The exception: the page the link opens holds its token in a hidden field, and only there.
    for (const page of [refused.html, refusedPage]) {
      expect(page).toContain(`name="token" value="${token}"`);
      for (const secret of [...secrets].filter((s) => s !== token)) {
        expect(page.includes(secret)).toBe(false);
      }
    }
  });
});

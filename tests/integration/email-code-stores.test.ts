/**
 * Email sign-in codes and scanner-safe links on every real store (pg-adapter on the server and
 * PGlite, redis-adapter, mikro-orm-adapter on PostgreSQL and SQLite), through `Auth()` with
 * database sessions: the right code signs in and spends the link, five wrong codes delete the
 * code's row so the right one fails, another browser's code is refused, and a scanner's `GET` of
 * the link leaves it usable.
 */
import Email from "@gatehousejs/core/providers/email";
import type { AuthConfig } from "@gatehousejs/core/types";
import { expect, test } from "vitest";
import { csrfToken, Jar, recordingLogger, SECRET, send } from "../../packages/core/test/helpers.js";
import { followLink } from "../../packages/core/test/support/email-link.js";
import { allStores, type OpenStore, storeBlock } from "./stores.js";

const FILE = "email-code-stores.test.ts";
const UNUSABLE = "code=code_unusable";
const WRONG = "code=wrong_code";

/** A configuration of its own per test; code tries are counted on the code's row in the store. */
function configFor(store: OpenStore) {
  const mails: { url: URL; code?: string }[] = [];
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    adapter: store.adapter,
    session: { strategy: "database" },
    providers: [
      Email({
        code: true,
        sendVerificationRequest: ({ url, code }) => {
          mails.push({ url: new URL(url), code });
        },
      }),
    ],
  };
  return { config, mails };
}

async function ask(world: ReturnType<typeof configFor>, jar: Jar, email: string) {
  await send(world.config, jar, "/auth/signin/email", {
    form: { csrfToken: await csrfToken(world.config, jar), email },
  });
  return world.mails.at(-1)!;
}

async function typeCode(config: AuthConfig, jar: Jar, code: string) {
  const answer = await send(config, jar, "/auth/callback/email", {
    form: { csrfToken: await csrfToken(config, jar), code },
  });
  return answer.headers.get("location") ?? "";
}

async function sessionEmail(config: AuthConfig, jar: Jar): Promise<string | undefined> {
  const session = (await (await send(config, jar, "/auth/session")).json()) as {
    user?: { email?: string };
  } | null;
  return session?.user?.email;
}

const wrongFor = (code: string) => code.replace(/\d$/, (d) => String((Number(d) + 1) % 10));

for (const kind of allStores) {
  await storeBlock(FILE, kind, (store) => {
    test("the right code signs in, a database session is stored, and the link is spent", async () => {
      const world = configFor(store());
      const jar = new Jar();
      const mail = await ask(world, jar, `right-${kind.name.length}@example.com`);
      expect(mail.code).toMatch(/^\d{8}$/);
      await typeCode(world.config, jar, mail.code!);
      expect(await sessionEmail(world.config, jar)).toBe(mail.url.searchParams.get("email"));
      const link = await followLink(world.config, new Jar(), mail.url);
      expect(link.headers.get("location")).toMatch(/error=Verification$/);
    });

    test("five wrong codes delete the code: the right one then fails; the link still works", async () => {
      const world = configFor(store());
      const jar = new Jar();
      const mail = await ask(world, jar, "five-wrong@example.com");
      const answers: string[] = [];
      for (let i = 0; i < 5; i++)
        answers.push(await typeCode(world.config, jar, wrongFor(mail.code!)));
      expect(answers.map((a) => a.includes(WRONG))).toEqual([true, true, true, true, false]);
      expect(answers[4]).toContain(UNUSABLE);
      expect(await typeCode(world.config, jar, mail.code!)).toContain(UNUSABLE);
      expect(await sessionEmail(world.config, jar)).toBeUndefined();
      await followLink(world.config, jar, mail.url);
      expect(await sessionEmail(world.config, jar)).toBe("five-wrong@example.com");
    });

    test("another browser's code is refused; a scanner's GET of the link consumes nothing", async () => {
      const world = configFor(store());
      const asker = new Jar();
      const mail = await ask(world, asker, "two-browsers@example.com");
      expect(await typeCode(world.config, new Jar(), mail.code!)).toContain(UNUSABLE);
      const scanned = await send(world.config, new Jar(), mail.url.pathname + mail.url.search);
      expect(scanned.status).toBe(200);
      await typeCode(world.config, asker, mail.code!);
      expect(await sessionEmail(world.config, asker)).toBe("two-browsers@example.com");
    });
  });
}

/**
 * Auth.js compares what an adapter returns with what it stored by deep equality: an optional
 * field the caller did not give must be absent (or `undefined`), never `null`. Gatehouse's own
 * optional fields (session records, an account's `error`) must follow the same rule, or an
 * adapter that passes this suite fails Auth.js's.
 */
import { expect } from "vitest";
import { accountKey, type Context, type Group, tokenKey } from "../context.js";

/**
 * Asserts that `actual` deep-equals `expected` (fields holding `undefined` count as absent, as in
 * Auth.js's checks), after dropping a row `id` that `expected` does not have.
 */
function expectSame(actual: unknown, expected: object, where: string): void {
  expect(actual, `${where} must be a row, got ${String(actual)}`).toBeTypeOf("object");
  expect(actual, `${where} must be a row, got null`).not.toBeNull();
  const row = { ...(actual as Record<string, unknown>) };
  if (!("id" in expected)) delete row["id"];
  const nulls = Object.keys(row).filter((k) => row[k] === null && !(k in expected));
  expect(
    nulls,
    `${where} returns fields it was not given as null (leave them out instead): ${nulls.join(", ")}`,
  ).toEqual([]);
  expect(row, `${where} must equal what was stored`).toEqual(expected);
}

/** A value the contract lets be `void`: nothing, or the same row. */
function expectSameOrNothing(actual: unknown, expected: object, where: string): void {
  if (actual !== undefined && actual !== null) expectSame(actual, expected, where);
}

async function sessionOfNewUser(ctx: Context) {
  const user = await ctx.createUser();
  return { user, session: ctx.newSession(user.id) };
}

export const authjsShape: Group = {
  title: "answers equal what was stored (Auth.js's adapter tests)",
  cases: [
    {
      name: "a session created with only its required fields comes back equal, with no null fields",
      uses: ["createUser", "createSession", "getSessionAndUser", "updateSession", "deleteSession"],
      async run(ctx) {
        const { user, session } = await sessionOfNewUser(ctx);
        expectSame(await ctx.a.createSession(session), session, "createSession's return value");
        const found = await ctx.a.getSessionAndUser(session.sessionToken);
        expectSame(found?.session, session, "getSessionAndUser(token).session");
        expectSame(found?.user, user, "getSessionAndUser(token).user");
        const expires = new Date(session.expires.getTime() + 60_000);
        const moved = { ...session, expires };
        expectSameOrNothing(
          await ctx.a.updateSession({ sessionToken: session.sessionToken, expires }),
          moved,
          "updateSession's return value",
        );
        if (ctx.has("listSessionsByUserId")) {
          const listed = await ctx.a.listSessionsByUserId(user.id);
          expect(listed, "listSessionsByUserId(user) after createSession").toHaveLength(1);
          expectSame(listed[0], moved, "listSessionsByUserId(user)[0]");
        }
        expectSameOrNothing(
          await ctx.a.deleteSession(session.sessionToken),
          moved,
          "deleteSession's return value",
        );
      },
    },
    {
      name: "an account linked without its optional fields comes back equal, with no null fields",
      uses: ["createUser", "linkAccount", "getAccount", "getUser", "unlinkAccount"],
      async run(ctx) {
        const user = await ctx.createUser();
        expectSame(await ctx.a.getUser(user.id), user, "getUser(id)");
        const account = ctx.newAccount(user.id);
        expectSameOrNothing(
          await ctx.a.linkAccount(account),
          account,
          "linkAccount's return value",
        );
        expectSame(
          await ctx.a.getAccount(account.providerAccountId, account.provider),
          account,
          "getAccount(providerAccountId, provider)",
        );
        if (ctx.has("listAccountsByUserId")) {
          const listed = await ctx.a.listAccountsByUserId(user.id);
          expect(listed, "listAccountsByUserId(user) after linkAccount").toHaveLength(1);
          expectSame(listed[0], account, "listAccountsByUserId(user)[0]");
        }
        expectSameOrNothing(
          await ctx.a.unlinkAccount(accountKey(account)),
          account,
          "unlinkAccount's return value",
        );
      },
    },
    {
      name: "a verification token comes back equal, also after its tries were counted",
      uses: ["createVerificationToken", "useVerificationToken"],
      async run(ctx) {
        const token = ctx.newVerificationToken();
        expectSameOrNothing(
          await ctx.a.createVerificationToken(token),
          token,
          "createVerificationToken's return value",
        );
        if (ctx.has("countVerificationTokenTry")) {
          await ctx.a.countVerificationTokenTry(tokenKey(token), 5);
        }
        expectSame(
          await ctx.a.useVerificationToken(tokenKey(token)),
          token,
          "useVerificationToken",
        );
      },
    },
  ],
};

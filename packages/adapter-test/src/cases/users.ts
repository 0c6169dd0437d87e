import { expect } from "vitest";
import { dateFromNow, expectNull, expectRow, expectRowOrNothing, type Group } from "../context.js";

export const users: Group = {
  title: "users",
  cases: [
    {
      name: "createUser stores the user and returns it with its id",
      uses: ["createUser"],
      async run(ctx) {
        const input = ctx.newUser();
        const user = await ctx.a.createUser(input);
        expectRow(user, input, "createUser's return value", { ignore: ["id"] });
        expect(user.id, "createUser must return the user's id").toBeTypeOf("string");
        if (ctx.db.user) {
          expectRow(await ctx.db.user(user.id), user, "db.user(id) after createUser");
        }
      },
    },
    {
      name: "getUser returns the stored user, and null for an unknown id",
      uses: ["createUser", "getUser"],
      async run(ctx) {
        const user = await ctx.createUser();
        expectRow(await ctx.a.getUser(user.id), user, "getUser(id)");
        expectNull(await ctx.a.getUser(ctx.id()), "getUser(unknown id)");
      },
    },
    {
      name: "getUserByEmail returns the stored user, and null for an unknown email",
      uses: ["createUser", "getUserByEmail"],
      async run(ctx) {
        const user = await ctx.createUser();
        expectRow(await ctx.a.getUserByEmail(user.email), user, "getUserByEmail(email)");
        const unknown = `missing-${ctx.unique()}@example.com`;
        expectNull(await ctx.a.getUserByEmail(unknown), "getUserByEmail(unknown email)");
      },
    },
    {
      name: "updateUser changes the given fields and keeps the others",
      uses: ["createUser", "updateUser", "getUser"],
      async run(ctx) {
        const user = await ctx.createUser();
        const patch = { id: user.id, name: "Renamed User", emailVerified: dateFromNow(-3600_000) };
        const expected = { ...user, ...patch };
        expectRow(await ctx.a.updateUser(patch), expected, "updateUser's return value");
        expectRow(await ctx.a.getUser(user.id), expected, "getUser(id) after updateUser");
        if (ctx.db.user) {
          expectRow(await ctx.db.user(user.id), expected, "db.user(id) after updateUser");
        }
      },
    },
    {
      name: "deleteUser removes the user and leaves other users alone",
      uses: ["createUser", "deleteUser", "getUser"],
      async run(ctx) {
        const user = await ctx.createUser();
        const other = await ctx.createUser();
        expectRowOrNothing(await ctx.a.deleteUser(user.id), user, "deleteUser's return value");
        expectNull(await ctx.a.getUser(user.id), "getUser(id) after deleteUser");
        expectRow(await ctx.a.getUser(other.id), other, "getUser(id of another user)");
        if (ctx.db.user) {
          expect(await ctx.db.user(user.id), "db.user(id) after deleteUser").toBeFalsy();
        }
      },
    },
  ],
};

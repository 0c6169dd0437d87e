/**
 * The handler's documentation lists the actions it answers: the list is held to the protocol's
 * routes (core's kernel routes and the built-in methods' and features' routes), so a new route
 * cannot leave the comment behind.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { builtins } from "../../core/src/builtins.js";
import { routes } from "../../core/src/lib/routes/index.js";

test("the handler's comment names every action of the protocol, and nothing else", () => {
  const source = readFileSync(join(import.meta.dirname, "../src/server/handler.ts"), "utf8");
  const listed = /answers each\s+\* action of the protocol \(([^)]*)\)/.exec(source)?.[1];
  expect(listed, "the action list in the handler's comment").toBeDefined();
  const named = [...listed!.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  const declared = [
    ...routes.map((r) => r.name),
    ...builtins.flatMap((f) => ("routes" in f ? f.routes.map((r) => r.name) : [])),
  ];
  expect([...named].sort()).toEqual([...declared].sort());
});

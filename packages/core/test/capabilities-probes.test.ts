/**
 * Optional adapter methods are asked for in one place, src/lib/capabilities.ts: no other source
 * file probes the adapter (`adapter.x?.(…)`, `adapter?.x`, `typeof adapter.x === "function"`,
 * `if (!adapter.x)`). A new probe fails here; ask `capabilitiesOf(config)` instead, and write
 * what happens without the method beside the capability.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";

const src = resolve(import.meta.dirname, "../src");
const allowed = new Set(["lib/capabilities.ts"]);

/** The methods of the adapter contract, read from its interface. */
function adapterMethods(): string[] {
  const models = readFileSync(join(src, "lib/types/models.ts"), "utf8");
  const body = /export interface Adapter \{\n([\s\S]*?)\n\}/.exec(models)?.[1] ?? "";
  return [...body.matchAll(/^ {2}(\w+)\?\(/gm)].map((m) => m[1]!);
}

const methods = adapterMethods();
const method = `(?:${methods.join("|")})\\b`;
/** Something that holds the adapter: `adapter`, `ctx.config.adapter`, `adapter!`, `store`. */
const holder = String.raw`\b(?:adapter|store)[!?]*\.`;
const probes = [
  // adapter?.x: the adapter itself may be missing, and whatever follows is a guess.
  /\badapter\?\./,
  // typeof adapter.x === "function"
  new RegExp(String.raw`typeof\s+[\w.?!]*${holder}${method}`),
  // adapter.x?.(…), or adapter.x named without being called: if (adapter.x), !adapter.x, = adapter.x
  new RegExp(String.raw`${holder}${method}(?!\s*[(!])`),
];

/** The lines of `source` that probe the adapter for a method. */
function adapterProbes(source: string): string[] {
  return source.split("\n").filter((line) => probes.some((probe) => probe.test(line)));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("adapter probes", () => {
  test("the adapter's methods are read from its interface", () => {
    expect(methods).toContain("listSessionsByUserId");
    expect(methods).toContain("countVerificationTokenTry");
    expect(methods.length).toBeGreaterThanOrEqual(25);
  });

  test("no source file but capabilities.ts probes the adapter", () => {
    const found = sourceFiles(src)
      .map((file) => relative(src, file).split("\\").join("/"))
      .filter((file) => !allowed.has(file))
      .flatMap((file) =>
        adapterProbes(readFileSync(join(src, file), "utf8")).map(
          (line) => `${file}: ${line.trim()}`,
        ),
      );
    expect(found).toEqual([]);
  });

  // The shapes the code had before capabilities.ts: each is caught.
  test.each([
    "  return (await adapter.getAccount?.(key.providerAccountId, key.provider)) ?? null;",
    "  if (!adapter.lockAccount) return refreshLocked(resolved, adapter, provider, account, skew);",
    "    if (adapter?.getUserByAccount) {",
    "    const rows = (await adapter.listSessionsByUserId?.(userId)) ?? undefined;",
    "    if (adapter.deleteSessionsByUserId) {",
    "  if (database ? !adapter?.updateSession || !adapter.listSessionsByUserId : !store?.recordSession) {",
    '  return typeof config.adapter?.listSessionsByUserId === "function";',
    '  return typeof adapter.listSessionsByUserId === "function";',
    "  const lookup = ctx.config.adapter?.getUserByEmail;",
    "  const stored = await ctx.config.adapter?.getUser?.(id);",
    "  if (!value || !adapter.getUser) return null;",
    "    await Promise.resolve(store.deleteUser?.(user.id)).catch((cause) =>",
    '  if (!store.updateAccount || (account.type !== "oauth" && account.type !== "oidc")) return;',
    "  if (adapter && (!adapter.getAccount || !adapter.listAccountsByUserId || !adapter.updateAccount)) {",
  ])("a probe is caught: %s", (line) => {
    expect(adapterProbes(line)).toEqual([line]);
  });

  test.each([
    "  const { listSessions, updateSession } = capabilitiesOf(resolved);",
    "    const rows = (await can.listSessions?.(userId)) ?? undefined;",
    "  const found = await adapter.getSessionAndUser(token);",
    "  const owner = await adapter.getUserByAccount!({",
    "  if (sid && store.listSessions) {",
    "  if (database ? !updateSession || !listSessions : !store?.recordSession) {",
    "const pendingByAdapter = new WeakMap<Adapter, Map<string, Promise<AccessToken>>>();",
  ])("asking a capability, or calling a required method, is not a probe: %s", (line) => {
    expect(adapterProbes(line)).toEqual([]);
  });
});

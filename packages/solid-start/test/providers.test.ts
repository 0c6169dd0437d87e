/**
 * `@gatehousejs/solid-start/providers/<id>` is `@gatehousejs/core/providers/<id>`: one file per
 * provider of core, each as scripts/providers.mjs writes it, and each module the same as core's.
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { coreProviderIds, providerDrift, providerModule } from "../scripts/providers.mjs";

const pkgDir = resolve(import.meta.dirname, "..");
const ids = coreProviderIds();

describe("the provider modules", () => {
  test("core's providers are found (the list the files are checked against)", () => {
    expect(ids).toEqual(expect.arrayContaining(["credentials", "passkey", "tiktok", "google"]));
    expect(ids).not.toContain("_shared");
    expect(ids.length).toBeGreaterThanOrEqual(25);
  });

  test("one file per provider of core, each as scripts/providers.mjs writes it", () => {
    expect(providerDrift()).toEqual({ missing: [], stale: [], extra: [] });
    const files = readdirSync(join(pkgDir, "src/providers")).sort();
    expect(files).toEqual(ids.map((id) => `${id}.ts`));
  });

  test("a written module re-exports core's whole module, its default too", () => {
    expect(providerModule("github")).toContain(
      'export * from "@gatehousejs/core/providers/github";',
    );
    expect(providerModule("github")).toContain(
      'export { default } from "@gatehousejs/core/providers/github";',
    );
  });

  test.each(ids)("providers/%s exports what core's module exports, the same values", async (id) => {
    const ours = (await import(`@gatehousejs/solid-start/providers/${id}`)) as Record<
      string,
      unknown
    >;
    const core = (await import(`@gatehousejs/core/providers/${id}`)) as Record<string, unknown>;
    expect(Object.keys(ours).sort()).toEqual(Object.keys(core).sort());
    for (const name of Object.keys(core)) expect(ours[name], name).toBe(core[name]);
    expect(typeof ours.default).toBe("function");
  });
});

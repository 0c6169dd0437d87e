/**
 * Importing one provider loads no other provider's code: for every provider module of
 * packages/core/src/providers (all exported through `./providers/*` in packages/core/package.json),
 * a fresh Node process imports the BUILT module (run `npm run build`
 * first; `npm test` does) and calls its factory, with a loader hook listing every module loaded.
 * Only the provider's own module and the small helpers under `providers/_shared/` may appear
 * among `dist/providers/`.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";

const run = promisify(execFile);
const core = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const manifest = JSON.parse(readFileSync(join(core, "package.json"), "utf8")) as {
  exports: Record<string, { default: string } | null>;
};
const providerIds = readdirSync(join(core, "src/providers"))
  .filter((name) => /^[a-z0-9-]+\.ts$/.test(name))
  .map((name) => name.slice(0, -".ts".length));
const builtIds = providerIds.filter((id) => existsSync(join(core, "dist/providers", `${id}.js`)));

/** The issue 11 providers: each must be its own export entry. */
const ISSUE_11 = [
  "google",
  "github",
  "apple",
  "microsoft-entra-id",
  "discord",
  "gitlab",
  "auth0",
  "okta",
  "keycloak",
  "cognito",
  "facebook",
  "twitter",
  "linkedin",
  "slack",
  "twitch",
  "spotify",
  "zitadel",
  "authentik",
];

/**
 * Providers built on another by design, as in Auth.js: Passkey is the WebAuthn provider with
 * passkey defaults. Nothing else may load a second provider.
 */
const BUILT_ON: Record<string, string[]> = { passkey: ["webauthn"] };

const hooks = `data:text/javascript,${encodeURIComponent(
  'import { register } from "node:module";' +
    "register(" +
    JSON.stringify(
      `data:text/javascript,${encodeURIComponent(
        'import { writeSync } from "node:fs";' +
          "export async function load(url, context, next) {" +
          ' writeSync(2, "loaded " + url + "\\n"); return next(url, context); }',
      )}`,
    ) +
    ");",
)}`;

/** The `dist/providers/` modules a fresh process loads to import `id` and call its factory. */
async function providerModulesLoadedBy(id: string): Promise<string[]> {
  // The factory's own checks (a missing option, say) may throw: what it loads is the point.
  const script = `
    const module = await import("@gatehousejs/core/providers/${id}");
    if (typeof module.default !== "function") throw new Error("no default export");
    try { module.default({}); } catch {}
    process.stderr.write("IMPORTED\\n");
  `;
  const { stderr } = await run(
    process.execPath,
    ["--import", hooks, "--input-type=module", "-e", script],
    { cwd: core },
  );
  const lines = stderr.split("\n");
  expect(lines, stderr).toContain("IMPORTED");
  return lines
    .filter((line) => line.startsWith("loaded ") && line.includes("/dist/providers/"))
    .map((line) => line.slice(line.indexOf("/dist/providers/") + "/dist/providers/".length));
}

describe("every provider is its own subpath", () => {
  test("one ./providers/* export (source, types, built module); providers/_shared stays private", () => {
    expect(manifest.exports["./providers/*"]).toEqual({
      "gatehouse-source": "./src/providers/*.ts",
      types: "./dist/providers/*.d.ts",
      default: "./dist/providers/*.js",
    });
    expect(manifest.exports["./providers/_shared/*"]).toBeNull();
  });

  test.each(ISSUE_11)("./providers/%s is a provider module", (id) => {
    expect(providerIds).toContain(id);
  });
});

describe.skipIf(builtIds.length === 0)("importing one provider (built package)", () => {
  test("every exported provider is built (run npm run build)", () => {
    expect(providerIds.filter((id) => !builtIds.includes(id))).toEqual([]);
  });

  test.each(builtIds)(
    "%s loads no other provider's module",
    async (id) => {
      const loaded = await providerModulesLoadedBy(id);
      expect(loaded).toContain(`${id}.js`);
      const allowed = new Set([`${id}.js`, ...(BUILT_ON[id] ?? []).map((p) => `${p}.js`)]);
      const others = loaded.filter((file) => !allowed.has(file) && !file.startsWith("_shared/"));
      expect(others).toEqual([]);
    },
    20_000,
  );

  test("the listing sees a provider built on another (the check can fail)", async () => {
    expect(await providerModulesLoadedBy("passkey")).toEqual(
      expect.arrayContaining(["passkey.js", "webauthn.js"]),
    );
  });
});

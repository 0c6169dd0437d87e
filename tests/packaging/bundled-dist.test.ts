/**
 * The built JavaScript of core and of the SolidStart package is bundled (packages/core/scripts/
 * bundle.mjs): one module per export of package.json, the shared code and every lazy part in
 * dist/chunks/. What that must keep true, on the built dist/ (`npm test` builds it first):
 * nothing else is left in dist/, each source module is in one file only (so module-level state
 * exists once), the entries an app imports together share it at run time, and the root's
 * top-level code stays in the one file package.json declares with side effects.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAst } from "rollup/parseAst";
import { describe, expect, test } from "vitest";
import { sourcesOf } from "../../packages/core/scripts/dist-sources.mjs";
import { root } from "../docs/markdown.js";

interface Manifest {
  sideEffects: boolean | string[];
  exports: Record<string, string | null | { "gatehouse-source"?: string; default?: string }>;
}

const PACKAGES = ["core", "solid-start"];

const dirOf = (name: string) => join(root, "packages", name);
const built = PACKAGES.every((name) => existsSync(join(dirOf(name), "dist/index.js")));

function manifest(name: string): Manifest {
  return JSON.parse(readFileSync(join(dirOf(name), "package.json"), "utf8")) as Manifest;
}

/** The `.js` files of a package's dist/, relative to it (`providers/google.js`). */
function builtFiles(name: string): string[] {
  const dist = join(dirOf(name), "dist");
  return readdirSync(dist, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".js"))
    .map((file) => file.split("\\").join("/"))
    .sort();
}

/** The files the exports map names (`./providers/*` stands for every provider source). */
function exportedFiles(name: string): string[] {
  const files: string[] = [];
  for (const target of Object.values(manifest(name).exports)) {
    if (target === null || typeof target === "string" || !target.default) continue;
    const source = target["gatehouse-source"]!;
    if (!source.includes("*")) {
      files.push(target.default.slice("./dist/".length));
      continue;
    }
    const folder = source.slice("./".length, source.lastIndexOf("/"));
    for (const file of readdirSync(join(dirOf(name), folder))) {
      if (!file.endsWith(".ts")) continue;
      const id = file.slice(0, -".ts".length);
      files.push(target.default.replace("*", id).slice("./dist/".length));
    }
  }
  return files.sort();
}

describe.skipIf(!built)("the bundled dist/ of core and the SolidStart package", () => {
  test.each(PACKAGES)("%s: dist/ holds the exported modules and chunks/, nothing else", (name) => {
    const files = builtFiles(name);
    const entries = exportedFiles(name);
    expect(entries.length).toBeGreaterThan(3);
    expect(files.filter((file) => !file.startsWith("chunks/"))).toEqual(entries);
  });

  test.each(PACKAGES)("%s: every source module is in one built file only", (name) => {
    const where = new Map<string, string[]>();
    for (const file of builtFiles(name)) {
      for (const source of sourcesOf(join(dirOf(name), "dist", file))) {
        where.set(source, [...(where.get(source) ?? []), file]);
      }
    }
    expect(where.size).toBeGreaterThan(0);
    expect([...where].filter(([, files]) => files.length > 1)).toEqual([]);
  });

  test("core's root keeps its top-level code (installing the built-in features) in dist/index.js", () => {
    // package.json declares src/index.ts and dist/index.js with side effects, and nothing else:
    // a bundler may drop any other file an app takes no name from.
    const declared = manifest("core").sideEffects;
    expect(declared).toEqual(["./src/index.ts", "./dist/index.js"]);
    const holding = builtFiles("core").filter((file) =>
      sourcesOf(join(dirOf("core"), "dist", file)).includes("src/index.ts"),
    );
    expect(holding).toEqual(["index.js"]);
    const code = readFileSync(join(dirOf("core"), "dist/index.js"), "utf8");
    const statements = parseAst(code).body.filter((node) => node.type === "ExpressionStatement");
    expect(statements.length).toBeGreaterThan(0);
  });

  test("the SolidStart package runs no code at the top level of any built file", () => {
    expect(manifest("solid-start").sideEffects).toBe(false);
    const running = builtFiles("solid-start").filter((file) => {
      const code = readFileSync(join(dirOf("solid-start"), "dist", file), "utf8");
      return parseAst(code).body.some((node) => node.type === "ExpressionStatement");
    });
    expect(running).toEqual([]);
  });

  test("core's entries used together share their modules: same values, same classes", () => {
    const entries = Object.entries(manifest("core").exports)
      .filter(([subpath, target]) => target && typeof target === "object" && !subpath.includes("*"))
      // The browser client has names of its own (its listSessions calls the server's route).
      .filter(([subpath]) => subpath !== "./client")
      .map(([subpath]) => `@gatehousejs/core${subpath.slice(1)}`);
    const providers = ["credentials", "github", "webauthn", "passkey", "email"].map(
      (id) => `@gatehousejs/core/providers/${id}`,
    );
    const script = `
      const names = ${JSON.stringify([...entries, ...providers])};
      const seen = new Map();
      const repeated = new Set();
      const different = [];
      for (const name of names) {
        const module = await import(name);
        for (const [key, value] of Object.entries(module)) {
          if (key === "default") continue;
          if (!seen.has(key)) seen.set(key, { value, from: name });
          else if (seen.get(key).value === value) repeated.add(key);
          else different.push(key + ": " + seen.get(key).from + " and " + name);
        }
      }
      // An error the root's Auth() throws is an instance of the class the errors entry exports.
      const { Auth } = await import("@gatehousejs/core");
      const { AuthError, MissingSecret } = await import("@gatehousejs/core/errors");
      let logged;
      const logger = { error: (error) => { logged = error; }, warn() {}, debug() {} };
      await Auth(new Request("http://localhost/auth/session"), { trustHost: true, providers: [], logger });
      console.log(JSON.stringify({
        different,
        repeated: [...repeated].sort(),
        authError: logged instanceof AuthError && logged instanceof MissingSecret,
      }));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: dirOf("core"),
      encoding: "utf8",
    });
    const result = JSON.parse(out.trim().split("\n").at(-1)!) as {
      different: string[];
      repeated: string[];
      authError: boolean;
    };
    expect(result.different).toEqual([]);
    // Names more than one entry exports, each the same value from all of them.
    expect(result.repeated).toEqual(
      expect.arrayContaining(["MemoryRateLimitStore", "hashPassword", "isDate"]),
    );
    expect(result.authError).toBe(true);
  });
});

/**
 * The path rules of the integration kit's middleware: protected patterns, the two spellings of
 * a request path (the router's and the decoded one), and what counts as a static asset.
 */
import { describe, expect, test } from "vitest";
import {
  canonicalPath,
  compilePattern,
  isAssetPath,
  matchesPattern,
} from "../src/integration/paths.js";
import { ORIGIN } from "./helpers.js";

/** SolidStart's: its build output and its server functions and assets. */
const SOLID_START_ROOTS = ["/_build", "/_server"];

describe("protected path patterns", () => {
  const matches = (pattern: string, path: string) =>
    matchesPattern(canonicalPath(new URL(`${ORIGIN}${path}`).pathname), compilePattern(pattern));

  test('"/account" is that path only, with or without a trailing slash', () => {
    expect(matches("/account", "/account")).toBe(true);
    expect(matches("/account", "/account/")).toBe(true);
    expect(matches("/account", "/accounts")).toBe(false);
    expect(matches("/account", "/account/x")).toBe(false);
    expect(matches("/account", "/")).toBe(false);
  });

  test('"/admin/*" is /admin and everything under it, not its look-alikes', () => {
    for (const path of ["/admin", "/admin/", "/admin/users", "/admin/users/42/edit"]) {
      expect(matches("/admin/*", path), path).toBe(true);
    }
    for (const path of ["/administrator", "/adminx/y", "/x/admin", "/"]) {
      expect(matches("/admin/*", path), path).toBe(false);
    }
  });

  test('"/*" is every path', () => {
    expect(matches("/*", "/")).toBe(true);
    expect(matches("/*", "/anything/at/all")).toBe(true);
  });

  test("spellings the router renders as the same page are matched alike", () => {
    for (const path of [
      "/Admin",
      "/ADMIN/users",
      "//admin",
      "/admin//users",
      "/%61dmin",
      "/%41DMIN/x",
      "/admin%2F",
      "/admin%2fusers",
      "/x/..%2Fadmin",
      "/x/%2e%2e/admin",
      "/admin/../admin/x",
      "/./admin",
      "/admin%5Cx",
      "/admin\\x",
      "/%zz/../admin",
    ]) {
      expect(matches("/admin/*", path), path).toBe(true);
    }
    expect(matches("/account", "/Account/")).toBe(true);
    expect(matches("/account", "/%2Faccount")).toBe(true);
  });

  test("patterns are normalised like paths", () => {
    expect(compilePattern("/Admin/*")).toEqual({ path: "/admin", prefix: true });
    expect(compilePattern("/account/")).toEqual({ path: "/account", prefix: false });
  });

  test("a pattern must start with / and may only end with *", () => {
    expect(() => compilePattern("account")).toThrow(TypeError);
    expect(() => compilePattern("/a*b")).toThrow(/only end/);
    expect(() => compilePattern("/*/x")).toThrow(TypeError);
  });

  test("static assets: under the framework's roots, and files with an asset extension", () => {
    for (const path of [
      "/_build/assets/index-abc.js",
      "/_server",
      "/_server/assets/x.css",
      "/favicon.ico",
      "/logo.svg",
      "/fonts/inter.woff2",
      "/app.js.map",
      "/styles.css",
      "/img/hero.png",
    ]) {
      expect(isAssetPath(canonicalPath(path), SOLID_START_ROOTS), path).toBe(true);
    }
    for (const path of ["/", "/admin", "/admin/users", "/_buildx", "/report.v2", "/.js"]) {
      expect(isAssetPath(canonicalPath(path), SOLID_START_ROOTS), path).toBe(false);
    }
  });
});

describe("asset roots belong to the framework", () => {
  test("another framework's roots are assets; SolidStart's are then ordinary paths", () => {
    const roots = ["/_next"];
    expect(isAssetPath(canonicalPath("/_next/static/chunk"), roots)).toBe(true);
    expect(isAssetPath(canonicalPath("/_NEXT/x"), roots)).toBe(true);
    expect(isAssetPath(canonicalPath("/_build/x"), roots)).toBe(false);
    expect(isAssetPath(canonicalPath("/_server"), roots)).toBe(false);
  });

  test("no roots: only files with an asset extension", () => {
    expect(isAssetPath(canonicalPath("/_build/x"), [])).toBe(false);
    expect(isAssetPath(canonicalPath("/_build/x.js"), [])).toBe(true);
  });
});

/**
 * The app, body and trust-proxy tests again on Express 4: `express` resolves to Express 4 (the
 * devDependency alias `express4`) for every module this file loads, the package's own
 * `import express` included, so its router is Express 4's, in apps made by Express 4, with
 * Express 4's body-parser 1.x behind `express.json()` and `express.urlencoded()`.
 */
import { expect, test, vi } from "vitest";
import { EXPRESS_MAJOR } from "./support.js";
import "./app.test.js";
import "./body.test.js";
import "./trust-proxy.test.js";

vi.mock("express", () => import("express4"));

test("the tests of this file run on Express 4", () => {
  expect(EXPRESS_MAJOR).toBe(4);
});

/** Listing and removing passkeys from a Solid app: core's client functions, re-exported. */
import * as core from "@gatehousejs/core/client";
import { listPasskeys, removePasskey } from "@gatehousejs/solid-start/client";
import { expect, test } from "vitest";

test("listPasskeys and removePasskey are core's, re-exported", () => {
  expect(listPasskeys).toBe(core.listPasskeys);
  expect(removePasskey).toBe(core.removePasskey);
});

/**
 * Issue 13 through @gatehousejs/solid-start: getAccessToken is core's, re-exported as it is.
 */
import * as core from "@gatehousejs/core";
import { getAccessToken } from "@gatehousejs/solid-start";
import { describe, expect, test } from "vitest";

describe("provider tokens from @gatehousejs/solid-start", () => {
  test("getAccessToken is core's own function", () => {
    expect(getAccessToken).toBe(core.getAccessToken);
  });
});

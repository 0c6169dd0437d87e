/**
 * Issue 13 through @gatehouse/solid-start: getAccessToken is core's, re-exported as it is.
 */
import * as core from "@gatehouse/core";
import { getAccessToken } from "@gatehouse/solid-start";
import { describe, expect, test } from "vitest";

describe("provider tokens from @gatehouse/solid-start", () => {
  test("getAccessToken is core's own function", () => {
    expect(getAccessToken).toBe(core.getAccessToken);
  });
});

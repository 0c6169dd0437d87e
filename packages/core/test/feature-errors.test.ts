/**
 * A feature's error types go through the seam (lib/feature.ts `errors`): installing the features
 * registers each one's traits and sign-in page words, before any request. The password feature's
 * `EmailNotVerified` is one, and nothing registers it as a side effect of importing a module.
 */
import { afterEach, describe, expect, test } from "vitest";
import "@gatehousejs/core";
import { AuthError, type ErrorType, isClientError, isClientMistake } from "../src/lib/errors.js";
import { installedFeatures, installFeatures } from "../src/lib/feature.js";
import { EmailNotVerified } from "../src/lib/features/password/errors.js";
import { signInErrorMessage } from "../src/lib/pages/sign-in-errors.js";

const builtins = installedFeatures();
afterEach(() => installFeatures(builtins));

class Surprise extends AuthError {
  override type = "SeamSurprise" as string as ErrorType;
}

describe("error types declared by a feature", () => {
  test("are classified and worded once the feature is installed", () => {
    const error = new Surprise("boom");
    expect(isClientMistake(error)).toBe(false);
    expect(isClientError(error)).toBe(false);
    expect(signInErrorMessage("SeamSurprise")).toBe(signInErrorMessage("NoSuchValue"));

    installFeatures([
      ...builtins,
      {
        name: "seam-test",
        errors: [
          {
            type: "SeamSurprise" as string as ErrorType,
            clientSafe: true,
            mistake: true,
            signInMessage: "A surprise the test declared.",
          },
        ],
      },
    ]);
    expect(isClientMistake(error)).toBe(true);
    expect(isClientError(error)).toBe(true);
    expect(signInErrorMessage("SeamSurprise")).toBe("A surprise the test declared.");
  });

  test("the password feature's EmailNotVerified comes from its declaration", () => {
    const error = new EmailNotVerified("unproven");
    expect(isClientMistake(error)).toBe(true);
    expect(signInErrorMessage("EmailNotVerified")).toMatch(/Confirm your email address/);
  });
});

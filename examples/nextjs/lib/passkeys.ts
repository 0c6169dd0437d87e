"use client";
/**
 * The client kit's passkey functions: `signIn("passkey")` and `registerPasskey()`, with the
 * WebAuthn helpers of ./webauthn-browser.ts loaded on the first ceremony only.
 */
import { withPasskeys } from "@gatehousejs/nextjs/client";

export const { signIn, registerPasskey } = withPasskeys(() => import("./webauthn-browser"));

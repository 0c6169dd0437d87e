"use server";
/**
 * The app's Server Actions: sign in with a form (the demo account, a password account, an email
 * link, the OpenID provider) and sign out. Next.js checks the origin of every Server Action, so no CSRF token is
 * needed; `signIn` and `signOut` of auth.ts set the cookies and redirect.
 */
import { AuthError, CredentialsSignin } from "@gatehousejs/nextjs";
import { redirect } from "next/navigation";
import { signIn, signOut } from "@/auth";

/** Only a path of this site is a place to come back to. */
function backTo(value: FormDataEntryValue | null): string {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//")
    ? value
    : "/";
}

/** The login page again, saying what went wrong, still coming back to `callbackUrl`. */
function refused(error: string, callbackUrl: string): never {
  redirect(`/login?${new URLSearchParams({ error, callbackUrl })}`);
}

/** Email and password: the Credentials provider's `authorize` in auth.ts checks them. */
export async function signInWithPassword(form: FormData): Promise<void> {
  const callbackUrl = backTo(form.get("callbackUrl"));
  try {
    await signIn("credentials", {
      email: form.get("email"),
      password: form.get("password"),
      redirectTo: callbackUrl,
    });
  } catch (error) {
    // A refused sign-in is thrown here; Next's own redirect (the success) must go on.
    if (error instanceof CredentialsSignin) refused("CredentialsSignin", callbackUrl);
    if (error instanceof AuthError) refused(error.type, callbackUrl);
    throw error;
  }
}

/**
 * A password account (made with "Create an account"): the Password provider checks it. A wrong
 * password throws `CredentialsSignin`, an address not yet confirmed `EmailNotVerified`; with
 * two-factor sign-in on, the browser goes to the challenge page before any session exists.
 */
export async function signInWithPasswordAccount(form: FormData): Promise<void> {
  const callbackUrl = backTo(form.get("callbackUrl"));
  try {
    await signIn("password", {
      email: form.get("email"),
      password: form.get("password"),
      redirectTo: callbackUrl,
    });
  } catch (error) {
    if (error instanceof AuthError) refused(error.type, callbackUrl);
    throw error;
  }
}

/** An email link and code: the "check your email" page, where the code can be typed. */
export async function signInWithEmail(form: FormData): Promise<void> {
  const callbackUrl = backTo(form.get("callbackUrl"));
  try {
    await signIn("nodemailer", { email: form.get("email"), redirectTo: callbackUrl });
  } catch (error) {
    if (error instanceof AuthError) refused(error.type, callbackUrl);
    throw error;
  }
}

/** The OpenID provider: the browser goes to its authorization page, then comes back. */
export async function signInWithOidc(form: FormData): Promise<void> {
  await signIn("oidc", { redirectTo: backTo(form.get("callbackUrl")) });
}

/** Ends the session (revoked in the store, cookie cleared), then the home page. */
export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/" });
}

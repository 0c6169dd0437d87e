/** The built-in pages: pure functions from page data to HTML. */

export type { EmailConfirmPageParams } from "./email-confirm.js";
export { renderEmailConfirmPage } from "./email-confirm.js";
export type { ErrorPageParams } from "./error.js";
export { renderErrorPage } from "./error.js";
export type { SignInPageParams } from "./signin.js";
export { renderSignInPage } from "./signin.js";
export type { SignOutPageParams } from "./signout.js";
export { renderSignOutPage } from "./signout.js";
export type { VerifyRequestCodeForm, VerifyRequestPageParams } from "./verify-request.js";
export { renderVerifyRequestPage } from "./verify-request.js";

/**
 * Every route of the handler, in one list. A new route is one file in this folder and one entry
 * here; the request parser, the handler and the `AuthAction` type follow from the list.
 */
import backchannelLogout from "./backchannel-logout.js";
import callback from "./callback.js";
import csrf from "./csrf.js";
import type { RouteDeclaration } from "./define.js";
import error from "./error.js";
import providers from "./providers.js";
import session from "./session.js";
import sessions from "./sessions.js";
import sessionsRevoke from "./sessions-revoke.js";
import signin from "./signin.js";
import signout from "./signout.js";
import verifyRequest from "./verify-request.js";
import webauthnOptions from "./webauthn-options.js";

export const routes = [
  providers,
  session,
  csrf,
  signin,
  signout,
  callback,
  verifyRequest,
  error,
  webauthnOptions,
  sessions,
  sessionsRevoke,
  backchannelLogout,
] as const;

/** Every action of the HTTP protocol. */
export type AuthAction = (typeof routes)[number]["name"];

/** The routes by name. */
export const routeByName = new Map<string, RouteDeclaration<AuthAction>>(
  routes.map((route) => [route.name, route]),
);

/** Whether a string names an action of the protocol. */
export function isAuthAction(action: string): action is AuthAction {
  return routeByName.has(action);
}

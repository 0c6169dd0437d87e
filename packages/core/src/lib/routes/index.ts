/**
 * The kernel's routes, in one list. A new route is one file in this folder and one entry here (a
 * feature's routes are in its folder and its `routes`); the request parser, the handler and the
 * `AuthAction` type follow from the lists.
 */

import { featureRoutes } from "../feature.js";
import callback from "./callback.js";
import csrf from "./csrf.js";
import type { RouteDeclaration } from "./define.js";
import error from "./error.js";
import providers from "./providers.js";
import session from "./session.js";
import signin from "./signin.js";
import signout from "./signout.js";

export const routes = [providers, session, csrf, signin, signout, callback, error] as const;

/** The kernel's actions (the features add theirs: `AuthAction` in ../../builtins.ts). */
export type KernelAction = (typeof routes)[number]["name"];

const kernelRoutes = new Map<string, RouteDeclaration>(routes.map((route) => [route.name, route]));

/** The route named `name`: the kernel's, or an installed feature's. */
export function routeNamed(name: string): RouteDeclaration | undefined {
  return kernelRoutes.get(name) ?? featureRoutes().get(name);
}

/** Whether a string names an action of the protocol (the kernel's or an installed feature's). */
export function isAuthAction(action: string): boolean {
  return routeNamed(action) !== undefined;
}

/**
 * The SolidStart request being served, if any, read structurally so SolidStart 1.x (vinxi) and
 * 2.x events both fit.
 */
import type { ResponseHeadersHolder } from "@gatehousejs/core/integration";

/** A SolidStart event as read here. */
export type CurrentEvent = { request: Request } & ResponseHeadersHolder;

type SolidWeb = typeof import("solid-js/web");
let solidWeb: SolidWeb | undefined;

/**
 * The event of the request being served, or `undefined` outside a SolidStart request.
 * `solid-js/web` is loaded on first use: the auth route and the middleware never need it, so a
 * cold start that only answers them does not pay for it. Once loaded, the event is read before
 * any await, as solid-js asks.
 */
export async function currentEvent(): Promise<CurrentEvent | undefined> {
  solidWeb ??= await import("solid-js/web");
  return solidWeb.getRequestEvent() as CurrentEvent | undefined;
}

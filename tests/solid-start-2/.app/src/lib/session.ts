/** Server data of the pages: each query runs on the server ("use server"). */
import { getSession, requireSession } from "@gatehousejs/solid-start";
import { query } from "@solidjs/router";
import { getRequestEvent } from "solid-js/web";
import { authConfig } from "./auth";

/** The session of the current request, or `null`. */
export const sessionQuery = query(async () => {
  "use server";
  const event = getRequestEvent();
  return event ? getSession(event.request, authConfig) : null;
}, "session");

/** The SSR-protected page's data: a redirect to `/` without a session. */
export const protectedQuery = query(async () => {
  "use server";
  const session = await requireSession(authConfig);
  return { name: session.user.name ?? null, email: session.user.email ?? null };
}, "protected");

/**
 * Server data for the pages, as `query` functions: each runs on the server (`"use server"`)
 * during server rendering and behind a fetch on client navigation.
 */
import { getSession, requireSession } from "@gatehouse/solid-start";
import { query } from "@solidjs/router";
import { getRequestEvent } from "solid-js/web";
import { authConfig } from "./auth";
import { DEMO_USER } from "./db";
import { isDemo } from "./env";

/** The session of the current request, or `null`. */
export const sessionQuery = query(async () => {
  "use server";
  const event = getRequestEvent();
  return event ? getSession(event.request, authConfig) : null;
}, "session");

/** The SSR-protected page's data: redirects to `/` without a session. */
export const protectedQuery = query(async () => {
  "use server";
  const session = await requireSession(authConfig);
  return {
    name: session.user.name ?? null,
    email: session.user.email ?? null,
    expires: session.expires,
    renderedAt: new Date().toISOString(),
  };
}, "protected");

/** What the demo shows newcomers (the demo account), or `null` outside demo mode. */
export const demoQuery = query(async () => {
  "use server";
  return isDemo() ? { email: DEMO_USER.email, password: DEMO_USER.password } : null;
}, "demo");

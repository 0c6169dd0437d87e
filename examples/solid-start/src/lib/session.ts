/**
 * Server data for the pages, as `query` functions: each runs on the server (`"use server"`)
 * during server rendering and behind a fetch on client navigation.
 */
import { getSession, listSecurityEvents, requireSession } from "@gatehouse/solid-start";
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

/**
 * The signed-in user's recent security activity, newest first (redirects to `/` without a
 * session). The `session` callback in ./auth.ts puts the user's id in the session.
 */
export const securityEventsQuery = query(async () => {
  "use server";
  const session = await requireSession(authConfig);
  const userId = session.user.id;
  if (!userId) return [];
  const events = await listSecurityEvents(authConfig, userId, { limit: 20 });
  return events.map((event) => ({
    id: event.id,
    type: event.type,
    at: event.at.toISOString(),
    provider: event.provider ?? null,
    newClient: event.newClient ?? null,
    client: event.client ?? null,
    ip: event.ip ?? null,
    reason: event.reason ?? null,
  }));
}, "security-events");

import type { ResolvedConfig } from "./config.js";
import { EventError } from "./errors.js";
import type { EventCallbacks } from "./types/config.js";

/** Runs an event handler, if configured. A handler that throws is logged, never fatal. */
export async function emit<K extends keyof EventCallbacks>(
  config: ResolvedConfig,
  event: K,
  message: Parameters<NonNullable<EventCallbacks[K]>>[0],
): Promise<void> {
  const handler = config.events[event] as ((m: typeof message) => unknown) | undefined;
  if (!handler) return;
  try {
    await handler(message);
  } catch (cause) {
    config.logger.error(new EventError(`The ${event} event handler threw`, { cause }));
  }
}

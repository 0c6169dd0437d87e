/**
 * The memory store's side of a burst of credentials attempts: attempts whose `authorize` is still
 * running are counted in a small map beside the store, and only a failure writes to the store.
 */
import type { Context } from "../../context.js";
import { backoffSeconds, type Counter, refuse } from "./common.js";
import type { SyncRateLimitStore } from "./memory.js";
import type { BackoffRule } from "./options.js";

/** What an attempt reports once `authorize` has answered (exactly one of the two). */
export interface Outcome {
  /** `authorize` refused or threw: one more failure on the streak. */
  failed(): Promise<void>;
  /** `authorize` accepted. */
  succeeded(): Promise<void>;
}

export const done = Promise.resolve();

/** Attempts on one streak whose `authorize` is still running, in one process. */
interface Flight {
  /** How many. */
  count: number;
  /** Whether a failure landed while any of them was in flight. */
  failed: boolean;
  /** When the latest of them started, in milliseconds. */
  started: number;
}

/**
 * Attempts in flight longer than this are taken to be lost (an `authorize` that never settles),
 * so that one hung request cannot hold an account back from a client for the life of the process.
 */
const FLIGHT_MS = 5 * 60 * 1000;

/** Per memory store: its attempts in flight (a small map: only attempts awaiting `authorize`). */
const flights = new WeakMap<SyncRateLimitStore, Map<string, Flight>>();

/** The streak an attempt is counted on, and how it is backed off. */
export interface Streak {
  counter: Counter;
  rule: BackoffRule;
  /** The refusal's message. */
  what: string;
  /** The streak's count when the attempt was checked. */
  count: number;
  /** How long the streak lasts after its last failure, in milliseconds. */
  memoryMs: number;
  /** Whether a success forgets the streak (not when it is shared with strangers). */
  forget: boolean;
}

/**
 * Counts the attempt in flight on its streak. An attempt that finds others in flight waits as if
 * they had all failed just now, as with a shared store; so a sign-in without failures reads the
 * store once (one `peek` that misses) instead of writing a counter and taking it back.
 */
export function inFlight(ctx: Context, sync: SyncRateLimitStore, streak: Streak): Outcome {
  let byKey = flights.get(sync);
  if (!byKey) {
    byKey = new Map();
    flights.set(sync, byKey);
  }
  const { counter, memoryMs } = streak;
  // The partition is part of the key: a device's streak and a client's never share a flight.
  const key = `${counter.limit}\u0000${counter.key}`;
  const now = Date.now();
  let flight = byKey.get(key);
  if (flight && now - flight.started > FLIGHT_MS) {
    byKey.delete(key);
    flight = undefined;
  }
  if (flight) {
    const wait = backoffSeconds(streak.count + flight.count, streak.rule);
    if (wait > 0) refuse(ctx, streak.what, counter.limit, counter.parts, wait);
    flight.count++;
    flight.started = now;
  } else {
    flight = { count: 1, failed: false, started: now };
    byKey.set(key, flight);
  }
  const mine = flight;
  let landed = false;
  /** Takes this attempt off its flight; false when it already was. */
  const land = (): boolean => {
    if (landed) return false;
    landed = true;
    // A flight dropped as lost, or replaced since, is not this attempt's to count down.
    if (byKey.get(key) === mine && --mine.count === 0) byKey.delete(key);
    return true;
  };
  return {
    failed: () => {
      if (!land()) return done;
      mine.failed = true;
      sync.hit(counter.limit, counter.key, memoryMs, { extend: true });
      return done;
    },
    succeeded: () => {
      // Forgets the streak: the one checked, or one a failure beside this attempt started.
      if (land() && streak.forget && (streak.count > 0 || mine.failed)) {
        sync.reset(counter.limit, counter.key);
      }
      return done;
    },
  };
}

/**
 * Ending a session while its store misbehaves: bounded retries under one deadline per request.
 *
 * A store can fail fast (a refused or reset connection), answer slowly, or never answer at all (a
 * half-open connection, where the driver waits forever). Ending a session must neither pretend it
 * worked nor hang the request, so each call runs under the request's {@link StoreDeadline}: a
 * failed attempt is retried after a short pause, an attempt that does not answer in time is left
 * behind (its late outcome is caught, never an unhandled rejection), and when the deadline passes
 * the caller gets a {@link SessionStoreUnavailable} to turn into an honest answer. Any attempt that
 * succeeds, even one left behind, counts: the operations retried here are idempotent (deleting a
 * row, writing a revocation).
 */
import { AdapterError, AuthError, SessionStoreUnavailable } from "../errors.js";

/** How long one request may spend ending or managing sessions, retries included. */
export const STORE_DEADLINE_MS = 3000;
/** How long one attempt may take before the next one starts (on a fresh connection, if any). */
const ATTEMPT_MS = 1000;
/** At most this many attempts per call. */
const MAX_ATTEMPTS = 4;
/** The pause after the first failed attempt; it doubles after each further one. */
const FIRST_PAUSE_MS = 100;
/** What `Retry-After` says: a little more than one deadline, so a retry finds the store back. */
export const STORE_RETRY_AFTER_SECONDS = 5;

const now = () => performance.now();

/** The time a request has left for its store calls. */
export class StoreDeadline {
  readonly #end: number;

  constructor(ms: number = STORE_DEADLINE_MS) {
    this.#end = now() + ms;
  }

  /** Milliseconds left; 0 once passed. */
  remaining(): number {
    return Math.max(0, this.#end - now());
  }

  /** Throws {@link SessionStoreUnavailable} when the deadline has passed. */
  check(what: string): void {
    if (this.remaining() <= 0) throw unavailable(`${what}: no time left`, undefined);
  }

  /**
   * `work`'s outcome, or a {@link SessionStoreUnavailable} when it has not settled by the
   * deadline. No retry: for work that is not safe to repeat. A late rejection is swallowed.
   */
  race<T>(what: string, work: Promise<T>): Promise<T> {
    work.catch(() => {}); // left behind on a timeout: must not become an unhandled rejection
    const left = this.remaining();
    if (left <= 0) return Promise.reject(unavailable(`${what}: no time left`, undefined));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(unavailable(`${what}: no answer in time`, undefined)), left);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }
}

function unavailable(message: string, cause: unknown): SessionStoreUnavailable {
  return new SessionStoreUnavailable(
    `The session store is unavailable (${message})`,
    STORE_RETRY_AFTER_SECONDS,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Errors worth another attempt: whatever the store or its driver threw. Gatehouse's own errors
 * (a missing adapter method, a missing revocation store) are configuration, and fail at once.
 */
function retriable(error: unknown): boolean {
  return !(error instanceof AuthError) || error instanceof AdapterError;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown } | { ok: false };

/**
 * Runs the idempotent store call `call` until one attempt succeeds, under `deadline`: at most
 * {@link MAX_ATTEMPTS} attempts, each given at most {@link ATTEMPT_MS}, with doubling pauses
 * between failures. Throws {@link SessionStoreUnavailable} (the last failure as its `cause`) when
 * no attempt succeeded in time; a configuration error is thrown as it is.
 */
export async function retryWithin<T>(
  deadline: StoreDeadline,
  what: string,
  call: () => Promise<T>,
): Promise<T> {
  let won: (outcome: Outcome<T>) => void = () => {};
  // Settles with the first success of any attempt, including one that is no longer awaited.
  const anySuccess = new Promise<Outcome<T>>((resolve) => {
    won = resolve;
  });
  const timers: ReturnType<typeof setTimeout>[] = [];
  const wait = (ms: number) =>
    new Promise<Outcome<T>>((resolve) => {
      timers.push(setTimeout(() => resolve({ ok: false }), ms));
    });
  let lastError: unknown;
  let pauseMs = FIRST_PAUSE_MS;
  try {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const left = deadline.remaining();
      if (left <= 0) break;
      let running: Promise<T>;
      try {
        running = Promise.resolve(call());
      } catch (error) {
        running = Promise.reject(error);
      }
      const settled = running.then(
        (value): Outcome<T> => {
          won({ ok: true, value });
          return { ok: true, value };
        },
        (error: unknown): Outcome<T> => ({ ok: false, error }),
      );
      const outcome = await Promise.race([settled, anySuccess, wait(Math.min(left, ATTEMPT_MS))]);
      if (outcome.ok) return outcome.value;
      if ("error" in outcome) {
        if (!retriable(outcome.error)) throw outcome.error;
        lastError = outcome.error;
      } else {
        lastError = new Error(`attempt ${attempt} had no answer in time`);
      }
      if (attempt === MAX_ATTEMPTS) break;
      // Pause before the next attempt, unless a straggler succeeds meanwhile.
      const paused = await Promise.race([
        anySuccess,
        wait(Math.min(pauseMs, deadline.remaining())),
      ]);
      if (paused.ok) return paused.value;
      pauseMs *= 2;
    }
  } finally {
    for (const timer of timers) clearTimeout(timer);
  }
  throw unavailable(`${what} did not succeed before the deadline`, lastError);
}

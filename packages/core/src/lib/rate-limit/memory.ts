/**
 * The per-process rate-limit store: a map of counters that forgets ended ones as it goes, bounded
 * in size so that a flood of distinct keys cannot grow it without end.
 */
import type { RateLimitCount, RateLimitStore } from "../types/abuse.js";

/** Options of {@link MemoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /** Counters kept at most; the least recently hit go first when it is full. Default 100,000. */
  maxEntries?: number;
  /** The clock, in milliseconds (tests). Default `Date.now`. */
  now?: () => number;
}

/** The memory store's counters without promises: the limiter's fast path (internal). */
export interface SyncRateLimitStore {
  hit(key: string, windowMs: number, options?: { extend?: boolean }): RateLimitCount;
  peek(key: string): RateLimitCount | null;
  reset(key: string): void;
}

const SYNC = Symbol("gatehouse.rate-limit.sync");

/** The synchronous face of a memory store; `undefined` for every other store. */
export function syncStore(store: RateLimitStore): SyncRateLimitStore | undefined {
  return (store as { [SYNC]?: SyncRateLimitStore })[SYNC];
}

/**
 * A {@link RateLimitStore} in this process's memory: the default. Each app instance counts on its
 * own; share a Redis or PostgreSQL store between instances to enforce one limit.
 */
export function MemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): RateLimitStore {
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  const counters = new Map<string, RateLimitCount>();

  const live = (key: string, at: number): RateLimitCount | undefined => {
    const counter = counters.get(key);
    if (counter && counter.resetAt <= at) {
      counters.delete(key);
      return undefined;
    }
    return counter;
  };

  /**
   * Before a new counter: every sixteenth time, drops ended counters from the front of the map
   * (the least recently hit: a hit moves its counter to the end), a few at a time; at the bound, a
   * sixteenth of the least recently hit at once. Never a walk or a sort of the whole map per hit.
   */
  let created = 0;
  const sweep = (at: number) => {
    if ((++created & 15) === 0) {
      let budget = 32;
      for (const [key, counter] of counters) {
        if (budget-- <= 0 || counter.resetAt > at) break;
        counters.delete(key);
      }
    }
    if (counters.size < maxEntries) return;
    let evict = counters.size - maxEntries + Math.max(1, maxEntries >> 4);
    for (const key of counters.keys()) {
      if (evict-- <= 0) break;
      counters.delete(key);
    }
  };

  const sync: SyncRateLimitStore = {
    hit(key, windowMs, hitOptions) {
      const at = now();
      const current = live(key, at);
      if (!current) sweep(at);
      const counter: RateLimitCount = current
        ? {
            count: current.count + 1,
            resetAt: hitOptions?.extend ? at + windowMs : current.resetAt,
          }
        : { count: 1, resetAt: at + windowMs };
      counters.delete(key);
      counters.set(key, counter);
      return { ...counter };
    },
    peek(key) {
      const counter = live(key, now());
      return counter ? { ...counter } : null;
    },
    reset(key) {
      counters.delete(key);
    },
  };
  const store: RateLimitStore = {
    async hit(key, windowMs, hitOptions) {
      return sync.hit(key, windowMs, hitOptions);
    },
    async peek(key) {
      return sync.peek(key);
    },
    async reset(key) {
      sync.reset(key);
    },
  };
  Object.defineProperty(store, SYNC, { value: sync });
  return store;
}

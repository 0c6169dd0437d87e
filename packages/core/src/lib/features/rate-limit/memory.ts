/**
 * The per-process rate-limit store: a map of counters that forgets ended ones as it goes, bounded
 * in size so that a flood of distinct keys cannot grow it without end. Failure streaks (counters
 * an `extend` hit created) live apart, under a bound of their own, and are never evicted.
 */
import type { ClientIp } from "../../types/client-address.js";
import { AddressTable } from "./address-table.js";
import type { RateLimitCount, RateLimitStore } from "./options.js";
import { type StreakBudget, StreakTable } from "./streaks.js";

/** Options of {@link MemoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /**
   * Fixed-window counters kept at most; when it is full, the ones not hit lately go first.
   * Default 100,000.
   */
  maxEntries?: number;
  /**
   * Failure streaks (counters hit with `extend`) kept at most. A running streak is never evicted:
   * when this many are running, a new one is counted on one of 1,024 shared spill counters
   * instead, so guessing stays backed off (docs/rate-limits.md). Default 100,000.
   */
  maxStreaks?: number;
  /** The clock, in milliseconds (tests). Default `Date.now`. */
  now?: () => number;
}

/**
 * The memory store's counters without promises: the limiter's fast path (internal). Counters are
 * kept per partition (the limiter's partition is the limit's name, its key what the limit counts),
 * so that a lookup in a small partition (failure streaks) never pays for a big one (one counter
 * per client address). The counters it answers with are the store's own, valid until the next
 * call: read them, never keep them.
 */
export interface SyncRateLimitStore {
  hit(
    partition: string,
    key: string,
    windowMs: number,
    options?: { extend?: boolean },
  ): Readonly<RateLimitCount>;
  peek(partition: string, key: string): Readonly<RateLimitCount> | null;
  reset(partition: string, key: string): void;
  /** `hit` for a per-client limit, keyed by the client's address itself (IPv6 by its /64). */
  hitAddress(partition: string, ip: ClientIp, windowMs: number): Readonly<RateLimitCount>;
  /** `peek` of a per-client limit's counter. */
  peekAddress(partition: string, ip: ClientIp): Readonly<RateLimitCount> | null;
}

const SYNC = Symbol("gatehouse.rate-limit.sync");

/** The synchronous face of a memory store; `undefined` for every other store. */
export function syncStore(store: RateLimitStore): SyncRateLimitStore | undefined {
  return (store as { [SYNC]?: SyncRateLimitStore })[SYNC];
}

/**
 * The partition of a key given through the promise face: what comes before its first `:` or NUL
 * (`backchannel-jti` of `backchannel-jti:…`), or `""`.
 */
function partitionOfKey(key: string): string {
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code === 58 || code === 0) return key.slice(0, i);
  }
  return "";
}

/** A counter, and whether it was hit since a sweep last passed it over. */
type Entry = RateLimitCount & { touched: boolean };

/**
 * A {@link RateLimitStore} in this process's memory: the default. Each app instance counts on its
 * own; share a Redis or PostgreSQL store between instances to enforce one limit.
 */
export function MemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): RateLimitStore {
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  const budget: StreakBudget = { held: 0, max: options.maxStreaks ?? 100_000 };
  /** Failure streaks per partition, outside the eviction of the counters below. */
  const streaks = new Map<string, StreakTable>();
  const streakTable = (name: string): StreakTable => {
    let table = streaks.get(name);
    if (!table) {
      table = new StreakTable(budget);
      streaks.set(name, table);
    }
    return table;
  };
  // Each partition in creation order: a hit changes its counter in place and marks it, never
  // moves it (moving an entry of a big map on every hit costs more than the rest of the hit).
  const partitions = new Map<string, Map<string, Entry>>();
  /** Counters in all partitions (the address tables count their own). */
  let size = 0;
  /** Per-client limits' counters, keyed by address. */
  const tables = new Map<string, AddressTable>();
  const total = () => {
    let n = size;
    for (const table of tables.values()) n += table.size;
    return n;
  };

  const partition = (name: string): Map<string, Entry> => {
    let counters = partitions.get(name);
    if (!counters) {
      counters = new Map();
      partitions.set(name, counters);
    }
    return counters;
  };

  const live = (counters: Map<string, Entry>, key: string, at: number): Entry | undefined => {
    const counter = counters.get(key);
    if (counter && counter.resetAt <= at) {
      counters.delete(key);
      size--;
      return undefined;
    }
    return counter;
  };

  /**
   * Makes room in the fullest partitions: from the front (the oldest), a counter hit since it was
   * last passed over gets a second chance (unmarked, moved to the back), an ended one or one
   * nobody hit goes. So busy counters stay and idle ones go first, and a flood of new keys in one
   * partition pushes out its own kind before anything else.
   */
  const evict = (at: number, count: number) => {
    let left = count;
    const fullest = [...partitions.values(), ...tables.values()].sort((a, b) => b.size - a.size);
    for (const counters of fullest) {
      if (counters instanceof AddressTable) {
        left -= counters.evict(left, at);
        if (left <= 0) return;
        continue;
      }
      // Every counter is passed at most twice: once to unmark it, once to drop it.
      let steps = counters.size * 2;
      for (const [key, counter] of counters) {
        if (left <= 0 || steps-- <= 0) break;
        counters.delete(key);
        if (counter.touched && counter.resetAt > at) {
          counter.touched = false;
          counters.set(key, counter);
        } else {
          size--;
          left--;
        }
      }
      if (left <= 0) return;
    }
  };

  /**
   * Before a new counter: every sixteenth time, drops ended counters from the front of its
   * partition, a few at a time; at the bound, evicts a sixteenth of it at once. Never a walk or a
   * sort of the whole store per hit.
   */
  let created = 0;
  const sweep = (counters: Map<string, Entry>, at: number) => {
    if ((++created & 15) === 0) {
      let budget = 32;
      for (const [key, counter] of counters) {
        if (budget-- <= 0 || counter.resetAt > at) break;
        counters.delete(key);
        size--;
      }
    }
    makeRoom(at);
  };
  const makeRoom = (at: number) => {
    const held = total();
    if (held >= maxEntries) evict(at, held - maxEntries + Math.max(1, maxEntries >> 4));
  };

  const sync: SyncRateLimitStore = {
    hit(name, key, windowMs, hitOptions) {
      const at = now();
      const extend = hitOptions?.extend === true;
      const table = streaks.get(name);
      const streak = table?.own(key, at);
      if (streak) return (table as StreakTable).count(key, streak, windowMs, at, extend);
      const counters = partition(name);
      const current = live(counters, key, at);
      // A new counter hit with extend is a failure streak: kept apart, never evicted.
      if (!current && extend) return streakTable(name).start(key, windowMs, at);
      if (!current) {
        sweep(counters, at);
        const counter: Entry = { count: 1, resetAt: at + windowMs, touched: false };
        counters.set(key, counter);
        size++;
        return counter;
      }
      current.count++;
      current.touched = true;
      if (hitOptions?.extend) current.resetAt = at + windowMs;
      return current;
    },
    peek(name, key) {
      const at = now();
      const streak = streaks.get(name)?.peek(key, at);
      if (streak) return streak;
      const counters = partitions.get(name);
      return (counters && live(counters, key, at)) || null;
    },
    reset(name, key) {
      streaks.get(name)?.delete(key);
      const counters = partitions.get(name);
      if (counters?.delete(key)) size--;
    },
    hitAddress(name, ip, windowMs) {
      let table = tables.get(name);
      if (!table) {
        table = new AddressTable();
        tables.set(name, table);
      }
      const at = now();
      return table.hit(ip, windowMs, at, () => makeRoom(at));
    },
    peekAddress(name, ip) {
      return tables.get(name)?.peek(ip, now()) ?? null;
    },
  };
  const copy = (counter: Readonly<RateLimitCount>): RateLimitCount => ({
    count: counter.count,
    resetAt: counter.resetAt,
  });
  const store: RateLimitStore = {
    async hit(key, windowMs, hitOptions) {
      return copy(sync.hit(partitionOfKey(key), key, windowMs, hitOptions));
    },
    async peek(key) {
      const counter = sync.peek(partitionOfKey(key), key);
      return counter ? copy(counter) : null;
    },
    async reset(key) {
      sync.reset(partitionOfKey(key), key);
    },
  };
  Object.defineProperty(store, SYNC, { value: sync });
  return store;
}

/**
 * The memory store's failure streaks: counters created by an `extend` hit, kept apart from the
 * fixed-window counters because they are the backoff itself. Evicting a running streak would hand
 * its client fresh free attempts, so a flood of distinct keys must never push one out. The streaks
 * of every partition share one bound; when it is reached, a new streak is not created: its
 * failure is counted on one of a few spill counters (chosen by a seeded hash of the key), which a
 * later check of that key reads too. Guessing on a key that got no streak of its own is therefore
 * still backed off, on a counter it shares with a slice of the other keys that found no room.
 */
import type { RateLimitCount } from "./options.js";

/** Spill counters per partition: memory stays bounded whatever the flood. */
export const SPILL_COUNTERS = 1024;

/** How many streaks the tables of one store hold together, and how many they may. */
export interface StreakBudget {
  held: number;
  readonly max: number;
}

function seed(): number {
  return globalThis.crypto.getRandomValues(new Uint32Array(1))[0] as number;
}

/** The streaks of one partition (see the module's comment). */
export class StreakTable {
  /** Own streaks, in the order of their last extending hit: ended ones gather at the front. */
  readonly #own = new Map<string, RateLimitCount>();
  /** Spill counters by slot, at most {@link SPILL_COUNTERS}. */
  readonly #spill = new Map<number, RateLimitCount>();
  readonly #seed = seed();

  constructor(readonly budget: StreakBudget) {}

  /** Own streaks held. */
  get size(): number {
    return this.#own.size;
  }

  /** Spill counters held (live or not yet dropped). */
  get spilled(): number {
    return this.#spill.size;
  }

  #slot(key: string): number {
    let h = this.#seed;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    h ^= h >>> 15;
    return Math.imul(h, 0x2c1b3c6d) >>> 22;
  }

  /** The key's own live streak; an ended one is dropped. */
  own(key: string, at: number): RateLimitCount | undefined {
    const streak = this.#own.get(key);
    if (streak && streak.resetAt <= at) {
      this.#own.delete(key);
      this.budget.held--;
      return undefined;
    }
    return streak;
  }

  #liveSpill(slot: number, at: number): RateLimitCount | undefined {
    const counter = this.#spill.get(slot);
    if (counter && counter.resetAt <= at) {
      this.#spill.delete(slot);
      return undefined;
    }
    return counter;
  }

  /**
   * What holds the key back: its own streak, or its spill counter when that one counts more (a
   * key that once found no room keeps the backoff of its spill counter until that one ends).
   */
  peek(key: string, at: number): RateLimitCount | undefined {
    const own = this.own(key, at);
    if (this.#spill.size === 0) return own;
    const spill = this.#liveSpill(this.#slot(key), at);
    if (!spill) return own;
    return own && own.count >= spill.count ? own : spill;
  }

  /** One more hit on the key's own live streak; its end moves when `extend` says so. */
  count(key: string, streak: RateLimitCount, windowMs: number, at: number, extend: boolean) {
    streak.count++;
    if (extend) {
      streak.resetAt = at + windowMs;
      // To the back: the front stays where the streaks that end first are.
      this.#own.delete(key);
      this.#own.set(key, streak);
    }
    return streak;
  }

  /**
   * The first hit of a key without a live streak: a new streak when the budget has room (after
   * dropping the ended ones at the front), else one more failure on the key's spill counter.
   */
  start(key: string, windowMs: number, at: number): RateLimitCount {
    for (const [front, streak] of this.#own) {
      if (streak.resetAt > at) break;
      this.#own.delete(front);
      this.budget.held--;
    }
    if (this.budget.held < this.budget.max) {
      const streak = { count: 1, resetAt: at + windowMs };
      this.#own.set(key, streak);
      this.budget.held++;
      return streak;
    }
    const slot = this.#slot(key);
    const spill = this.#liveSpill(slot, at);
    if (spill) {
      spill.count++;
      spill.resetAt = at + windowMs;
      return spill;
    }
    const fresh = { count: 1, resetAt: at + windowMs };
    this.#spill.set(slot, fresh);
    return fresh;
  }

  /** Forgets the key's own streak (a success); a spill counter is everyone's and stays. */
  delete(key: string): boolean {
    if (!this.#own.delete(key)) return false;
    this.budget.held--;
    return true;
  }
}

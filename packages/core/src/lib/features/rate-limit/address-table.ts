/**
 * Counters of one per-client limit in this process, keyed by the client's address as numbers: an
 * IPv4 address, or an IPv6 /64 as two 32-bit words. One slot of 32 bytes holds a counter whole
 * (key, count, marks, end), in one buffer with open addressing, so a lookup reads one cache line
 * and the garbage collector sees no object per counter: the memory store's per-client counters,
 * looked up on every sign-in attempt, cost what a map of tens of thousands of string keys would
 * not. Keys are exact (no hash stands for an address), so no two clients ever share a counter.
 */
import type { ClientIp } from "../../types/client-address.js";

/** Slot layout, in 32-bit words: key high, key low, count, marks; then the end as a float64. */
const STRIDE = 8;
const KEY_HI = 0;
const KEY_LO = 1;
const COUNT = 2;
const MARKS = 3;
/** Index of the end (milliseconds) in the float64 view: word 4 of the slot. */
const END = 2;

const USED = 1;
const TOUCHED = 2;
const GONE = 4;
const V6 = 8;

const MIN_CAPACITY = 64;

/** A counter as the limiter reads it: the table's own, valid until its next call. */
export interface AddressCount {
  count: number;
  resetAt: number;
}

/** A random 32-bit seed: where an address lands in the table cannot be foreseen from outside. */
function seed(): number {
  return globalThis.crypto.getRandomValues(new Uint32Array(1))[0] as number;
}

/** The key words of an address's bucket: IPv4 whole, IPv6 its /64. */
export function addressWords(ip: ClientIp): [hi: number, lo: number, v6: boolean] {
  const p = ip.parts as number[];
  if (ip.version === 4) {
    return [
      0,
      (((p[0] ?? 0) << 24) | ((p[1] ?? 0) << 16) | ((p[2] ?? 0) << 8) | (p[3] ?? 0)) >>> 0,
      false,
    ];
  }
  return [
    (((p[0] ?? 0) << 16) | (p[1] ?? 0)) >>> 0,
    (((p[2] ?? 0) << 16) | (p[3] ?? 0)) >>> 0,
    true,
  ];
}

/** The counters of one per-client limit (see the module's comment). */
export class AddressTable {
  #words: Uint32Array;
  #ends: Float64Array;
  #mask: number;
  /** Slots holding a counter. */
  #used = 0;
  /** Slots once used, now free but still on probe paths. */
  #gone = 0;
  /** Where the next sweep or eviction looks. */
  #hand = 0;
  readonly #seedA = seed();
  readonly #seedB = seed();
  readonly #scratch: AddressCount = { count: 0, resetAt: 0 };

  constructor(capacity = MIN_CAPACITY) {
    const size = Math.max(MIN_CAPACITY, 2 ** Math.ceil(Math.log2(capacity)));
    const buffer = new ArrayBuffer(size * STRIDE * 4);
    this.#words = new Uint32Array(buffer);
    this.#ends = new Float64Array(buffer);
    this.#mask = size - 1;
  }

  /** Counters held. */
  get size(): number {
    return this.#used;
  }

  #slotOf(hi: number, lo: number): number {
    let h = Math.imul(hi ^ this.#seedA, 0x85ebca6b) ^ Math.imul(lo ^ this.#seedB, 0xc2b2ae35);
    h ^= h >>> 15;
    h = Math.imul(h, 0x27d4eb2f);
    h ^= h >>> 13;
    return h & this.#mask;
  }

  /** Where `#find` last saw that a missing key would go. */
  #insertAt = -1;

  /** The slot holding this key, or -1 after setting `#insertAt` to where it would go. */
  #find(hi: number, lo: number, v6: number): number {
    const words = this.#words;
    let slot = this.#slotOf(hi, lo);
    let free = -1;
    for (;;) {
      const base = slot * STRIDE;
      const marks = words[base + MARKS] as number;
      if (marks === 0) {
        this.#insertAt = free >= 0 ? free : slot;
        return -1;
      }
      if (marks & GONE) {
        if (free < 0) free = slot;
      } else if (
        words[base + KEY_LO] === lo &&
        words[base + KEY_HI] === hi &&
        (marks & V6) === v6
      ) {
        return slot;
      }
      slot = (slot + 1) & this.#mask;
    }
  }

  /**
   * Counts one hit for an address in a fixed window of `windowMs` from its first hit; an ended
   * counter starts again at 1. `room()` is asked before a new counter is added (the store's bound).
   */
  hit(ip: ClientIp, windowMs: number, at: number, room: () => void): Readonly<AddressCount> {
    const [hi, lo, isV6] = addressWords(ip);
    const v6 = isV6 ? V6 : 0;
    const words = this.#words;
    let slot = this.#find(hi, lo, v6);
    const out = this.#scratch;
    if (slot >= 0) {
      const base = slot * STRIDE;
      if ((this.#ends[base / 2 + END] as number) > at) {
        words[base + COUNT] = (words[base + COUNT] as number) + 1;
        words[base + MARKS] = (words[base + MARKS] as number) | TOUCHED;
        out.count = words[base + COUNT] as number;
        out.resetAt = this.#ends[base / 2 + END] as number;
        return out;
      }
      // Ended: the same slot starts a new window.
      words[base + COUNT] = 1;
      words[base + MARKS] = USED | v6;
      this.#ends[base / 2 + END] = at + windowMs;
      out.count = 1;
      out.resetAt = at + windowMs;
      return out;
    }
    room();
    this.#sweep(at);
    if ((this.#used + this.#gone + 1) * 2 > this.#mask + 1) this.#rebuild();
    this.#find(hi, lo, v6);
    slot = this.#insertAt;
    const base = slot * STRIDE;
    const target = this.#words;
    if ((target[base + MARKS] as number) & GONE) this.#gone--;
    target[base + KEY_HI] = hi;
    target[base + KEY_LO] = lo;
    target[base + COUNT] = 1;
    target[base + MARKS] = USED | v6;
    this.#ends[base / 2 + END] = at + windowMs;
    this.#used++;
    out.count = 1;
    out.resetAt = at + windowMs;
    return out;
  }

  /** The live counter of an address, without counting a hit; `null` when it has none. */
  peek(ip: ClientIp, at: number): Readonly<AddressCount> | null {
    const [hi, lo, isV6] = addressWords(ip);
    const slot = this.#find(hi, lo, isV6 ? V6 : 0);
    if (slot < 0) return null;
    const base = slot * STRIDE;
    const resetAt = this.#ends[base / 2 + END] as number;
    if (resetAt <= at) return null;
    this.#scratch.count = this.#words[base + COUNT] as number;
    this.#scratch.resetAt = resetAt;
    return this.#scratch;
  }

  #free(slot: number): void {
    this.#words[slot * STRIDE + MARKS] = GONE;
    this.#used--;
    this.#gone++;
  }

  /** Frees ended counters among the next few slots: the table never fills with dead ones. */
  #sweep(at: number): void {
    const words = this.#words;
    for (let i = 0; i < 4; i++) {
      const slot = this.#hand;
      this.#hand = (slot + 1) & this.#mask;
      const marks = words[slot * STRIDE + MARKS] as number;
      if (marks & USED && (this.#ends[(slot * STRIDE) / 2 + END] as number) <= at) this.#free(slot);
    }
  }

  /**
   * Frees `count` counters, as the store's bound asks: going round the slots, an ended counter or
   * one not hit since the hand last passed goes; a hit one is unmarked and kept (a second
   * chance). Returns how many went.
   */
  evict(count: number, at: number): number {
    const words = this.#words;
    let freed = 0;
    // Twice round at most: once to unmark, once to free.
    for (let steps = 2 * (this.#mask + 1); steps > 0 && freed < count && this.#used > 0; steps--) {
      const slot = this.#hand;
      this.#hand = (slot + 1) & this.#mask;
      const base = slot * STRIDE;
      const marks = words[base + MARKS] as number;
      if (!(marks & USED)) continue;
      if (marks & TOUCHED && (this.#ends[base / 2 + END] as number) > at) {
        words[base + MARKS] = marks & ~TOUCHED;
      } else {
        this.#free(slot);
        freed++;
      }
    }
    return freed;
  }

  /** Into a buffer twice as large when the live counters fill half of it, else the same size. */
  #rebuild(): void {
    const oldWords = this.#words;
    const oldEnds = this.#ends;
    const slots = this.#mask + 1;
    const size = (this.#used + 1) * 4 > slots ? slots * 2 : slots;
    const buffer = new ArrayBuffer(size * STRIDE * 4);
    this.#words = new Uint32Array(buffer);
    this.#ends = new Float64Array(buffer);
    this.#mask = size - 1;
    this.#gone = 0;
    // The hand keeps its place: a counter it just unmarked gets a whole turn to be hit again.
    this.#hand &= this.#mask;
    for (let slot = 0; slot < slots; slot++) {
      const base = slot * STRIDE;
      const marks = oldWords[base + MARKS] as number;
      if (!(marks & USED)) continue;
      const hi = oldWords[base + KEY_HI] as number;
      const lo = oldWords[base + KEY_LO] as number;
      this.#find(hi, lo, marks & V6);
      const to = this.#insertAt * STRIDE;
      this.#words.set(oldWords.subarray(base, base + 4), to);
      this.#ends[to / 2 + END] = oldEnds[base / 2 + END] as number;
    }
  }
}

/**
 * The one thing the adapter needs from a Redis client: send a command, get the reply. ioredis
 * and node-redis both offer it under different names; everything else (Lua scripts, atomicity)
 * is built on top, so both clients behave the same.
 */
import { createHash } from "node:crypto";

/** The part of an ioredis client (`Redis` or `Cluster`, v5 or later) that the adapter uses. */
export interface IORedisClientLike {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** The part of a node-redis client (`createClient()`, v4 or later) that the adapter uses. */
export interface NodeRedisClientLike {
  sendCommand(args: string[]): Promise<unknown>;
}

/** A connected ioredis or node-redis client. */
export type RedisClientLike = IORedisClientLike | NodeRedisClientLike;

/** A Lua script and its SHA-1, for `EVALSHA`. */
export interface Script {
  readonly source: string;
  readonly sha: string;
}

export function script(source: string): Script {
  return { source, sha: createHash("sha1").update(source).digest("hex") };
}

/** Commands and scripts over either client. */
export interface Commands {
  send(args: readonly (string | number)[]): Promise<unknown>;
  /** Runs a script with `EVALSHA`, loading it with `EVAL` the first time a server lacks it. */
  run(
    script: Script,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown>;
}

export function commandsOf(client: RedisClientLike): Commands {
  let send: Commands["send"];
  // ioredis also has a `sendCommand` (taking its own Command objects), so `call` is checked first.
  if (typeof (client as Partial<IORedisClientLike>).call === "function") {
    const io = client as IORedisClientLike;
    send = ([name, ...args]) => io.call(String(name), ...args);
  } else if (typeof (client as Partial<NodeRedisClientLike>).sendCommand === "function") {
    const node = client as NodeRedisClientLike;
    send = (args) => node.sendCommand(args.map(String));
  } else {
    throw new TypeError(
      "RedisAdapter: the client must be an ioredis client (with `call`) or a node-redis client (with `sendCommand`)",
    );
  }
  return {
    send,
    async run(s, keys, args) {
      try {
        return await send(["EVALSHA", s.sha, keys.length, ...keys, ...args]);
      } catch (error) {
        if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
        return send(["EVAL", s.source, keys.length, ...keys, ...args]);
      }
    },
  };
}

/**
 * A bulk-string reply as a string, or `null` for a nil reply. Over RESP3 a script's Lua `false`
 * arrives as a boolean, so `false` also means nil.
 */
export function text(reply: unknown): string | null {
  if (reply === null || reply === undefined || reply === false) return null;
  if (typeof reply === "string") return reply;
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString("utf8");
  throw new Error(`RedisAdapter: expected a string reply from Redis, got ${typeof reply}`);
}

function fail(message: string): never {
  throw new Error(`RedisAdapter: ${message}`);
}

/** An array reply of bulk strings. */
export function texts(reply: unknown): string[] {
  if (!Array.isArray(reply)) {
    throw new Error(`RedisAdapter: expected an array reply from Redis, got ${typeof reply}`);
  }
  return reply.map((item) => text(item) ?? fail("expected no nil inside an array reply"));
}

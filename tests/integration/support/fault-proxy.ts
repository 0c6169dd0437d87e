/**
 * A TCP proxy that injects faults between a client (a `pg` Pool, an ioredis client) and its real
 * server, to see what the application does while the store misbehaves.
 *
 * Modes, switched at any time with {@link FaultProxy.set}:
 * - `pass`: bytes flow both ways.
 * - `cut`: every open connection is destroyed, and new ones are destroyed as soon as they are
 *   accepted (the server has gone, or a firewall resets everything).
 * - `slow`: every chunk, both ways, is held `delayMs` before it is forwarded (in order).
 * - `half-open`: connections stay open but nothing is forwarded either way, new ones included
 *   (a peer that vanished without a reset; drivers wait forever). Leaving this mode destroys the
 *   connections it froze, as a keepalive timeout would at last.
 *
 * {@link FaultProxy.dropOnNextWrite} destroys the connection that next carries bytes to the
 * server, before they reach it: a connection lost in the middle of one request.
 */
import { createServer, type Server, Socket } from "node:net";

export type FaultMode = "pass" | "cut" | "slow" | "half-open";

interface Link {
  client: Socket;
  upstream: Socket | undefined;
  /** Frozen by `half-open`: nothing is forwarded any more. */
  frozen: boolean;
  /** Per direction: the chain that keeps delayed chunks in order. */
  toServer: Promise<void>;
  toClient: Promise<void>;
}

export interface FaultProxy {
  /** The port the proxy listens on (127.0.0.1). */
  readonly port: number;
  readonly mode: FaultMode;
  /** How many connections the proxy has accepted so far. */
  readonly accepted: number;
  /** Switches the mode; `delayMs` is the hold of `slow` (default 100). */
  set(mode: FaultMode, options?: { delayMs?: number }): void;
  /** Destroys the connection that next sends bytes towards the server, before they arrive. */
  dropOnNextWrite(): void;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts a proxy on a free port of 127.0.0.1 in front of `target`. */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const links = new Set<Link>();
  let mode: FaultMode = "pass";
  let delayMs = 100;
  let dropArmed = false;
  let accepted = 0;

  const destroy = (link: Link) => {
    links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  };

  /** Forwards one chunk from one side to the other, as the mode says. */
  const forward = (link: Link, towards: "server" | "client", chunk: Buffer) => {
    if (link.frozen) return;
    const to = towards === "server" ? link.upstream : link.client;
    if (!to) return;
    if (towards === "server" && dropArmed) {
      dropArmed = false;
      destroy(link);
      return;
    }
    const hold = mode === "slow" ? delayMs : 0;
    const key = towards === "server" ? "toServer" : "toClient";
    // Chained even without a delay, so a chunk never overtakes one still held.
    link[key] = link[key].then(async () => {
      if (hold > 0) await pause(hold);
      if (!link.frozen && !to.destroyed) to.write(chunk);
    });
  };

  const server: Server = createServer((client) => {
    accepted++;
    client.on("error", () => {});
    if (mode === "cut") {
      client.destroy();
      return;
    }
    const link: Link = {
      client,
      upstream: undefined,
      frozen: mode === "half-open",
      toServer: Promise.resolve(),
      toClient: Promise.resolve(),
    };
    links.add(link);
    client.on("data", (chunk: Buffer) => forward(link, "server", chunk));
    client.on("close", () => {
      links.delete(link);
      link.upstream?.destroy();
    });
    // A half-open peer never reaches the server at all.
    if (link.frozen) return;
    const upstream = new Socket();
    link.upstream = upstream;
    upstream.on("error", () => {});
    upstream.on("data", (chunk: Buffer) => forward(link, "client", chunk));
    upstream.on("close", () => {
      // The client of a frozen link must not learn anything, the close included.
      if (!link.frozen) destroy(link);
    });
    upstream.connect(target.port, target.host);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the proxy has no port");

  return {
    port: address.port,
    get mode() {
      return mode;
    },
    get accepted() {
      return accepted;
    },
    set(next, options = {}) {
      delayMs = options.delayMs ?? 100;
      if (mode === "half-open" && next !== "half-open") {
        for (const link of [...links]) if (link.frozen) destroy(link);
      }
      mode = next;
      if (next === "cut") for (const link of [...links]) destroy(link);
      if (next === "half-open") for (const link of links) link.frozen = true;
    },
    dropOnNextWrite() {
      dropArmed = true;
    },
    async close() {
      for (const link of [...links]) destroy(link);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A port for a child process to listen on. Asking the kernel for port 0 and closing it is racy:
 * the kernel hands the same ephemeral port to the next outgoing connection (Postgres, Redis,
 * fetch) or port-0 listener of any test worker, and the child then dies with EADDRINUSE. So the
 * port is drawn at random from below the ephemeral range (Linux: 32768 and up), where the
 * kernel never assigns ports by itself, and is checked by binding it once.
 */
import { createServer } from "node:net";

const LOW = 20_000;
const HIGH = 32_000;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A port nobody listens on right now, outside the range the kernel assigns by itself. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port found between ${LOW} and ${HIGH} after 50 tries`);
}

/**
 * The fault-injecting proxy of support/fault-proxy.ts against a local echo server: each mode does
 * what the sign-out outage tests rely on.
 */
import { createServer, type Server, Socket } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type FaultProxy, startFaultProxy } from "./support/fault-proxy.js";

let echo: Server;
let proxy: FaultProxy;

beforeAll(async () => {
  echo = createServer((socket) => {
    socket.on("error", () => {});
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", () => resolve()));
  const address = echo.address();
  if (!address || typeof address === "string") throw new Error("no port");
  proxy = await startFaultProxy({ host: "127.0.0.1", port: address.port });
});

afterAll(async () => {
  await proxy.close();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

/** A connection through the proxy that collects what comes back and how it ended. */
async function connect() {
  const socket = new Socket();
  const state = { received: "", closed: false };
  socket.on("data", (chunk: Buffer) => {
    state.received += chunk.toString();
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    state.closed = true;
  });
  await new Promise<void>((resolve) => socket.connect(proxy.port, "127.0.0.1", resolve));
  return { socket, state };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

const settle = () => new Promise((r) => setTimeout(r, 200));

test("pass forwards both ways", async () => {
  proxy.set("pass");
  const { socket, state } = await connect();
  socket.write("hello");
  await until(() => state.received === "hello");
  socket.destroy();
});

test("slow forwards everything, in order", async () => {
  proxy.set("slow", { delayMs: 20 });
  const { socket, state } = await connect();
  for (const part of ["a", "b", "c"]) socket.write(part);
  await until(() => state.received === "abc");
  proxy.set("pass");
  socket.destroy();
});

test("cut closes open connections and every new one", async () => {
  proxy.set("pass");
  const open = await connect();
  proxy.set("cut");
  await until(() => open.state.closed);
  const next = await connect();
  await until(() => next.state.closed);
  proxy.set("pass");
});

test("half-open keeps connections open but forwards nothing; leaving it closes them", async () => {
  proxy.set("pass");
  const before = await connect();
  proxy.set("half-open");
  const during = await connect();
  before.socket.write("lost");
  during.socket.write("lost too");
  await settle();
  expect(before.state).toEqual({ received: "", closed: false });
  expect(during.state).toEqual({ received: "", closed: false });
  proxy.set("pass");
  await until(() => before.state.closed && during.state.closed);
});

test("dropOnNextWrite destroys the next connection that writes, before its bytes arrive", async () => {
  proxy.set("pass");
  const { socket, state } = await connect();
  proxy.dropOnNextWrite();
  socket.write("never echoed");
  await until(() => state.closed);
  expect(state.received).toBe("");
  const after = await connect();
  after.socket.write("ok");
  await until(() => after.state.received === "ok");
  after.socket.destroy();
});

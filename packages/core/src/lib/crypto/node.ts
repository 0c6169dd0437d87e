/**
 * Access to `node:crypto` without a static import, so the package still loads on runtimes that
 * lack it (they take the WebCrypto path through `jose`).
 */
type NodeCrypto = typeof import("node:crypto");

interface ProcessWithBuiltins {
  getBuiltinModule?: (id: string) => unknown;
}

function load(): NodeCrypto | undefined {
  const proc = (globalThis as { process?: ProcessWithBuiltins }).process;
  try {
    return proc?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined;
  } catch {
    // A runtime that refuses to load it has none to offer.
  }
  return undefined;
}

/** `node:crypto`, or `undefined` where the runtime has none. */
export const nodeCrypto: NodeCrypto | undefined = load();

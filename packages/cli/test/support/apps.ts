/**
 * Configuration files of test apps, written as apps write them: TypeScript, importing
 * Gatehouse's providers, exporting the configuration as default or by name.
 */

/** Database sessions, GitHub and email links, every adapter method (the memory adapter). */
export const DATABASE_APP = `import type { AuthConfig } from "@gatehousejs/core";
import MemoryAdapter from "./memory.js";
import GitHub from "@gatehousejs/core/providers/github";
import Nodemailer from "@gatehousejs/core/providers/nodemailer";

const config: AuthConfig = {
  adapter: MemoryAdapter(),
  session: { strategy: "database" },
  providers: [GitHub, Nodemailer({ server: "smtp://localhost:2525", from: "a@example.com" })],
};
export default config;
`;

/** Re-exports the memory adapter under a default name (an app's own module, in JavaScript). */
export const MEMORY_MODULE = `export { MemoryAdapter as default } from "@gatehousejs/core/adapters/memory";
`;

/** JWT sessions with passkeys and passwords, a revocation store and a rate-limit store. */
export const JWT_APP = `import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { MemoryRateLimitStore } from "@gatehousejs/core";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import Passkey from "@gatehousejs/core/providers/passkey";
import Password from "@gatehousejs/core/providers/password";

interface Branding { name: string }
const brand: Branding = { name: "Test" };

export const authConfig = {
  adapter: MemoryAdapter(),
  session: { strategy: "jwt" as const, revocation: { store: MemoryRevocationStore() } },
  rateLimit: { store: MemoryRateLimitStore() },
  experimental: { enableWebAuthn: true },
  providers: [Passkey(), Password({ name: brand.name })],
};
`;

/** No adapter and no store: nothing in a database. */
export const STATELESS_APP = `import GitHub from "@gatehousejs/core/providers/github";
export const config = { providers: [GitHub({ clientId: "id", clientSecret: "secret" })] };
`;

import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@gatehousejs/core/adapters";

type Awaitable<T> = T | PromiseLike<T>;

/** The name of a method of the adapter contract. */
export type AdapterMethod = keyof Adapter;

/**
 * Hooks into the database behind the adapter. Every member is optional. The readers look rows up
 * directly (not through the adapter), so that the suite can check what was really stored; each
 * returns the row, or `null`/`undefined` when there is none.
 */
export interface AdapterTestDb {
  /** Called once before the first test (in `beforeAll`). */
  connect?(): Awaitable<void>;
  /** Called once after the last test (in `afterAll`). */
  disconnect?(): Awaitable<void>;
  user?(id: string): Awaitable<AdapterUser | null | undefined>;
  account?(
    key: Pick<AdapterAccount, "provider" | "providerAccountId">,
  ): Awaitable<AdapterAccount | null | undefined>;
  session?(sessionToken: string): Awaitable<AdapterSession | null | undefined>;
  verificationToken?(
    key: Pick<VerificationToken, "identifier" | "token">,
  ): Awaitable<VerificationToken | null | undefined>;
  authenticator?(credentialID: string): Awaitable<AdapterAuthenticator | null | undefined>;
}

/** Options of {@link runAdapterTests}. */
export interface AdapterTestOptions {
  /** The adapter under test. */
  adapter: Adapter;
  /** Connection hooks and direct readers of the underlying storage. */
  db?: AdapterTestDb;
  /**
   * Tests to leave out: a test's name, or the name of an adapter method (which leaves out every
   * test that calls it). Each skipped test is logged with the reason. An entry that matches no
   * test and no method throws, so that a typo cannot silently disable nothing.
   */
  skip?: readonly string[];
  /** Shown in the `describe` title; defaults to `"adapter"`. */
  name?: string;
  /**
   * Makes the ids of the users the suite creates, for databases that need a particular format
   * (for example a 24-character hex ObjectId). Defaults to `crypto.randomUUID()`.
   */
  id?: () => string;
}

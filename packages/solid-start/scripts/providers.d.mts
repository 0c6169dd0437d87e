/** The ids of core's providers: its `src/providers/<id>.ts` modules (not `_shared/`). */
export function coreProviderIds(): string[];
/** The source of `src/providers/<id>.ts`. */
export function providerModule(id: string): string;
/** What differs between src/providers/ and core's providers. */
export function providerDrift(): { missing: string[]; stale: string[]; extra: string[] };
/** Writes every provider module and removes the ones core no longer has. */
export function writeProviders(): void;

/** The example's folder. */
export const appDir: string;
/** The hash of every file the build is made of. */
export function sourceHash(): string;
/** Whether .next/ was built from the current inputs. */
export function isBuilt(hash?: string): boolean;
/** Builds the app unless .next/ is up to date; resolves to whether a build ran. */
export function ensureBuilt(options?: { log?: boolean }): Promise<boolean>;
/** What the last build printed (.next/build.log). */
export const buildLog: string;
/** The path of Next.js's command line. */
export const nextBin: string;
/** `process.env` with NEXT_TELEMETRY_DISABLED=1 and `extra` on top. */
export function nextEnv(extra?: Record<string, string>): Record<string, string | undefined>;

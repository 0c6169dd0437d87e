/** The example's folder. */
export const appDir: string;
/** The hash of every file the build is made of. */
export function sourceHash(): string;
/** Whether .output/ was built from the current inputs. */
export function isBuilt(hash?: string): boolean;
/** Builds the app unless .output/ is up to date; resolves to whether a build ran. */
export function ensureBuilt(options?: { log?: boolean }): Promise<boolean>;
/** What the last build printed (.output/build.log). */
export const buildLog: string;

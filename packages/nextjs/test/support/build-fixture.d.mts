/** A fixture app of the Next.js tests: `fixture` (proxy.ts on Node.js) or `fixture-edge`. */
export type FixtureName = "fixture" | "fixture-edge";
/** The folder of a fixture app. */
export function appDirOf(app: FixtureName): string;
/** The path of Next.js's command line. */
export const nextBin: string;
/** The hash of every input file's path and content. */
export function sourceHash(app: FixtureName): string;
/** Whether the app's .next/ was built from the current inputs. */
export function isBuilt(app: FixtureName, hash?: string): boolean;
/** The environment of `next build` and `next start`: offline, no telemetry. */
export function nextEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
/** Builds a fixture app unless its .next/ is up to date; resolves to whether a build ran. */
export function ensureBuilt(app: FixtureName, options?: { log?: boolean }): Promise<boolean>;

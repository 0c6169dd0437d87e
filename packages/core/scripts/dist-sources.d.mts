/** The source modules of a file of a package's dist/, relative to the package (`src/lib/auth.ts`). */
export function sourcesOf(file: string): string[];

/** The files of `urls` that are in `pkgDir`'s dist/, each with its source modules. */
export function builtModules(urls: string[], pkgDir: string): { url: string; sources: string[] }[];

/** The published packages' folder names under packages/, core first. */
export declare const PACKAGES: readonly string[];
/** Packs every package into `out` (default packs/) and returns the tarballs' paths, core's first. */
export declare function packAll(options?: { out?: string; build?: boolean }): string[];

/** Normalises `basePath`: a leading slash, no trailing slash; `/` becomes the empty string. */
export function normalizeBasePath(basePath: string | undefined): string {
  const trimmed = (basePath ?? "/auth").replace(/\/+$/, "");
  if (trimmed === "") return "";
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

// Next.js has no `exports` map: under NodeNext its subpaths are found only with `.js`, but its
// bundler replaces `next/headers`, `next/navigation` and `next/server` (without `.js`) with the
// server builds of each layer, so the package imports them by those names, typed from the files.
declare module "next/headers" {
  export { cookies, headers } from "next/headers.js";
}
declare module "next/navigation" {
  export { redirect } from "next/navigation.js";
}
declare module "next/server" {
  export { NextRequest, NextResponse } from "next/server.js";
}

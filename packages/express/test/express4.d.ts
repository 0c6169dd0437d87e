/**
 * Express 4, installed as the devDependency alias `express4` for the tests. `@types/express` is
 * Express 5's; the tests use the parts both versions share, under Express 5's types.
 */
declare module "express4" {
  import type express from "express";

  const express4: typeof express;
  export default express4;
}

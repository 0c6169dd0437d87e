// The browser builds of solid-js that the client tests load in place of Node's server builds.
declare module "solid-js/dist/solid.js" {
  export * from "solid-js";
}
declare module "solid-js/web/dist/web.js" {
  export * from "solid-js/web";
}

/**
 * The configuration of the Gatehouse router, remembered for each request that passed through it,
 * so that `getSession(req)` and `requireAuth()` read sessions exactly as the mounted auth routes
 * do, without being handed the configuration again.
 */
import type { IntegrationConfig } from "@gatehousejs/core/integration";
import type { Request as ExpressRequest } from "express";

/**
 * The configuration of {@link gatehouse}: core's `AuthConfig` without `basePath` (it comes from
 * `prefix`) and without `raw`, plus `prefix`, the path the auth routes answer under (default
 * `/api/auth`).
 */
export type GatehouseConfig = IntegrationConfig;

const configs = new WeakMap<ExpressRequest, GatehouseConfig>();

/** Records the configuration of the router a request passes through. */
export function rememberConfig(req: ExpressRequest, config: GatehouseConfig): void {
  configs.set(req, config);
}

/**
 * The configuration of the Gatehouse router the request passed through. Throws an `Error` naming
 * `helper` when none did: the router must be mounted before the routes that read the session.
 */
export function configOf(req: ExpressRequest, helper: string): GatehouseConfig {
  const config = configs.get(req);
  if (!config) {
    throw new Error(
      `${helper}: this request did not pass through gatehouse(config); mount it with app.use(gatehouse(config)) before the routes that read the session`,
    );
  }
  return config;
}

export { createGatewayService, outcomeGroupOf } from './gateway-service';
export type { GatewayServiceOptions } from './gateway-service';
export { authConfig, gatewayConfigSchema, ingestConfig, loadGatewayConfig } from './config';
export { composeGateway, createGatewayApp } from './app';
export { builtConsole } from './console';
export type { ComposedGateway, GatewayPeers, GatewaySettings } from './app';
export { keptSigningKeyPath, readKeptSigningKey, resolveSecrets, secretsDirectory } from './auth/secrets';
export { STRATA_CAPABILITIES } from './http/config-routes';
export type { ServerCapabilities } from './http/config-routes';

export { createGatewayService, outcomeGroupOf } from './gateway-service';
export type { GatewayServiceOptions } from './gateway-service';
export { gatewayConfigSchema, ingestConfig } from './config';
export { composeGateway } from './app';
export type { GatewayPeers, GatewaySettings } from './app';
export { STRATA_CAPABILITIES } from './http/config-routes';
export type { ServerCapabilities } from './http/config-routes';

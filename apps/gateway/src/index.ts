export { createGatewayService, outcomeGroupOf } from './gateway-service';
export type { GatewayServiceOptions } from './gateway-service';
export { gatewayConfigSchema, ingestConfig } from './config';
export { composeGateway } from './app';
export type { GatewayPeers, GatewaySettings } from './app';

export { createGatewayService } from './gateway-service';
export type { GatewayService, GatewayServiceOptions } from './gateway-service';
export { gatewayConfigSchema, ingestConfig } from './config';
export { gatewayServiceFrom } from './app';
export type { GatewaySettings } from './app';

export { createGatewayService } from './gateway-service';
export type { GatewayService, GatewayServiceOptions } from './gateway-service';

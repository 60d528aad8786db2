import { runService } from '@strata/http';
import { createGatewayApp } from './app';
import { loadGatewayConfig } from './config';

runService('gateway', () => createGatewayApp(loadGatewayConfig(process.env)));

import { runService } from '@strata/http';
import { createOperationsApp } from './app';
import { loadOperationsConfig } from './config';

runService('operations', () => createOperationsApp(loadOperationsConfig(process.env)));

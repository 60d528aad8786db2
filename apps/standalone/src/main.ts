import { runService } from '@strata/http';
import { createStandaloneApp } from './app';
import { loadStandaloneConfig } from './config';

runService('Strata', () => createStandaloneApp(loadStandaloneConfig(process.env)));

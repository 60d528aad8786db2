import { runService } from '@strata/http';
import { createAuditApp } from './app';
import { loadAuditConfig } from './config';

runService('audit', () => createAuditApp(loadAuditConfig(process.env)));

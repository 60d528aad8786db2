export { AUDIT, createAuditService } from './audit-service';
export type { AuditServiceOptions } from './audit-service';
export { auditConfig, auditConfigSchema, loadAuditConfig } from './config';
export { composeAudit, createAuditApp } from './app';
export type { AuditSettings } from './app';

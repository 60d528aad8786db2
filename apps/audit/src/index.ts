export { AUDIT, createAuditService } from './audit-service';
export type { AuditServiceOptions } from './audit-service';
export { auditConfig, auditConfigSchema } from './config';
export { composeAudit } from './app';
export type { AuditSettings } from './app';

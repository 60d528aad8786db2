export { credentialsOf, type Credentials, type CredentialsProblem } from './credentials';
export { DEFAULT_POLICIES, ROOT_USER, type DefaultPolicy } from './default-policies';
export { hashPassword, verifyPassword, type PasswordCredentials } from './passwords';
export {
  decide,
  SYSTEM_ACTOR,
  type ActorIdentity,
  type Decision,
  type Policy,
  type PolicyCriterion,
  type PolicyInfo,
  type ResourceFacts,
} from './policy-engine';
export {
  apiPrivileges,
  operationOfChangeType,
  operationsPrivileges,
  PLATFORM_PRIVILEGES,
  PlatformPrivilege,
  ResourcePrivilege,
  type ApiGroup,
  type ApiOperation,
  type PrivilegeRequirement,
} from './privileges';
export {
  creationGuardOf,
  LISTED_SECURITY_ASPECTS,
  PRINCIPAL_READS,
  SECURITY_INPUTS,
  SecurityMark,
  securityInputOf,
  securityMarksOf,
  writeGuardOf,
  type SecurityEntity,
  type SecurityInput,
  type SecurityMarkName,
  type SecurityWrite,
} from './security-inputs';
export {
  ACCESS_TOKEN_DURATIONS,
  DEFAULT_TOKEN_ISSUER,
  MIN_SIGNING_KEY_BYTES,
  SESSION_TOKEN_DURATION_MS,
  TokenError,
  TokenService,
  type AccessTokenDuration,
  type TokenClaims,
  type TokenServiceOptions,
  type TokenType,
} from './tokens';

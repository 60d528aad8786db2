export { authorizationHeaders, REFUSED_CREDENTIALS } from './credentials';
export { CHROMIUM_FLAGS, chromiumPath } from './chromium';
export { eventually } from './eventually';
export { validateOpenApi } from './openapi-validator';
export { expositionLintProblems, expositionProblems } from './prometheus-exposition';
export { datasetUrn, entityTypeOf, ingestProposalBatchBody, ingestProposalBody, proposalOf } from './proposals';
export type { ProposalJson, ProposalOptions } from './proposals';
export { TestHttpClient } from './http-client';
export type { TestResponse } from './http-client';
export { repositoryRoot, startServiceProcess, startStandalone } from './standalone-process';
export type {
  ServiceProcess,
  ServiceProcessOptions,
  StandaloneProcess,
  StandaloneProcessOptions,
} from './standalone-process';
export { deploymentNames, freePorts, gatewaySecrets, kafkaEnvironment, startDeployment } from './strata-deployment';
export type { DeploymentName, DeploymentOptions, RunningDeployment } from './strata-deployment';
export { startKafkaTestBroker } from './kafka-test-broker';
export type { KafkaTestBroker, KafkaTestBrokerOptions } from './kafka-test-broker';
export { SHARED_CUSTOM_MODELS_DIR, sharedDeployment, startDeploymentPool } from './shared-deployments';
export type { DeploymentPool, SharedDeployment, SharedDeploymentName } from './shared-deployments';
export { scaled, testScale } from './test-scale';
export type { TestScale } from './test-scale';

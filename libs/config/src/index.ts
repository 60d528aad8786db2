export { ConfigError, describeConfig, env, loadConfig, renderConfigReference } from './load-config';
export { engineConfig, kafkaBrokers, kafkaSettings, limitsConfig, listenerConfig, topicConfig } from './shared-config';

export { ConfigError, describeConfig, env, loadConfig, renderConfigReference } from './load-config';
export {
  engineConfig,
  kafkaBrokers,
  kafkaSettings,
  limitsConfig,
  listenerConfig,
  modelConfig,
  systemClientConfig,
  topicConfig,
} from './shared-config';

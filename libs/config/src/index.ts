export { ConfigError, describeConfig, env, loadConfig, renderConfigReference } from './load-config';

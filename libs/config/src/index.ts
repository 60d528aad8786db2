export { ConfigError, describeConfig, env, loadConfig } from './load-config';

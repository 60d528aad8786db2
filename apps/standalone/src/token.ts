import { ConfigError } from '@strata/config';
import { runTokenCommand } from './token-command';

runTokenCommand(process.argv.slice(2), {
  environment: process.env,
  now: Date.now,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);

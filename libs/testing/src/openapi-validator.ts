import { spawnSync } from 'node:child_process';
import { repositoryRoot } from './standalone-process';

/**
 * Validates a document against the OpenAPI schema of its version with `@seriousme/openapi-schema-validator`, in a child
 * process: the validator is an ES module, which the test runner's CommonJS cannot load.
 */
export function validateOpenApi(document: unknown): { valid: boolean; errors?: unknown } {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator';
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    const result = await new Validator().validate(JSON.parse(Buffer.concat(chunks).toString()));
    console.log(JSON.stringify(result));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify(document),
    encoding: 'utf8',
    // Resolved from the repository, where the validator is installed.
    cwd: repositoryRoot,
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as { valid: boolean; errors?: unknown };
}

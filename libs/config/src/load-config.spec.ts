import { z } from 'zod';
import { ConfigError, describeConfig, env, loadConfig } from './load-config';

const schema = z.object({
  PORT: env.port().default(8080).describe('Port to listen on.'),
  ASYNC: env.boolean().default(false).describe('Answer at once.'),
  NAME: z.string().describe('Required name.'),
});

describe('loadConfig', () => {
  it('applies defaults for unset and empty variables and coerces the rest', () => {
    expect(loadConfig(schema, { NAME: 'x', PORT: '', ASYNC: 'yes' })).toEqual({ NAME: 'x', PORT: 8080, ASYNC: true });
  });

  it('lists every invalid key at once', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: '99999', ASYNC: 'perhaps' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/PORT/);
    expect(problems).toMatch(/ASYNC: must be true or false/);
    expect(problems).toMatch(/NAME/);
  });

  it('documents each key with its default', () => {
    expect(describeConfig(schema)).toEqual([
      { name: 'PORT', description: 'Port to listen on.', defaultValue: '8080' },
      { name: 'ASYNC', description: 'Answer at once.', defaultValue: 'false' },
      { name: 'NAME', description: 'Required name.', defaultValue: '(required or unset)' },
    ]);
  });
});

/**
 * docker-compose.yml: Compose itself accepts it (`docker-compose config -q`, Debian's package, which .ci/run installs),
 * every Strata service's environment is one its configuration schema accepts, the secrets come from the environment
 * file only, and the services reach each other where they listen.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  composeFilePath,
  environmentExamplePath,
  readComposeFile,
  readComposeText,
  readEnvironmentExample,
  serviceEnvironment,
  variableReferences,
} from './support/compose-file';
import { isMapping, mappingAt, repositoryRoot, type Mapping } from './support/helm-charts';
import { configurationProblems, placeholderFor } from './support/process-configurations';

/** The variables the compose file requires (its secrets), each with a placeholder value. */
const requiredVariables = Object.fromEntries(
  variableReferences(readComposeText())
    .filter((reference) => reference.required)
    .map((reference) => [reference.name, placeholderFor(reference.name)]),
);

/** The compose file as Compose reads it with the secrets set and every optional variable at its default. */
const compose = readComposeFile(requiredVariables);
const services = mappingAt(compose, 'services');

/** The services that run the Strata image, with the image's command each runs. */
const strataServices = Object.entries(services)
  .filter((entry): entry is [string, Mapping] => isMapping(entry[1]) && String(entry[1]['image']).startsWith('strata'))
  .map(([name, service]) => ({ name, service, command: commandOf(service) }));

function commandOf(service: Mapping): string {
  const command = service['command'];
  const first: unknown = Array.isArray(command) ? command[0] : command;
  return typeof first === 'string' ? first : 'standalone';
}

/** Which `docker-compose` to run: Debian's v1 package or the v2 plugin, whichever is installed. */
function composeCommand(): string[] | undefined {
  for (const candidate of [['docker-compose'], ['docker', 'compose']]) {
    const [program = '', ...rest] = candidate;
    const probe = spawnSync(program, [...rest, 'version'], { encoding: 'utf8' });
    if (probe.status === 0) return candidate;
  }
  return undefined;
}

function runCompose(command: string[], args: string[], environment: Record<string, string>) {
  const [program = '', ...rest] = command;
  // The environment file is the example, so that a developer's own .env takes no part; the shell's variables win
  // over it, as they do for Compose users.
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !(entry[0] in requiredVariables),
    ),
  );
  return spawnSync(
    program,
    [...rest, '--env-file', environmentExamplePath, '-f', composeFilePath, '--profile', 'standalone', ...args],
    { cwd: repositoryRoot, encoding: 'utf8', env: { ...base, ...environment }, timeout: 60_000 },
  );
}

const composeBinary = composeCommand();
// On CI the check must run: .ci/run installs Debian's docker-compose, and a missing binary fails rather than skips.
const withCompose = composeBinary !== undefined || process.env['CI'] === 'true' ? it : it.skip;

describe('docker-compose.yml', () => {
  withCompose('is a file Compose accepts (docker-compose config -q)', () => {
    if (composeBinary === undefined) throw new Error('docker-compose is not installed: .ci/run installs it on CI');

    const result = runCompose(composeBinary, ['config', '-q'], requiredVariables);

    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  });

  withCompose('refuses to start without the secrets, naming the variable to set', () => {
    if (composeBinary === undefined) throw new Error('docker-compose is not installed: .ci/run installs it on CI');

    const result = runCompose(composeBinary, ['config', '-q'], {});

    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/set [A-Z_]+ in \.env/);
  });

  it('gives every Strata service an environment its configuration schema accepts, key for key', () => {
    expect(strataServices.map(({ name }) => name).sort()).toEqual([
      'audit',
      'gateway',
      'init',
      'metadata-writer',
      'operations',
      'search-indexer',
      'standalone',
      'timeseries-indexer',
    ]);
    for (const { name, service, command } of strataServices) {
      expect({ name, problems: configurationProblems(command, serviceEnvironment(service)) }).toEqual({
        name,
        problems: [],
      });
    }
  });

  it('takes every secret from the environment file, required, and shares one key and one client secret', () => {
    const secrets = ['DATAHUB_TOKEN_SERVICE_SIGNING_KEY', 'DATAHUB_SYSTEM_CLIENT_SECRET', 'STRATA_ROOT_PASSWORD'];
    for (const { name, service } of strataServices) {
      const environment = serviceEnvironment(service);
      for (const secret of secrets) {
        if (environment[secret] === undefined) continue;
        expect({ name, secret, value: environment[secret] }).toEqual({ name, secret, value: placeholderFor(secret) });
      }
    }
    for (const name of [...secrets, 'ELASTIC_PASSWORD']) {
      expect(requiredVariables).toHaveProperty(name);
      expect(readEnvironmentExample().get(name)).toBe('');
    }
    const served = strataServices.filter(({ command }) => command !== 'init');
    for (const { name, service } of served) {
      expect({ name, secret: serviceEnvironment(service)['DATAHUB_SYSTEM_CLIENT_SECRET'] }).toEqual({
        name,
        secret: placeholderFor('DATAHUB_SYSTEM_CLIENT_SECRET'),
      });
    }
  });

  it('documents every variable it reads in .env.example, with the defaults it states', () => {
    const example = readEnvironmentExample();
    const referenced = new Set<string>();
    for (const reference of variableReferences(readComposeText())) {
      referenced.add(reference.name);
      expect({ name: reference.name, documented: example.has(reference.name) }).toEqual({
        name: reference.name,
        documented: true,
      });
      if (reference.defaultValue !== undefined) {
        expect({ name: reference.name, value: example.get(reference.name) }).toEqual({
          name: reference.name,
          value: reference.defaultValue,
        });
      }
    }
    const unused = [...example.keys()].filter((name) => !referenced.has(name) && name !== 'COMPOSE_PROJECT_NAME');
    expect(unused).toEqual([]);
  });

  it('has authentication on wherever requests come in', () => {
    for (const name of ['gateway', 'standalone']) {
      expect(serviceEnvironment(mappingAt(services, name))['METADATA_SERVICE_AUTH_ENABLED']).toBe('true');
    }
  });

  it('gives each gateway an outcome-consumer identity of its own', () => {
    const gateways = strataServices.filter(({ command }) => command === 'gateway');
    const identities = gateways.map(({ service }) => serviceEnvironment(service)['GATEWAY_INSTANCE_ID']);

    expect(gateways.length).toBeGreaterThan(0);
    expect(identities).not.toContain(undefined);
    expect(new Set(identities).size).toBe(identities.length);
  });

  it('points every service URL at a compose service listening on that port', () => {
    const portOf = (name: string) => serviceEnvironment(mappingAt(services, name))['PORT'];
    for (const { name, service } of strataServices) {
      const environment = serviceEnvironment(service);
      for (const key of ['SERVICE_URLS', 'OPERATIONS_SERVICE_URLS']) {
        for (const url of (environment[key] ?? '').split(',').filter((entry) => entry !== '')) {
          const { hostname, port } = new URL(url);
          expect({ name, url, port: portOf(hostname) }).toEqual({ name, url, port });
        }
      }
    }
  });

  it('checks the health of every Strata service on /health, restarts it, and starts it after what it needs', () => {
    for (const { name, service, command } of strataServices) {
      const dependsOn = mappingAt(service, 'depends_on');
      for (const [dependency, condition] of Object.entries(dependsOn)) {
        expect({ name, dependency, known: dependency in services }).toEqual({ name, dependency, known: true });
        expect(isMapping(condition) && typeof condition['condition'] === 'string').toBe(true);
      }
      if (command === 'init') {
        expect(service['restart']).toBe('no');
        expect(mappingAt(dependsOn, 'kafka')['condition']).toBe('service_healthy');
        continue;
      }
      expect({ name, restart: service['restart'] }).toEqual({ name, restart: 'unless-stopped' });
      expect({ name, test: mappingAt(service, 'healthcheck')['test'] }).toEqual({
        name,
        test: ['CMD', 'node', '/app/deploy/healthcheck.cjs'],
      });
      if (command !== 'standalone') {
        expect({ name, after: startsAfterInit(name) }).toEqual({ name, after: true });
      }
    }
  });

  it('keeps the standalone process in its own profile, its data on a named volume', () => {
    const standalone = mappingAt(services, 'standalone');
    const dataDirectory = serviceEnvironment(standalone)['DATA_DIR'];
    const volumes = (standalone['volumes'] as string[]).map((volume) => volume.split(':'));

    expect(standalone['profiles']).toEqual(['standalone']);
    expect(volumes).toContainEqual(['standalone-data', dataDirectory]);
    expect(mappingAt(compose, 'volumes')).toHaveProperty('standalone-data');
  });

  it('mounts the custom-model directory where every Strata service reads it', () => {
    const directory = join(repositoryRoot, 'deploy', 'custom-models');
    expect(existsSync(directory)).toBe(true);
    for (const { name, service, command } of strataServices) {
      if (command === 'init') continue;
      const modelsDirectory = serviceEnvironment(service)['CUSTOM_MODELS_DIR'];
      const mounts = (service['volumes'] as string[]).map((volume) => volume.split(':'));
      expect({ name, mounted: mounts.some(([, target]) => target === modelsDirectory) }).toEqual({
        name,
        mounted: true,
      });
    }
  });
});

/** Whether the service waits, directly or through what it waits for, for the topic initialisation to succeed. */
function startsAfterInit(name: string, seen = new Set<string>()): boolean {
  if (seen.has(name)) return false;
  seen.add(name);
  const dependsOn = mappingAt(mappingAt(services, name), 'depends_on');
  if (mappingAt(dependsOn, 'init')['condition'] === 'service_completed_successfully') return true;
  return Object.keys(dependsOn).some((dependency) => startsAfterInit(dependency, seen));
}

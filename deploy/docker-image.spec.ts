/**
 * The image (deploy/Dockerfile): it passes a Dockerfile linter, everything it copies from the repository exists (and
 * is not left out of the build context by .dockerignore), and every command its entry point offers starts a program
 * that the build produces. No Docker engine is needed: the checks read the files.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import { repositoryRoot } from './support/helm-charts';
import { processConfigurations } from './support/process-configurations';

const dockerfileText = readFileSync(join(repositoryRoot, 'deploy', 'Dockerfile'), 'utf8');
const dockerfile = DockerfileParser.parse(dockerfileText);
const entrypointText = readFileSync(join(repositoryRoot, 'deploy', 'docker-entrypoint.sh'), 'utf8');
const dockerignore = readFileSync(join(repositoryRoot, '.dockerignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

/** The app directories: every one is a program of the image. */
/** The apps that are processes (a `src/main.ts`); the console is a bundle the gateway serves, not a process. */
const apps = readdirSync(join(repositoryRoot, 'apps'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(repositoryRoot, 'apps', entry.name, 'src', 'main.ts')))
  .map((entry) => entry.name)
  .sort();

/** The entry point's commands that start a program, with the script each runs (relative to the image's /app). */
function entrypointPrograms(): Map<string, string> {
  const programs = new Map<string, string>();
  for (const arm of entrypointText.matchAll(/^ *([a-z][a-z| -]*)\)\n\s*exec node "?([^"\s]+)"?/gm)) {
    const script = arm[2] ?? '';
    for (const command of (arm[1] ?? '').split('|').map((name) => name.trim())) {
      programs.set(command, script.replace('$command', command));
    }
  }
  return programs;
}

/** The build that produces `apps/<app>/dist/<name>.js`: the app's `src/<name>.ts` compiled by its tsconfig. */
function sourceOf(script: string): { app: string; source: string } {
  const match = /^apps\/([a-z-]+)\/dist\/([a-z-]+)\.js$/.exec(script);
  if (match?.[1] === undefined || match[2] === undefined) throw new Error(`${script} is not an app's compiled file`);
  return { app: match[1], source: join('apps', match[1], 'src', `${match[2]}.ts`) };
}

describe('the image (deploy/Dockerfile)', () => {
  it('passes the Dockerfile linter with every rule an error', () => {
    const error = ValidationSeverity.ERROR;
    const diagnostics = validate(dockerfileText, {
      deprecatedMaintainer: error,
      directiveCasing: error,
      emptyContinuationLine: error,
      instructionCasing: error,
      instructionCmdMultiple: error,
      instructionEntrypointMultiple: error,
      instructionHealthcheckMultiple: error,
      instructionJSONInSingleQuotes: error,
      instructionWorkdirRelative: error,
    });

    const messageOf = ({ message }: (typeof diagnostics)[number]) =>
      typeof message === 'string' ? message : message.value;
    expect(
      diagnostics.map((diagnostic) => `line ${diagnostic.range.start.line + 1}: ${messageOf(diagnostic)}`),
    ).toEqual([]);
  });

  it('copies from the build context only what exists and .dockerignore lets through', () => {
    const copied = dockerfile
      .getCOPYs()
      .filter((copy) => copy.getFromFlag() === null)
      .flatMap((copy) => copy.getArguments().slice(0, -1))
      .map((argument) => argument.getValue());

    expect(copied.length).toBeGreaterThan(0);
    for (const source of copied) {
      expect({ source, exists: existsSync(join(repositoryRoot, source)) }).toEqual({ source, exists: true });
      expect(dockerignore).not.toContain(source);
    }
  });

  it('copies between stages only from stages it defines, before the stage that copies', () => {
    const stages = dockerfile.getFROMs().map((from) => from.getBuildStage());
    for (const copy of dockerfile.getCOPYs()) {
      const from = copy.getFromFlag()?.getValue();
      if (from === undefined) continue;
      const copyLine = copy.getRange().start.line;
      const stageLine = dockerfile
        .getFROMs()
        .find((candidate) => candidate.getBuildStage() === from)
        ?.getRange().start.line;
      expect({ from, defined: stages.includes(from) }).toEqual({ from, defined: true });
      expect(stageLine).toBeLessThan(copyLine);
    }
  });

  it('names only files of the repository under deploy/, and the build context carries them', () => {
    const named = new Set([...dockerfileText.matchAll(/\bdeploy\/([A-Za-z0-9._-]+)/g)].map((match) => match[1] ?? ''));

    expect([...named].sort()).toEqual(['Dockerfile', 'docker-entrypoint.sh', 'healthcheck.cjs']);
    for (const file of named) expect(existsSync(join(repositoryRoot, 'deploy', file))).toBe(true);
    expect(dockerignore).not.toContain('deploy');
  });

  it('runs as an unprivileged user, with a health check and the entry point script', () => {
    const runtime = dockerfileText.slice(dockerfileText.lastIndexOf('\nFROM '));
    const user = /^USER\s+(\S+)/m.exec(runtime)?.[1];
    const healthcheck = dockerfile.getHEALTHCHECKs()[0]?.getArgumentsContent() ?? '';
    const entrypoint = dockerfile
      .getENTRYPOINTs()[0]
      ?.getJSONStrings()
      .map((string) => string.getJSONValue());

    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(healthcheck).toMatch(/CMD \["node", "\/app\/deploy\/healthcheck\.cjs"\]/);
    expect(entrypoint).toEqual(['/bin/sh', '/app/deploy/docker-entrypoint.sh']);
    expect(runtime).toMatch(/^CMD \["standalone"\]$/m);
  });

  it('has a program for every app and for the topic initialisation, each built from a source that exists', () => {
    const programs = entrypointPrograms();

    expect([...programs.keys()].sort()).toEqual([...apps, 'init', 'token'].sort());
    for (const [command, script] of programs) {
      const { app, source } = sourceOf(script);
      expect({ command, source, exists: existsSync(join(repositoryRoot, source)) }).toEqual({
        command,
        source,
        exists: true,
      });
      // The root build compiles the app, `src/` into `dist/`: the compiled file is where the entry point runs it.
      const rootBuild = readFileSync(join(repositoryRoot, 'tsconfig.build.json'), 'utf8');
      expect(rootBuild).toContain(`./apps/${app}/tsconfig.build.json`);
      const appBuild = JSON.parse(readFileSync(join(repositoryRoot, 'apps', app, 'tsconfig.build.json'), 'utf8')) as {
        compilerOptions: { rootDir?: string; outDir?: string };
        include?: string[];
      };
      expect(appBuild.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
      expect(appBuild.include).toContain('src/**/*.ts');
    }
  });

  it('has a configuration schema for every program that serves or initialises, so the deployment files are checked', () => {
    const programs = [...entrypointPrograms().keys()].filter((command) => command !== 'token');

    expect(programs.sort()).toEqual(Object.keys(processConfigurations).sort());
  });

  it('installs the production dependencies of every app', () => {
    const workspaces = [...dockerfileText.matchAll(/--workspace (\S+)/g)].map((match) => match[1]);

    expect(workspaces.sort()).toEqual(apps.map((app) => `apps/${app}`));
  });

  it('carries the built console: built by the root build, copied with every app, nothing installed for it', () => {
    const manifest = (path: string) =>
      JSON.parse(readFileSync(join(repositoryRoot, path, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
        scripts?: Record<string, string>;
      };
    // Bundled at build time: its libraries are devDependencies, so the production install adds nothing for it.
    expect(manifest('apps/console').dependencies ?? {}).toEqual({});
    // The root build builds it, and the image copies every app's dist.
    expect(manifest('.').scripts?.['build']).toContain('-w @strata/console');
    expect(dockerfileText).toMatch(/for package in libs\/\* apps\/\*; do[\s\S]*cp -R "\$package\/dist"/);
  });

  it('leaves installed and built files, local data and secrets out of the build context', () => {
    expect(dockerignore).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git', 'data', '.env']));
  });
});

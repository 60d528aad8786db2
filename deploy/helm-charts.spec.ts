/**
 * The Helm charts (deploy/helm): every chart's values validate against its values.schema.json, alone and as the
 * umbrella chart sets them; every service's environment is one its configuration schema accepts; the topic Job's is
 * one the initialisation accepts; and every `.Values` path a template reads exists in the chart's values and schema.
 * No Helm binary is needed: the checks read the charts as Helm's engine does for what these templates use.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import {
  containerEnvironment,
  mappingAt,
  readCharts,
  releaseName,
  renderValue,
  scanTemplate,
  schemaHasPath,
  stringMapping,
  valuesHavePath,
  valuesUnderUmbrella,
  type Chart,
  type Mapping,
  type TemplateUses,
} from './support/helm-charts';
import { configurationProblems, processConfigurations } from './support/process-configurations';

const charts = readCharts();
const umbrella = chartNamed('strata');
const library = chartNamed('strata-common');
const serviceNames = ['gateway', 'metadata-writer', 'search-indexer', 'audit', 'timeseries-indexer', 'operations'];
const services = serviceNames.map(chartNamed);

function chartNamed(name: string): Chart {
  const chart = charts.get(name);
  if (chart === undefined) throw new Error(`deploy/helm/${name} is missing`);
  return chart;
}

const ajv = new Ajv({ strict: true, allErrors: true });

function schemaProblems(chart: Chart, values: Mapping): string[] {
  if (chart.schema === undefined) return [`${chart.name} has no values.schema.json`];
  const validateValues = ajv.compile(chart.schema);
  if (validateValues(values)) return [];
  return (validateValues.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
}

/** The ways a chart is rendered: alone with its own values, and inside the umbrella chart with the umbrella's. */
function renderings(chart: Chart): { where: string; values: Mapping }[] {
  return [
    { where: `${chart.name} alone`, values: chart.values },
    { where: `${chart.name} in the umbrella chart`, values: valuesUnderUmbrella(umbrella.values, chart) },
  ];
}

describe('the Helm charts (deploy/helm)', () => {
  it('are the six service charts, the library they share and the umbrella chart over them', () => {
    expect([...charts.keys()].sort()).toEqual([...serviceNames, 'strata', 'strata-common'].sort());
    expect(library.type).toBe('library');
    for (const chart of services) {
      expect(chart.dependencies).toEqual([
        { name: 'strata-common', version: '0.1.0', repository: 'file://../strata-common' },
      ]);
    }
    expect(umbrella.dependencies.map((dependency) => [dependency.name, dependency.repository])).toEqual([
      ['strata-common', 'file://../strata-common'],
      ...serviceNames.map((name) => [name, `file://../${name}`]),
    ]);
    for (const dependency of umbrella.dependencies) {
      expect(existsSync(join(umbrella.directory, dependency.repository.replace('file://', '')))).toBe(true);
      if (dependency.name !== 'strata-common') expect(dependency.condition).toBe(`${dependency.name}.enabled`);
    }
  });

  it('name each service chart after the image command that runs it', () => {
    for (const chart of services) expect(Object.keys(processConfigurations)).toContain(chart.name);
  });

  it.each([...charts.keys()])('%s: its values validate against its values.schema.json', (name) => {
    const chart = chartNamed(name);

    expect(schemaProblems(chart, chart.values)).toEqual([]);
  });

  it.each(serviceNames)('%s: the values the umbrella chart gives it validate against its schema', (name) => {
    const chart = chartNamed(name);

    expect(schemaProblems(chart, valuesUnderUmbrella(umbrella.values, chart))).toEqual([]);
  });

  it.each(serviceNames)('%s: its environment is one its configuration schema accepts', (name) => {
    for (const { where, values } of renderings(chartNamed(name))) {
      const { environment, problems } = containerEnvironment(values, where);

      expect({ where, problems: [...problems, ...configurationProblems(name, environment)] }).toEqual({
        where,
        problems: [],
      });
    }
  });

  it('gives the topic Job an environment the initialisation accepts', () => {
    const problems: string[] = [];
    const environment = Object.fromEntries(
      Object.entries({
        ...stringMapping(mappingAt(umbrella.values, 'global')['env'], 'global.env'),
        ...stringMapping(mappingAt(umbrella.values, 'topics')['env'], 'topics.env'),
      }).map(([key, value]) => [key, renderValue(value, problems, `topics ${key}`)]),
    );

    expect([...problems, ...configurationProblems('init', environment)]).toEqual([]);
  });

  it('keeps secrets out of the literal environment: they come from the Secret', () => {
    const secret = /SECRET|PASSWORD|SIGNING_KEY|MONGODB_URI|ELASTICSEARCH_URL/;
    for (const chart of [...services, umbrella]) {
      const global = mappingAt(chart.values, 'global');
      const literal = [
        ...Object.keys(mappingAt(global, 'env')),
        ...Object.keys(mappingAt(chart.values, 'env')),
        ...Object.keys(mappingAt(mappingAt(chart.values, 'topics'), 'env')),
      ];
      expect({ chart: chart.name, secrets: literal.filter((key) => secret.test(key)) }).toEqual({
        chart: chart.name,
        secrets: [],
      });
    }
    for (const chart of services) {
      expect(mappingAt(chart.values, 'secretEnv')).toHaveProperty(
        'DATAHUB_SYSTEM_CLIENT_SECRET',
        'system-client-secret',
      );
    }
    expect(mappingAt(chartNamed('gateway').values, 'secretEnv')).toMatchObject({
      DATAHUB_TOKEN_SERVICE_SIGNING_KEY: 'token-signing-key',
      STRATA_ROOT_PASSWORD: 'root-password',
    });
  });

  it('turns authentication on, and gives each gateway pod its own outcome-consumer identity', () => {
    const gateway = chartNamed('gateway');

    expect(mappingAt(gateway.values, 'env')['METADATA_SERVICE_AUTH_ENABLED']).toBe('true');
    expect(mappingAt(gateway.values, 'fieldEnv')).toEqual({ GATEWAY_INSTANCE_ID: 'metadata.name' });
    expect(gateway.templates.get('statefulset.yaml')).toMatch(/kind: StatefulSet/);
  });

  it('points every service URL at the Service of a chart listening on that port', () => {
    const portOf = new Map(
      services.map((chart) => [`${releaseName}-${chart.name}`, mappingAt(chart.values, 'env')['PORT']]),
    );
    for (const chart of services) {
      const { environment } = containerEnvironment(chart.values, chart.name);
      for (const key of ['SERVICE_URLS', 'OPERATIONS_SERVICE_URLS']) {
        for (const url of (environment[key] ?? '').split(',').filter((entry) => entry !== '')) {
          const { hostname, port } = new URL(url);
          expect({ chart: chart.name, url, port: portOf.get(hostname) }).toEqual({ chart: chart.name, url, port });
        }
      }
    }
  });

  it('runs the operations service as one pod with its data on a volume', () => {
    const operations = chartNamed('operations');
    const schema = mappingAt(mappingAt(operations.schema ?? {}, 'properties'), 'replicaCount');

    expect(schema['enum']).toEqual([0, 1]);
    expect(operations.values['replicaCount']).toBe(1);
    expect(operations.templates.get('statefulset.yaml')).toMatch(/volumeClaimTemplates:/);
  });

  it('creates the topics in a Job hooked before every install and upgrade', () => {
    const job = umbrella.templates.get('topics-job.yaml') ?? '';

    expect(job).toMatch(/kind: Job/);
    expect(job).toMatch(/helm\.sh\/hook: pre-install,pre-upgrade/);
    expect(job).toMatch(/- init\n/);
  });

  it.each([...charts.keys()].filter((name) => name !== 'strata-common'))(
    '%s: every .Values path its templates read is in its values.yaml and its values.schema.json',
    (name) => {
      const chart = chartNamed(name);
      const { paths, unknownIncludes } = valuesPathsRead(chart);

      expect(unknownIncludes).toEqual([]);
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths) {
        expect({ path, inValues: valuesHavePath(chart.values, path) }).toEqual({ path, inValues: true });
        expect({ path, inSchema: schemaHasPath(chart.schema ?? {}, path) }).toEqual({ path, inSchema: true });
      }
    },
  );
});

/**
 * Every `.Values` path that rendering `chart` reads: its own templates', and those of the named templates they
 * include, from the chart or the library, transitively. Includes of templates defined nowhere are returned too.
 */
function valuesPathsRead(chart: Chart): { paths: string[]; unknownIncludes: string[] } {
  const defines = new Map<string, TemplateUses>();
  const roots: TemplateUses[] = [];
  for (const source of [chart, library]) {
    for (const [file, text] of source.templates) {
      const scanned = scanTemplate(text);
      for (const [name, uses] of scanned.defines) defines.set(name, uses);
      if (source === chart && !file.startsWith('_')) roots.push(scanned.topLevel);
    }
  }
  const paths = new Set<string>();
  const unknownIncludes = new Set<string>();
  const visited = new Set<string>();
  const visit = (uses: TemplateUses) => {
    for (const path of uses.valuesPaths) paths.add(path);
    for (const name of uses.includes) {
      if (visited.has(name)) continue;
      visited.add(name);
      const included = defines.get(name);
      if (included === undefined) unknownIncludes.add(name);
      else visit(included);
    }
  };
  roots.forEach(visit);
  return { paths: [...paths].sort(), unknownIncludes: [...unknownIncludes] };
}

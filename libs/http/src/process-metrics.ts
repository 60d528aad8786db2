import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * prom-client's default metrics that break Prometheus's naming rules (`promtool check metrics`: a gauge must not end
 * in `_total`). Each is the sum of a labelled gauge that is kept (`nodejs_active_handles` by type, …).
 */
const MISNAMED_DEFAULT_METRICS = [
  'nodejs_active_resources_total',
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
];

let processRegistry: Registry | undefined;

/**
 * The process's own metrics — CPU, memory, file descriptors, event-loop lag, garbage collection (prom-client's
 * default metrics, under their usual `process_*` and `nodejs_*` names) — in a registry made once per process, however
 * many HTTP apps serve it: they describe the process, so collecting them twice would only give every series twice
 * (and start the event-loop and GC observers twice).
 */
export function processMetrics(): Registry {
  if (processRegistry === undefined) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    for (const name of MISNAMED_DEFAULT_METRICS) registry.removeSingleMetric(name);
    processRegistry = registry;
  }
  return processRegistry;
}

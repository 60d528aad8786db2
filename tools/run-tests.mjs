#!/usr/bin/env node
// `npm test`: every check the repository has, in phases, each timed — lint and build side by side, then the jest
// lanes one after another (unit, contract, e2e; see jest.config.js), each on both cores. Every phase runs even when
// an earlier one failed (but the end-to-end lane, which starts the built Strata, needs the build), and the summary
// says which failed and how long each took. Exits non-zero when any phase failed.
//
// Options (environment):
//   STRATA_TEST_LANES    the jest lanes to run, comma-separated (default unit,contract,e2e)
//   STRATA_TEST_WORKERS  jest workers per lane, e.g. "unit=2,contract=3,e2e=2" (defaults below)
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const cores = Math.max(1, availableParallelism());
/**
 * Workers per lane. The contract lane's Kafka suites spend most of their time waiting on the broker's group
 * rebalances, and the end-to-end lane's on the processes it starts: both take one more worker than there are cores.
 */
const defaultWorkers = { unit: cores, contract: cores + 1, e2e: cores + 1 };
const workers = { ...defaultWorkers, ...parseWorkers(process.env.STRATA_TEST_WORKERS ?? '') };
const lanes = (process.env.STRATA_TEST_LANES ?? 'unit,contract,e2e').split(',').map((lane) => lane.trim());

const phases = [];
const started = Date.now();

const [, build] = await Promise.all([run('lint', 'npm', ['run', 'lint']), run('build', 'npm', ['run', 'build'])]);
for (const lane of lanes) {
  if (lane === 'e2e' && !build.ok) {
    phases.push({ name: 'jest e2e', ok: false, ms: 0, note: 'skipped: the build failed' });
    continue;
  }
  await run(`jest ${lane}`, 'npx', [
    'jest',
    '--selectProjects',
    lane,
    `--maxWorkers=${workers[lane] ?? cores}`,
    ...process.argv.slice(2),
  ]);
}

const width = Math.max(...phases.map((phase) => phase.name.length));
process.stdout.write('\nphase timings\n');
for (const phase of phases) {
  const seconds = (phase.ms / 1000).toFixed(1).padStart(7);
  process.stdout.write(
    `  ${phase.name.padEnd(width)} ${seconds} s  ${phase.ok ? 'ok' : 'FAILED'}${phase.note ? ` (${phase.note})` : ''}\n`,
  );
}
process.stdout.write(`  ${'total'.padEnd(width)} ${((Date.now() - started) / 1000).toFixed(1).padStart(7)} s\n`);
process.exit(phases.every((phase) => phase.ok) ? 0 : 1);

/** Runs a command with this process's output streams, and records the phase. */
function run(name, command, args) {
  const start = Date.now();
  process.stdout.write(`\n▶ ${name}: ${command} ${args.join(' ')}\n`);
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('error', (error) => finish(false, error.message));
    child.on('exit', (code, signal) => finish(code === 0, signal ? `killed by ${signal}` : undefined));
    function finish(ok, note) {
      const phase = { name, ok, ms: Date.now() - start, ...(note ? { note } : {}) };
      phases.push(phase);
      process.stdout.write(`◀ ${name}: ${ok ? 'ok' : 'FAILED'} in ${(phase.ms / 1000).toFixed(1)} s\n`);
      resolve(phase);
    }
  });
}

function parseWorkers(text) {
  const parsed = {};
  for (const entry of text.split(',').filter((part) => part.trim() !== '')) {
    const [lane, count] = entry.split('=');
    const value = Number(count);
    if (!lane || !Number.isInteger(value) || value < 1) throw new Error(`STRATA_TEST_WORKERS: bad entry ${entry}`);
    parsed[lane.trim()] = value;
  }
  return parsed;
}

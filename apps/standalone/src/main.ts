import { loadStandaloneConfig } from './config';
import { createStandaloneApp } from './app';

async function main(): Promise<void> {
  const app = createStandaloneApp(loadStandaloneConfig(process.env));
  let stopping: Promise<void> | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stopping ??= app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`Strata failed to stop cleanly after ${signal}:`, error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await app.start();
}

main().catch((error: unknown) => {
  console.error('Strata failed to start:', error);
  process.exit(1);
});

/** What a service's composition root gives its `main.ts`. */
export interface RunnableService {
  start(): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * Runs a service until SIGTERM or SIGINT, then stops it cleanly and exits 0 (1 if stopping failed). A service that
 * fails to start exits 1 with the reason: a connection failure at start-up is never swallowed.
 */
export function runService(name: string, create: () => RunnableService): void {
  let service: RunnableService;
  try {
    service = create();
  } catch (error) {
    console.error(`${name} failed to start:`, error);
    process.exit(1);
  }
  let stopping: Promise<void> | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stopping ??= service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`${name} failed to stop cleanly after ${signal}:`, error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  service.start().catch((error: unknown) => {
    console.error(`${name} failed to start:`, error);
    process.exit(1);
  });
}

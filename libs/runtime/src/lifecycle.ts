/** Something started that must be stopped: a service, a server, an open engine. */
export interface Stoppable {
  stop(): Promise<void>;
}

/** What a start sequence uses to open resources and start components, each registered for stopping. */
export interface LifecycleScope {
  /** Opens a resource now and registers `close` for it. */
  open<T>(name: string, open: () => Promise<T> | T, close: (resource: T) => Promise<void> | void): Promise<T>;
  /** Starts a component now and registers its `stop`. */
  start<T extends { start(): Promise<unknown> } & Stoppable>(name: string, component: T): Promise<T>;
}

/** The part of a logger the lifecycle needs (pino's signature). */
export interface LifecycleLogger {
  error(details: object, message: string): void;
}

interface Registered {
  readonly name: string;
  readonly stop: () => Promise<void>;
}

/**
 * Starts a process's components in order and stops them in reverse. A start that fails halfway unwinds: whatever was
 * opened or started before the failure is stopped, newest first, so that nothing is left running, listening or
 * locked, and the start's error is rethrown. Stopping tries every component even when one fails, then throws.
 */
export class Lifecycle {
  private readonly registered: Registered[] = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly logger?: LifecycleLogger) {}

  /** Runs the start sequence; on failure, unwinds what it registered and rethrows. */
  async start(sequence: (scope: LifecycleScope) => Promise<void>): Promise<void> {
    if (this.stopping !== undefined) throw new Error('This lifecycle has been stopped');
    const scope: LifecycleScope = {
      open: async (name, open, close) => {
        this.assertRunning(name);
        const resource = await open();
        if (this.stopping !== undefined) {
          // Stopped while it opened: nobody will close it later.
          await close(resource);
          this.assertRunning(name);
        }
        this.registered.push({
          name,
          stop: async () => {
            await close(resource);
          },
        });
        return resource;
      },
      start: async (name, component) => {
        this.assertRunning(name);
        // Registered before it starts: a start that fails halfway may hold something its stop releases, so a
        // component's stop must be safe to call whether or not its start finished.
        this.registered.push({ name, stop: () => component.stop() });
        await component.start();
        this.assertRunning(name);
        return component;
      },
    };
    try {
      await sequence(scope);
    } catch (error) {
      await this.stop().catch(() => undefined);
      throw error;
    }
  }

  /** Stops everything registered, newest first. Idempotent; rejects after trying all if any failed. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const failures: unknown[] = [];
      for (const component of this.registered.splice(0).reverse()) {
        try {
          await component.stop();
        } catch (error) {
          failures.push(error);
          this.logger?.error({ err: error, component: component.name }, `stopping ${component.name} failed`);
        }
      }
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1) throw new AggregateError(failures, `${failures.length} components failed to stop`);
    })();
    return this.stopping;
  }

  private assertRunning(name: string): void {
    if (this.stopping !== undefined) throw new Error(`Cannot start ${name}: the process is stopping`);
  }
}

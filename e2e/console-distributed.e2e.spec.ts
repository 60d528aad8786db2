/**
 * The Strata console in a browser on the shared distributed deployment (every service its own process over Kafka,
 * behind the gateway, authentication on): the same journey as on the standalone process (e2e/support/console-journey.ts).
 */
import { consoleJourney } from './support/console-journey';

consoleJourney('distributed');

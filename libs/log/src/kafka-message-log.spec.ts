import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Kafka, type Consumer } from 'kafkajs';
import { eventually } from '@strata/testing';

import { FakeConsumer } from './kafka-consumer.fake';
import { KafkaMessageLog } from './kafka-message-log';

// How subscribe() copes with a member that cannot join, against stand-ins for kafkajs's consumers (the mock cluster
// refuses a join only now and then, in a rebalance race: see kafka-message-log.int.spec.ts).

/** kafkajs's error for a group request the broker answered with an error code (here INVALID_REQUEST). */
function protocolError(): Error {
  return Object.assign(new Error('This most likely occurs because of a request being malformed'), {
    name: 'KafkaJSProtocolError',
  });
}

/** Each consumer the log creates, failing to run with the next of `failures` while there is one. */
function consumersFailing(failures: Error[]): FakeConsumer[] {
  const consumers: FakeConsumer[] = [];
  jest.spyOn(Kafka.prototype, 'consumer').mockImplementation(() => {
    const consumer = new FakeConsumer();
    consumer.runError = failures[consumers.length];
    consumers.push(consumer);
    return consumer as unknown as Consumer;
  });
  return consumers;
}

describe('KafkaMessageLog.subscribe', () => {
  const logs: KafkaMessageLog[] = [];
  afterEach(async () => {
    for (const log of logs.splice(0)) await log.close();
    jest.restoreAllMocks();
  });

  function openLog(): KafkaMessageLog {
    const log = new KafkaMessageLog({ clientId: 'strata-test', brokers: ['127.0.0.1:1'], retryInitialDelayMs: 1 });
    logs.push(log);
    return log;
  }

  const options = { groupId: 'g', topics: ['t'], handleBatch: () => Promise.resolve() };

  it('joins again, with a new member, when the group coordinator refused one', async () => {
    const consumers = consumersFailing([protocolError(), protocolError()]);
    const subscribing = openLog().subscribe(options);
    await eventually(
      () => {
        expect(consumers[2]?.runs).toHaveLength(1);
      },
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    consumers[2]?.joinAndFetch();
    await subscribing;
    expect(consumers.map((consumer) => consumer.disconnects)).toEqual([1, 1, 0]);
  });

  it('gives up after three refusals', async () => {
    const consumers = consumersFailing([protocolError(), protocolError(), protocolError(), protocolError()]);
    await expect(openLog().subscribe(options)).rejects.toThrow(/consumer group g could not start on t/);
    expect(consumers).toHaveLength(3);
  });

  it('does not try again when the member failed otherwise', async () => {
    const consumers = consumersFailing([new Error('Connection refused')]);
    await expect(openLog().subscribe(options)).rejects.toThrow(/could not start on t: Connection refused/);
    expect(consumers).toHaveLength(1);
  });
});

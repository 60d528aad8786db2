/**
 * Switches: marks in the writer's store that a service other than the writer sets (through the writer's internal
 * `POST /internal/marks`, which takes no other name), as opposed to the marks the writer sets in the same commit as the
 * changes they stand for. `GATEWAY_WRITE_SWITCH_MARK` is `"false"` while the gateways refuse writes
 * (DataHub's `setWritable`; docs/adr/0030).
 */
export const GATEWAY_WRITE_SWITCH_MARK = 'gateway.writable';

/** Every switch: the only marks another service may set. */
export const SWITCH_MARKS: readonly string[] = [GATEWAY_WRITE_SWITCH_MARK];

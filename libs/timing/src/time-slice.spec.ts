import { describe, expect, it } from '@jest/globals';
import { TimeSlice } from './time-slice';

/** Whether a setImmediate callback queued before `pause` ran by the time `pause` resolved. */
async function turnTaken(slice: TimeSlice): Promise<boolean> {
  let ran = false;
  setImmediate(() => {
    ran = true;
  });
  await slice.pause();
  return ran;
}

describe('TimeSlice', () => {
  it('lets the event loop run once the budget is spent, and starts a new budget after the turn', async () => {
    let now = 0;
    const slice = new TimeSlice(10, () => now);
    now = 9;
    expect(slice.spent).toBe(false);
    expect(await turnTaken(slice)).toBe(false);
    now = 10;
    expect(slice.spent).toBe(true);
    expect(await turnTaken(slice)).toBe(true);
    expect(slice.spent).toBe(false);
    now = 19;
    expect(await turnTaken(slice)).toBe(false);
    now = 25;
    expect(await turnTaken(slice)).toBe(true);
  });

  it('measures from its creation', async () => {
    let now = 100;
    const slice = new TimeSlice(5, () => now);
    expect(await turnTaken(slice)).toBe(false);
    now = 105;
    expect(await turnTaken(slice)).toBe(true);
  });
});

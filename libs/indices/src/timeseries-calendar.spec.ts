import { describe, expect, it } from '@jest/globals';
import { ValidationError } from '@strata/model';

import { calendarBucketStart, checkTimeZone, nextCalendarBucket, type CalendarUnit } from './timeseries-calendar';

const at = (iso: string) => Date.parse(iso);
const iso = (time: number) => new Date(time).toISOString();

describe('calendar buckets', () => {
  const time = at('2024-05-15T13:47:12.345Z'); // a Wednesday

  it.each<[CalendarUnit, string, string]>([
    ['MINUTE', '2024-05-15T13:47:00.000Z', '2024-05-15T13:48:00.000Z'],
    ['HOUR', '2024-05-15T13:00:00.000Z', '2024-05-15T14:00:00.000Z'],
    ['DAY', '2024-05-15T00:00:00.000Z', '2024-05-16T00:00:00.000Z'],
    ['WEEK', '2024-05-13T00:00:00.000Z', '2024-05-20T00:00:00.000Z'],
    ['MONTH', '2024-05-01T00:00:00.000Z', '2024-06-01T00:00:00.000Z'],
    ['QUARTER', '2024-04-01T00:00:00.000Z', '2024-07-01T00:00:00.000Z'],
    ['YEAR', '2024-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'],
  ])('cuts %s in UTC at its start, weeks from Monday, and steps to the next', (unit, start, next) => {
    expect(iso(calendarBucketStart(time, unit, 'UTC'))).toBe(start);
    expect(iso(nextCalendarBucket(at(start), unit, 'GMT'))).toBe(next);
  });

  it('counts a week across a year from its Monday, and a month’s end from its length', () => {
    expect(iso(calendarBucketStart(at('2025-01-01T10:00:00Z'), 'WEEK', 'UTC'))).toBe('2024-12-30T00:00:00.000Z');
    expect(iso(nextCalendarBucket(at('2024-02-01T00:00:00Z'), 'MONTH', 'UTC'))).toBe('2024-03-01T00:00:00.000Z');
    expect(iso(nextCalendarBucket(at('2024-10-01T00:00:00Z'), 'QUARTER', 'UTC'))).toBe('2025-01-01T00:00:00.000Z');
  });

  it('cuts days at local midnight in a zone, across its daylight-saving changes (days of 23 and 25 hours)', () => {
    // Paris: UTC+1 in winter, UTC+2 in summer; the clocks move on 2024-03-31 and 2024-10-27.
    expect(iso(calendarBucketStart(at('2024-03-30T23:30:00Z'), 'DAY', 'Europe/Paris'))).toBe(
      '2024-03-30T23:00:00.000Z',
    );
    expect(iso(nextCalendarBucket(at('2024-03-30T23:00:00Z'), 'DAY', 'Europe/Paris'))).toBe('2024-03-31T22:00:00.000Z');
    expect(iso(nextCalendarBucket(at('2024-10-26T22:00:00Z'), 'DAY', 'Europe/Paris'))).toBe('2024-10-27T23:00:00.000Z');
    // 02:00–03:00 shows twice that night: two hours, two buckets.
    expect(iso(calendarBucketStart(at('2024-10-27T01:30:00Z'), 'HOUR', 'Europe/Paris'))).toBe(
      '2024-10-27T01:00:00.000Z',
    );
    expect(iso(nextCalendarBucket(at('2024-10-27T00:00:00Z'), 'HOUR', 'Europe/Paris'))).toBe(
      '2024-10-27T01:00:00.000Z',
    );
    expect(iso(calendarBucketStart(at('2024-11-20T12:00:00Z'), 'MONTH', 'America/New_York'))).toBe(
      '2024-11-01T04:00:00.000Z',
    );
  });

  it('cuts hours at local hours in a zone half an hour off', () => {
    expect(iso(calendarBucketStart(at('2024-05-15T13:10:00Z'), 'HOUR', 'Asia/Kolkata'))).toBe(
      '2024-05-15T12:30:00.000Z',
    );
  });

  it('refuses a zone the time-zone database does not know', () => {
    expect(() => {
      checkTimeZone('Mars/Olympus_Mons');
    }).toThrow(ValidationError);
    expect(() => {
      checkTimeZone('Europe/Paris');
    }).not.toThrow();
  });
});

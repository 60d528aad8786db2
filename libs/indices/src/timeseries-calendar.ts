import { ValidationError } from '@strata/model';

/**
 * Calendar buckets of timestamps, as Elasticsearch's `date_histogram` with a `calendar_interval` cuts them: a bucket
 * starts at the beginning of its minute, hour, day, ISO week (Monday), month, quarter or year in a time zone, and the
 * next bucket starts one unit later on the same calendar (so a day across a daylight-saving change lasts 23 or 25
 * hours). Both timeseries adapters bucket with these rules: the embedded one computes them here, Elasticsearch natively.
 */
export const CALENDAR_UNITS = ['MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR'] as const;
export type CalendarUnit = (typeof CALENDAR_UNITS)[number];

/** Elasticsearch's name of each calendar interval. */
export const CALENDAR_INTERVALS: Readonly<Record<CalendarUnit, string>> = {
  MINUTE: '1m',
  HOUR: '1h',
  DAY: '1d',
  WEEK: '1w',
  MONTH: '1M',
  QUARTER: '1q',
  YEAR: '1y',
};

/** The zones read as UTC without consulting the time-zone database (DataHub's default is `GMT`). */
const UTC_NAMES = new Set(['UTC', 'GMT', 'Z', 'ETC/UTC', 'ETC/GMT', 'UCT', 'ZULU', 'UNIVERSAL']);

/** A wall-clock time: the calendar fields a clock in a zone shows. Months 1–12. */
interface WallTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's formatter, or undefined for UTC; refuses a zone the time-zone database does not know. */
function formatterOf(zone: string): Intl.DateTimeFormat | undefined {
  if (UTC_NAMES.has(zone.toUpperCase())) return undefined;
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new ValidationError(`Unknown time zone: ${zone}`);
    }
    if (formatters.size > 256) formatters.clear();
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Refuses a time zone neither UTC nor in the time-zone database (`Europe/Paris`, `America/New_York`). */
export function checkTimeZone(zone: string): void {
  formatterOf(zone);
}

/** The start of the bucket holding `time` (epoch milliseconds). */
export function calendarBucketStart(time: number, unit: CalendarUnit, zone: string): number {
  const formatter = formatterOf(zone);
  const wall = wallTimeOf(time, formatter);
  // A wall time the clock shows twice (it turned back) starts the bucket holding `time` at its later showing if that
  // one is not after `time`.
  const instants = instantsOf(truncate(wall, unit), formatter);
  return instants.filter((instant) => instant <= time).pop() ?? instants[0] ?? time;
}

/** The start of the bucket after the one starting at `start`. */
export function nextCalendarBucket(start: number, unit: CalendarUnit, zone: string): number {
  // Minutes and hours last the same everywhere: the next one starts one later, whatever the clock shows then (an hour
  // it shows twice is two buckets).
  if (unit === 'MINUTE' || unit === 'HOUR') {
    return calendarBucketStart(start + (unit === 'MINUTE' ? 60_000 : 3_600_000), unit, zone);
  }
  const formatter = formatterOf(zone);
  const wall = truncate(wallTimeOf(start, formatter), unit);
  const instant = instantsOf(advance(wall, unit), formatter).find((candidate) => candidate > start);
  // Never stand still, whatever a zone's history holds.
  return instant ?? start + 60_000;
}

function truncate(wall: WallTime, unit: CalendarUnit): WallTime {
  switch (unit) {
    case 'MINUTE':
      return wall;
    case 'HOUR':
      return { ...wall, minute: 0 };
    case 'DAY':
      return { ...wall, hour: 0, minute: 0 };
    case 'WEEK': {
      // ISO weeks start on Monday; getUTCDay counts from Sunday.
      const weekday = (new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay() + 6) % 7;
      return fromDays(Date.UTC(wall.year, wall.month - 1, wall.day) / 86_400_000 - weekday);
    }
    case 'MONTH':
      return { year: wall.year, month: wall.month, day: 1, hour: 0, minute: 0 };
    case 'QUARTER':
      return { year: wall.year, month: wall.month - ((wall.month - 1) % 3), day: 1, hour: 0, minute: 0 };
    case 'YEAR':
      return { year: wall.year, month: 1, day: 1, hour: 0, minute: 0 };
  }
}

function advance(wall: WallTime, unit: CalendarUnit): WallTime {
  switch (unit) {
    case 'MINUTE':
      return normalized({ ...wall, minute: wall.minute + 1 });
    case 'HOUR':
      return normalized({ ...wall, hour: wall.hour + 1 });
    case 'DAY':
      return normalized({ ...wall, day: wall.day + 1 });
    case 'WEEK':
      return normalized({ ...wall, day: wall.day + 7 });
    case 'MONTH':
      return normalized({ ...wall, month: wall.month + 1 });
    case 'QUARTER':
      return normalized({ ...wall, month: wall.month + 3 });
    case 'YEAR':
      return { ...wall, year: wall.year + 1 };
  }
}

/** A wall time with its fields carried over into range (minute 60 is the next hour's 0, and so on). */
function normalized(wall: WallTime): WallTime {
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute));
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
  };
}

function fromDays(days: number): WallTime {
  const date = new Date(days * 86_400_000);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: 0, minute: 0 };
}

/** The wall time at an instant, to the minute. */
function wallTimeOf(time: number, formatter: Intl.DateTimeFormat | undefined): WallTime {
  if (formatter === undefined) {
    const date = new Date(time);
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
    };
  }
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(time)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts['year'] ?? 1970,
    month: parts['month'] ?? 1,
    day: parts['day'] ?? 1,
    hour: parts['hour'] ?? 0,
    minute: parts['minute'] ?? 0,
  };
}

/** The zone's offset from UTC at an instant, in milliseconds (to the minute). */
function offsetAt(time: number, formatter: Intl.DateTimeFormat): number {
  const wall = wallTimeOf(time, formatter);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  return asUtc - (time - (((time % 60_000) + 60_000) % 60_000));
}

/**
 * The instants a wall time names in the zone, in time order: one; two where the clock turned back and shows it twice;
 * where the clock jumped over it, the instant it jumped at.
 */
function instantsOf(wall: WallTime, formatter: Intl.DateTimeFormat | undefined): number[] {
  const local = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  if (formatter === undefined) return [local];
  // The offsets in force a day either side cover any change of offset around the wall time.
  const offsets = new Set([
    offsetAt(local - 86_400_000, formatter),
    offsetAt(local, formatter),
    offsetAt(local + 86_400_000, formatter),
  ]);
  const candidates = [...offsets].map((offset) => local - offset).sort((a, b) => a - b);
  const valid = candidates.filter((candidate) => offsetAt(candidate, formatter) === local - candidate);
  if (valid.length > 0) return valid;
  // Skipped: the first minute whose wall time is at or past the one asked for.
  let before = candidates[0] ?? local;
  let after = candidates[candidates.length - 1] ?? local;
  const wallMillis = (time: number) => time + offsetAt(time, formatter);
  while (after - before > 60_000) {
    const middle = before + Math.floor((after - before) / 120_000) * 60_000;
    if (wallMillis(middle) >= local) after = middle;
    else before = middle;
  }
  return [after];
}

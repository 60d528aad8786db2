import { BadRequestError } from '@strata/model';

/**
 * The events API's offset ids, as DataHub writes them: Base64 of a JSON object mapping `<topic>-<partition>` to the
 * offset of the next record to read. An id holds every partition of the topic it was given for, so a client reads on
 * from it exactly where the previous poll stopped.
 */
export function encodeOffsetId(topic: string, positions: readonly { partition: number; offset: string }[]): string {
  const entries = positions.map(({ partition, offset }) => `${JSON.stringify(`${topic}-${partition}`)}:${offset}`);
  return Buffer.from(`{${entries.join(',')}}`, 'utf8').toString('base64');
}

/**
 * The positions an offset id holds for `topic` (entries of other topics are left out), partition → offset as a
 * decimal string (offsets are written as JSON numbers, and may exceed what a double holds exactly). A 400 for what is
 * not an offset id, with DataHub's words.
 */
export function decodeOffsetId(offsetId: string, topic: string): Map<number, string> {
  const refuse = (reason: string) =>
    new BadRequestError(`Failed to decode and parse offsetId: ${offsetId} (${reason})`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(offsetId)) throw refuse('not Base64');
  const text = Buffer.from(offsetId, 'base64').toString('utf8');
  // Offsets are kept as written: quoted before parsing, so that no digit is lost to a double.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/:\s*(-?[0-9]+)\s*([,}])/g, ':"$1"$2'));
  } catch {
    throw refuse('not a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refuse('not a JSON object');
  const positions = new Map<number, string>();
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const hyphen = key.lastIndexOf('-');
    const partition = key.slice(hyphen + 1);
    if (hyphen <= 0 || !/^[0-9]+$/.test(partition)) throw refuse(`invalid offset format: ${key}`);
    if (typeof value !== 'string' || !/^[0-9]+$/.test(value)) throw refuse(`invalid offset of ${key}`);
    if (key.slice(0, hyphen) === topic) positions.set(Number(partition), value.replace(/^0+(?=[0-9])/, ''));
  }
  return positions;
}

import { BadRequestError } from '@strata/model';
import type { PlatformEvent } from '@strata/events';

/** A platform event as a Rest.li client sends it: its payload's bytes as a string of the code points 0–255. */
export interface PlatformEventInput {
  readonly header: { readonly timestampMillis: number };
  readonly name: string;
  readonly payload: { readonly value: string; readonly contentType: string };
}

/**
 * The record of a platform event. Rest.li writes bytes as a string whose every character is one byte (U+0000 to
 * U+00FF); a character beyond is no byte, and is refused, as Rest.li refuses it.
 */
export function platformEventRecord(event: PlatformEventInput): PlatformEvent {
  const { value, contentType } = event.payload;
  for (let position = 0; position < value.length; position += 1) {
    if (value.charCodeAt(position) > 0xff) {
      throw new BadRequestError(
        `event.payload.value is not bytes: character ${position} (U+${value
          .charCodeAt(position)
          .toString(16)
          .toUpperCase()
          .padStart(4, '0')}) is beyond U+00FF; Rest.li writes each byte as one character`,
      );
    }
  }
  return {
    header: { timestampMillis: event.header.timestampMillis },
    name: event.name,
    payload: { value: Buffer.from(value, 'latin1'), contentType },
  };
}

/**
 * Actors DataHub names. `UNKNOWN_ACTOR_URN` acts for requests while authentication is off (DataHub shows it as the
 * creator of default aspects); `SYSTEM_ACTOR_URN` is recorded for proposals produced straight onto the log without one.
 */
export const UNKNOWN_ACTOR_URN = 'urn:li:corpuser:UNKNOWN';
export const SYSTEM_ACTOR_URN = 'urn:li:corpuser:__datahub_system';

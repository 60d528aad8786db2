/**
 * Builders of the requests clients send, shared by every level of test and by the bench: a proposal in the JSON shape
 * of `ingestProposal` (what the Python and Java emitters send), and the bodies around it.
 */

/** A proposal as clients send it: the aspect value is JSON text inside `aspect.value`. */
export interface ProposalJson {
  readonly entityType: string;
  readonly entityUrn: string;
  readonly changeType: string;
  readonly aspectName: string;
  readonly aspect?: { readonly value: string; readonly contentType: string };
  readonly systemMetadata?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ProposalOptions {
  /** Default `UPSERT`. */
  readonly changeType?: string;
  /** Default: the URN's entity type. */
  readonly entityType?: string;
  readonly systemMetadata?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
}

/** `urn:li:dataset:(urn:li:dataPlatform:<platform>,<name>,<origin>)`. */
export function datasetUrn(name: string, platform = 'hive', origin = 'PROD'): string {
  return `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${origin})`;
}

/** The entity type a URN names (`urn:li:<type>:…`), or '' when it names none. */
export function entityTypeOf(urn: string): string {
  return /^urn:li:([^:]+):/.exec(urn)?.[1] ?? '';
}

/**
 * A proposal of `value` for one aspect. The value is serialized as JSON text, as clients send it; a string is taken as
 * the text itself (to send malformed JSON); `undefined` sends no aspect (a DELETE).
 */
export function proposalOf(
  entityUrn: string,
  aspectName: string,
  value?: unknown,
  options: ProposalOptions = {},
): ProposalJson {
  return {
    entityType: options.entityType ?? entityTypeOf(entityUrn),
    entityUrn,
    changeType: options.changeType ?? 'UPSERT',
    aspectName,
    ...(value === undefined
      ? {}
      : {
          aspect: {
            value: typeof value === 'string' ? value : JSON.stringify(value),
            contentType: 'application/json',
          },
        }),
    ...(options.systemMetadata === undefined ? {} : { systemMetadata: options.systemMetadata }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  };
}

/** The body of `POST /aspects?action=ingestProposal`. */
export function ingestProposalBody(
  proposal: ProposalJson,
  options: { readonly async?: boolean | string } = {},
): { proposal: ProposalJson; async?: boolean | string } {
  return { proposal, ...(options.async === undefined ? {} : { async: options.async }) };
}

/** The body of `POST /aspects?action=ingestProposalBatch`. */
export function ingestProposalBatchBody(
  proposals: readonly ProposalJson[],
  options: { readonly async?: boolean | string } = {},
): { proposals: readonly ProposalJson[]; async?: boolean | string } {
  return { proposals, ...(options.async === undefined ? {} : { async: options.async }) };
}

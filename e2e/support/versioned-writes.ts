import type { TestHttpClient, TestResponse } from '@strata/testing';

/**
 * A stream of versions of one aspect, for durability tests: write `v1`, `v2`, … into a tag's description, then read
 * back every stored version to check that each acknowledged write is there exactly once and in order.
 */
export function writeVersion(http: TestHttpClient, tagUrn: string, sequence: number): Promise<TestResponse> {
  return http.post('/aspects?action=ingestProposal', {
    proposal: {
      entityType: 'tag',
      entityUrn: tagUrn,
      changeType: 'UPSERT',
      aspectName: 'tagProperties',
      aspect: { value: JSON.stringify({ name: tagUrn, description: `v${sequence}` }), contentType: 'application/json' },
    },
  });
}

/** Every stored version of the tag's properties, oldest first, as the descriptions written. */
export async function storedVersions(http: TestHttpClient, tagUrn: string): Promise<string[]> {
  const urn = encodeURIComponent(tagUrn);
  const latest = await http.get(`/entitiesV2/${urn}?aspects=List(tagProperties)`);
  const aspects = (latest.json as { aspects: Record<string, { systemMetadata?: { version?: string } }> }).aspects;
  const count = Number(aspects['tagProperties']?.systemMetadata?.version ?? 0);
  const descriptions: string[] = [];
  for (let version = 1; version <= count; version++) {
    // The earlier versions by their ordinals; the latest is version 0 only, as in DataHub.
    const asked = version === count ? 0 : version;
    const response = await http.get(`/aspects/${urn}?aspect=tagProperties&version=${asked}`);
    if (response.status !== 200) throw new Error(`version ${version} of ${tagUrn}: HTTP ${response.status}`);
    const value = (response.json as { aspect: Record<string, { description: string }> }).aspect[
      'com.linkedin.tag.TagProperties'
    ];
    descriptions.push(value?.description ?? '');
  }
  return descriptions;
}

/** `['v1', …, 'vN']`: what a gap-free, duplicate-free history of N versions reads as. */
export function sequenceOf(length: number): string[] {
  return Array.from({ length }, (_unused, index) => `v${index + 1}`);
}

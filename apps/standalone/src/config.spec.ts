import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderConfigReference } from '@strata/config';
import { gatewayConfigSchema } from '@strata/gateway';
import { metadataWriterConfigSchema } from '@strata/metadata-writer';
import { searchIndexerConfigSchema } from '@strata/search-indexer';
import { auditConfigSchema } from '@strata/audit';
import { timeseriesIndexerConfigSchema } from '@strata/timeseries-indexer';
import { operationsConfigSchema } from '@strata/operations';
import { loadStandaloneConfig, standaloneConfigSchema } from './config';
import { initConfigSchema } from './init-config';

describe('standalone configuration', () => {
  it('defaults to port 8080 on loopback with data under ./data, synchronous ingest', () => {
    expect(loadStandaloneConfig({})).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 8080,
      DATA_DIR: './data',
      ASYNC_INGEST_DEFAULT: false,
      INGESTION_MAX_SERIALIZED_STRING_LENGTH: 16_000_000,
      METADATA_CHANGE_PROPOSAL_TOPIC_NAME: 'MetadataChangeProposal_v1',
    });
  });

  it.each([
    ['standalone', standaloneConfigSchema],
    ['gateway', gatewayConfigSchema],
    ['metadata-writer', metadataWriterConfigSchema],
    ['search-indexer', searchIndexerConfigSchema],
    ['audit', auditConfigSchema],
    ['timeseries-indexer', timeseriesIndexerConfigSchema],
    ['operations', operationsConfigSchema],
    ['topic initialisation', initConfigSchema],
  ])('of the %s is documented key for key in docs/configuration.md', (_name, schema) => {
    const documentation = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'configuration.md'), 'utf8');
    const table = renderConfigReference(schema);
    // On failure, paste the table printed here into docs/configuration.md.
    expect(documentation).toContain(table);
  });
});

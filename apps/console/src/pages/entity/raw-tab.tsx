import { useState } from 'react';
import { Link } from 'react-router';
import { EmptyState, EntityLink, ErrorNotice, Loading, Time } from '../../ui/components';
import { latestOrdinalOf, writeOf, type StoredAspect } from '../../logic/entity-history';
import { latestAspectsPath, useRestRead, type LatestAspects } from './rest-reads';

/**
 * Every aspect of the entity as stored (the latest of each, `GET /entitiesV2/{urn}`), as pretty JSON, each one
 * collapsible and copyable. Timeseries aspects (profiles, usage) are not among them: the stats tab shows those.
 */
export function RawTab({ urn }: { readonly urn: string }) {
  const read = useRestRead<LatestAspects>(latestAspectsPath(urn));
  // Expanding or collapsing every aspect remounts them open or closed; each can then be toggled alone.
  const [layout, setLayout] = useState({ open: true, round: 0 });
  if (read.error !== undefined) return <ErrorNotice error={read.error} retry={read.refetch} />;
  if (read.data === undefined) return <Loading what="Loading the aspects" />;
  const aspects = Object.entries(read.data.aspects);
  return (
    <div className="entity-raw">
      <h2 className="visually-hidden">Raw aspects</h2>
      <p className="muted">
        The latest version of each aspect, as{' '}
        <a href={latestAspectsPath(urn)} target="_blank" rel="noopener noreferrer">
          GET /entitiesV2
          <span className="visually-hidden"> (opens in a new tab)</span>
        </a>{' '}
        answers it. Earlier versions are in the history.
      </p>
      {aspects.length === 0 ? (
        <EmptyState>No aspect is stored.</EmptyState>
      ) : (
        <div className="form-row">
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              setLayout((current) => ({ open: true, round: current.round + 1 }));
            }}
          >
            Expand all
          </button>
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              setLayout((current) => ({ open: false, round: current.round + 1 }));
            }}
          >
            Collapse all
          </button>
        </div>
      )}
      {aspects.map(([name, aspect]) => (
        <RawAspect key={`${name}-${layout.round}`} name={name} aspect={aspect} open={layout.open} />
      ))}
    </div>
  );
}

function RawAspect({
  name,
  aspect,
  open,
}: {
  readonly name: string;
  readonly aspect: StoredAspect;
  readonly open: boolean;
}) {
  const [copied, setCopied] = useState<'yes' | 'failed' | undefined>();
  const json = JSON.stringify(aspect.value, null, 2);
  const write = writeOf(aspect);
  const copy = () => {
    navigator.clipboard.writeText(json).then(
      () => {
        setCopied('yes');
      },
      () => {
        setCopied('failed');
      },
    );
  };
  return (
    <div className="raw-aspect card" data-testid="raw-aspect" data-aspect={name}>
      <details open={open}>
        <summary>
          <h3 className="raw-aspect-name mono">{name}</h3>
          <span className="muted raw-aspect-meta">
            v{latestOrdinalOf(aspect.systemMetadata?.version)}
            {write.time === undefined ? null : (
              <>
                {' · '}
                <Time millis={write.time} />
              </>
            )}
          </span>
        </summary>
        <div className="raw-aspect-tools">
          <button type="button" className="button button-small" onClick={copy}>
            Copy JSON<span className="visually-hidden"> of {name}</span>
          </button>
          <span role="status" className="muted">
            {copied === 'yes'
              ? 'Copied.'
              : copied === 'failed'
                ? 'The browser refused to copy: select the text instead.'
                : ''}
          </span>
          <span className="muted">
            {write.actor === undefined ? null : (
              <>
                by <EntityLink urn={write.actor} />
              </>
            )}
            {write.runId === undefined ? null : (
              <>
                {' '}
                in run{' '}
                <Link to={`/admin/runs/${encodeURIComponent(write.runId)}`} className="mono">
                  {write.runId}
                </Link>
              </>
            )}
          </span>
        </div>
        <pre tabIndex={0}>
          <code>{json}</code>
        </pre>
      </details>
    </div>
  );
}

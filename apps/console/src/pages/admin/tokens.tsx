import { useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useGql, useGqlMutation } from '../../api/graphql';
import { useCan, useSession } from '../../api/session';
import {
  createTokenInput,
  DEFAULT_TOKEN_DURATION,
  expiryOf,
  expiryText,
  isExpired,
  isTokenDuration,
  mayRevoke,
  TOKEN_DESCRIPTION_MAX,
  TOKEN_DURATIONS,
  TOKEN_NAME_MAX,
  tokenFilters,
  tokenFormProblems,
  TOKENS_PAGE_SIZE,
  tokensParams,
  tokensStateOf,
  type TokenForm,
  type TokensState,
} from '../../logic/admin-tokens';
import { EmptyState, EntityLink, ErrorNotice, Loading, PageTitle, Pager, Pill, Time } from '../../ui/components';
import { AdminFailure, AdminGate, CopyButton } from './admin-ui';

/**
 * `/admin/tokens`: personal access tokens over GraphQL (`createAccessToken`, `listAccessTokens`,
 * `revokeAccessToken`). A new token is shown once, with a copy button and a warning; the list shows one's own tokens,
 * or everyone's to a user with Manage Access Tokens, paged; revoking asks first. Scope and page in the URL.
 */
export function Component() {
  return (
    <AdminGate page="tokens">
      <Tokens />
    </AdminGate>
  );
}

const LIST_TOKENS = `query consoleAdminTokens($input: ListAccessTokenInput!) {
  listAccessTokens(input: $input) {
    start count total
    tokens { id name description actorUrn ownerUrn createdAt expiresAt }
  }
}`;

const CREATE_TOKEN = `mutation consoleAdminCreateToken($input: CreateAccessTokenInput!) {
  createAccessToken(input: $input) { accessToken metadata { id name actorUrn expiresAt } }
}`;

const REVOKE_TOKEN = `mutation consoleAdminRevokeToken($tokenId: String!) { revokeAccessToken(tokenId: $tokenId) }`;

interface TokenMetadata {
  id: string;
  name: string;
  description: string | null;
  actorUrn: string;
  ownerUrn: string;
  createdAt: number;
  expiresAt: number | null;
}

interface ListAnswer {
  listAccessTokens: { start: number; count: number; total: number; tokens: TokenMetadata[] };
}

interface CreateAnswer {
  createAccessToken: {
    accessToken: string;
    metadata: { id: string; name: string; actorUrn: string; expiresAt: number | null } | null;
  } | null;
}

function Tokens() {
  const session = useSession();
  const me = session.user?.urn ?? '';
  const canManage = useCan('manageTokens');
  const [params, setParams] = useSearchParams();
  const state = tokensStateOf(params, canManage);
  const update = (next: Partial<TokensState>) => {
    setParams(tokensParams({ ...state, ...next }));
  };
  const list = useGql<ListAnswer>(LIST_TOKENS, {
    input: { start: state.start, count: TOKENS_PAGE_SIZE, filters: tokenFilters(state.scope, me, canManage) },
  });
  const [made, setMade] = useState<CreateAnswer['createAccessToken']>(null);

  return (
    <>
      <PageTitle title="Access tokens">Access tokens</PageTitle>
      <p className="admin-lead">
        A personal access token lets the CLI, the SDK or a script act as a user: send it as{' '}
        <code>Authorization: Bearer &lt;token&gt;</code>. Revoke a token you no longer use.
      </p>
      <NewToken
        me={me}
        canManage={canManage}
        onMade={(answer) => {
          setMade(answer);
          list.refetch();
        }}
      />
      {made === null ? null : (
        <TokenOnce
          made={made}
          onDone={() => {
            setMade(null);
          }}
        />
      )}
      <section className="admin-section" aria-labelledby="tokens-title">
        <h2 id="tokens-title">{state.scope === 'all' ? 'Every user’s tokens' : 'Your tokens'}</h2>
        {canManage ? (
          <nav className="tabs" aria-label="Which tokens">
            {(['mine', 'all'] as const).map((scope) => (
              <Link
                key={scope}
                to={`?${tokensParams({ scope, start: 0 }).toString()}`}
                className={`tab${state.scope === scope ? ' active' : ''}`}
                aria-current={state.scope === scope ? 'page' : undefined}
              >
                {scope === 'mine' ? 'Acting as you' : 'Every user’s'}
              </Link>
            ))}
          </nav>
        ) : null}
        {list.error !== undefined ? (
          <AdminFailure page="tokens" error={list.error} retry={list.refetch} />
        ) : list.data === undefined ? (
          <Loading what="Loading tokens" />
        ) : list.data.listAccessTokens.tokens.length === 0 ? (
          <EmptyState>
            {state.start > 0 ? 'No tokens on this page.' : 'No access token yet: make one above.'}
          </EmptyState>
        ) : (
          <>
            <TokenTable
              tokens={list.data.listAccessTokens.tokens}
              me={me}
              canManage={canManage}
              busy={list.fetching}
              onRevoked={list.refetch}
            />
            <Pager
              start={state.start}
              count={TOKENS_PAGE_SIZE}
              total={list.data.listAccessTokens.total}
              onPage={(start) => {
                update({ start });
              }}
            />
          </>
        )}
      </section>
    </>
  );
}

function NewToken({
  me,
  canManage,
  onMade,
}: {
  readonly me: string;
  readonly canManage: boolean;
  readonly onMade: (answer: CreateAnswer['createAccessToken']) => void;
}) {
  const [form, setForm] = useState<TokenForm>({
    name: '',
    description: '',
    duration: DEFAULT_TOKEN_DURATION,
    actorUrn: '',
  });
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<unknown>();
  const [create, creating] = useGqlMutation<CreateAnswer>(CREATE_TOKEN);
  const problems = tokenFormProblems(form);
  const shown = touched ? problems : {};
  const expires = isTokenDuration(form.duration) ? expiryOf(form.duration, Date.now()) : null;

  async function submit(event: SyntheticEvent) {
    event.preventDefault();
    setTouched(true);
    if (Object.keys(problems).length > 0) return;
    setError(undefined);
    try {
      const answer = await create({ input: createTokenInput(form, me) });
      onMade(answer.createAccessToken);
      setForm({ name: '', description: '', duration: form.duration, actorUrn: '' });
      setTouched(false);
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <section className="admin-section" aria-labelledby="new-token-title">
      <h2 id="new-token-title">Make a token</h2>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <div className="admin-toolbar">
          <div className="admin-field">
            <label htmlFor="token-name">Name</label>
            <input
              id="token-name"
              value={form.name}
              maxLength={TOKEN_NAME_MAX}
              required
              aria-invalid={shown.name !== undefined}
              aria-describedby={shown.name === undefined ? undefined : 'token-name-error'}
              onChange={(event) => {
                setForm({ ...form, name: event.target.value });
              }}
            />
            {shown.name === undefined ? null : (
              <span id="token-name-error" className="form-error">
                {shown.name}
              </span>
            )}
          </div>
          <div className="admin-field admin-field-wide">
            <label htmlFor="token-description">
              Description <span className="admin-hint">optional: what uses it</span>
            </label>
            <input
              id="token-description"
              value={form.description}
              maxLength={TOKEN_DESCRIPTION_MAX}
              aria-invalid={shown.description !== undefined}
              onChange={(event) => {
                setForm({ ...form, description: event.target.value });
              }}
            />
            {shown.description === undefined ? null : <span className="form-error">{shown.description}</span>}
          </div>
          <div className="admin-field">
            <label htmlFor="token-duration">Works for</label>
            <select
              id="token-duration"
              value={form.duration}
              onChange={(event) => {
                setForm({ ...form, duration: event.target.value });
              }}
              aria-describedby="token-expiry"
            >
              {TOKEN_DURATIONS.map((duration) => (
                <option key={duration.value} value={duration.value}>
                  {duration.label}
                </option>
              ))}
            </select>
            <span id="token-expiry" className="admin-hint">
              {expires === null ? (
                'It never expires: revoke it when it is no longer needed.'
              ) : (
                <>
                  Until <Time millis={expires} />
                </>
              )}
            </span>
          </div>
          {canManage ? (
            <div className="admin-field">
              <label htmlFor="token-actor">
                Acting as <span className="admin-hint">a user URN; empty: you</span>
              </label>
              <input
                id="token-actor"
                value={form.actorUrn}
                placeholder={me}
                aria-invalid={shown.actorUrn !== undefined}
                onChange={(event) => {
                  setForm({ ...form, actorUrn: event.target.value });
                }}
              />
              {shown.actorUrn === undefined ? null : <span className="form-error">{shown.actorUrn}</span>}
            </div>
          ) : null}
          <button type="submit" className="button button-primary" disabled={creating}>
            Make token
          </button>
        </div>
      </form>
      {creating ? <Loading what="Making the token" /> : null}
      {error === undefined ? null : <AdminFailure page="tokens" error={error} />}
    </section>
  );
}

/** The new token, shown once: a copy button and the warning that it cannot be shown again. */
function TokenOnce({
  made,
  onDone,
}: {
  readonly made: NonNullable<CreateAnswer['createAccessToken']>;
  readonly onDone: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="token-once" aria-labelledby="token-once-title" data-testid="token-once">
      <h2 id="token-once-title" ref={heading} tabIndex={-1}>
        Your new token{made.metadata === null ? '' : `: ${made.metadata.name}`}
      </h2>
      <p className="token-warning">
        Copy it now: it will not be shown again. Strata keeps only its metadata; if you lose it, revoke it and make
        another.
      </p>
      <label htmlFor="token-value">Token</label>
      <textarea
        id="token-value"
        readOnly
        value={made.accessToken}
        onFocus={(event) => {
          event.target.select();
        }}
      />
      <div className="confirm-row">
        <CopyButton text={made.accessToken} label="Copy token" />
        <button type="button" className="button button-quiet" onClick={onDone}>
          I have copied it
        </button>
      </div>
      {made.metadata === null ? null : <p className="muted">{expiryText(made.metadata.expiresAt, Date.now())}.</p>}
    </section>
  );
}

function TokenTable({
  tokens,
  me,
  canManage,
  busy,
  onRevoked,
}: {
  readonly tokens: readonly TokenMetadata[];
  readonly me: string;
  readonly canManage: boolean;
  readonly busy: boolean;
  readonly onRevoked: () => void;
}) {
  const now = Date.now();
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Access tokens" aria-busy={busy}>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Acting as</th>
            <th scope="col">Made by</th>
            <th scope="col">Made</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => (
            <TokenRow
              key={token.id}
              token={token}
              now={now}
              revocable={mayRevoke(token, me, canManage)}
              onRevoked={onRevoked}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A token the server stored for a sign-in (named "Session"), rather than one a user made. */
function isSession(token: TokenMetadata): boolean {
  return token.name === 'Session' && token.description === 'Signed in with a password';
}

function TokenRow({
  token,
  now,
  revocable,
  onRevoked,
}: {
  readonly token: TokenMetadata;
  readonly now: number;
  readonly revocable: boolean;
  readonly onRevoked: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>();
  const [revoke, revoking] = useGqlMutation<{ revokeAccessToken: boolean }>(REVOKE_TOKEN);
  async function confirm() {
    setError(undefined);
    try {
      await revoke({ tokenId: token.id });
      setConfirming(false);
      onRevoked();
    } catch (failure) {
      setError(failure);
    }
  }
  return (
    <tr data-testid="token-row">
      <td className="wrap-anywhere">
        <strong>{token.name}</strong>{' '}
        {isSession(token) ? <Pill title="Made when the user signed in">sign-in session</Pill> : null}
        {token.description ? <div className="muted">{token.description}</div> : null}
        <div className="muted mono">{token.id}</div>
      </td>
      <td className="wrap-anywhere">
        <EntityLink urn={token.actorUrn} />
      </td>
      <td className="wrap-anywhere">
        <EntityLink urn={token.ownerUrn} />
      </td>
      <td className="nowrap">
        <Time millis={token.createdAt} />
      </td>
      <td>
        {isExpired(token.expiresAt, now) ? (
          <Pill kind="danger">expired</Pill>
        ) : token.expiresAt === null ? (
          <Pill kind="warning">never</Pill>
        ) : (
          <>
            <Time millis={token.expiresAt} />
            <div className="muted">{expiryText(token.expiresAt, now)}</div>
          </>
        )}
      </td>
      <td>
        {!revocable ? null : confirming ? (
          <div className="confirm-row" role="group" aria-label={`Revoke ${token.name}?`}>
            <span>
              {isSession(token)
                ? 'Revoke? That session is signed out (if it is this browser’s, you are).'
                : 'Revoke? Anything using it stops working.'}
            </span>
            <button
              type="button"
              className="button button-danger button-small"
              disabled={revoking}
              onClick={() => void confirm()}
            >
              Revoke token
            </button>
            <button
              type="button"
              className="button button-quiet button-small"
              disabled={revoking}
              onClick={() => {
                setConfirming(false);
              }}
            >
              Keep it
            </button>
          </div>
        ) : (
          <button
            type="button"
            className="button button-danger button-small"
            onClick={() => {
              setConfirming(true);
            }}
          >
            Revoke <span className="visually-hidden">{token.name}</span>
          </button>
        )}
        {error === undefined ? null : <ErrorNotice error={error} />}
      </td>
    </tr>
  );
}

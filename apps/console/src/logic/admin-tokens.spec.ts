import {
  createTokenInput,
  expiryOf,
  expiryText,
  isExpired,
  isTokenDuration,
  mayRevoke,
  TOKEN_DURATIONS,
  tokenFilters,
  tokenFormProblems,
  tokensParams,
  tokensStateOf,
} from './admin-tokens';

const NOW = 1_800_000_000_000;
const DAY = 86_400_000;

describe('token durations', () => {
  it('offers GraphQL AccessTokenDuration values, shortest first, ending with never', () => {
    expect(TOKEN_DURATIONS.map((duration) => duration.value)).toEqual([
      'ONE_HOUR',
      'ONE_DAY',
      'ONE_WEEK',
      'ONE_MONTH',
      'THREE_MONTHS',
      'SIX_MONTHS',
      'ONE_YEAR',
      'NO_EXPIRY',
    ]);
    expect(isTokenDuration('ONE_WEEK')).toBe(true);
    expect(isTokenDuration('FOREVER')).toBe(false);
  });

  it('computes the expiry of each, as the server does (a month is 30 days)', () => {
    expect(expiryOf('ONE_HOUR', NOW)).toBe(NOW + 3_600_000);
    expect(expiryOf('ONE_MONTH', NOW)).toBe(NOW + 30 * DAY);
    expect(expiryOf('ONE_YEAR', NOW)).toBe(NOW + 365 * DAY);
    expect(expiryOf('NO_EXPIRY', NOW)).toBeNull();
  });

  it('says expiry in words', () => {
    expect(expiryText(null, NOW)).toBe('Never expires');
    expect(expiryText(NOW - 1, NOW)).toBe('Expired');
    expect(expiryText(NOW + 10 * 60_000, NOW)).toBe('Expires in 10 min');
    expect(expiryText(NOW + 5 * 3_600_000, NOW)).toBe('Expires in 5 h');
    expect(expiryText(NOW + DAY, NOW)).toBe('Expires in 1 day');
    expect(expiryText(NOW + 30 * DAY, NOW)).toBe('Expires in 30 days');
    expect(isExpired(NOW, NOW)).toBe(true);
    expect(isExpired(null, NOW)).toBe(false);
  });
});

describe('the token form', () => {
  const form = { name: ' ci ', description: ' for CI ', duration: 'ONE_WEEK', actorUrn: '' };

  it('needs a name and a known duration, and a user URN when acting as someone else', () => {
    expect(tokenFormProblems(form)).toEqual({});
    expect(tokenFormProblems({ ...form, name: '  ' }).name).toMatch(/name/);
    expect(tokenFormProblems({ ...form, name: 'x'.repeat(101) }).name).toMatch(/100/);
    expect(tokenFormProblems({ ...form, duration: 'SOON' }).duration).toBeDefined();
    expect(tokenFormProblems({ ...form, actorUrn: 'jdoe' }).actorUrn).toMatch(/urn:li:corpuser/);
    expect(tokenFormProblems({ ...form, description: 'x'.repeat(501) }).description).toBeDefined();
  });

  it('makes the createAccessToken input, for oneself by default', () => {
    expect(createTokenInput(form, 'urn:li:corpuser:me')).toEqual({
      type: 'PERSONAL',
      actorUrn: 'urn:li:corpuser:me',
      name: 'ci',
      duration: 'ONE_WEEK',
      description: 'for CI',
    });
    expect(
      createTokenInput({ ...form, description: '', actorUrn: 'urn:li:corpuser:bot' }, 'urn:li:corpuser:me'),
    ).toEqual({ type: 'PERSONAL', actorUrn: 'urn:li:corpuser:bot', name: 'ci', duration: 'ONE_WEEK' });
  });
});

describe('token lists', () => {
  it('shows everyone’s only to a manager, and keeps scope and page in the URL', () => {
    const params = new URLSearchParams('scope=all&start=20');
    expect(tokensStateOf(params, true)).toEqual({ scope: 'all', start: 20 });
    expect(tokensStateOf(params, false)).toEqual({ scope: 'mine', start: 20 });
    expect(tokensParams({ scope: 'all', start: 20 }).toString()).toBe('scope=all&start=20');
    expect(tokensParams({ scope: 'mine', start: 0 }).toString()).toBe('');
  });

  it('filters a manager’s own tokens on the actor, and leaves the rest to the server', () => {
    expect(tokenFilters('mine', 'urn:li:corpuser:me', true)).toEqual([
      { field: 'actorUrn', values: ['urn:li:corpuser:me'], condition: 'EQUAL' },
    ]);
    expect(tokenFilters('all', 'urn:li:corpuser:me', true)).toEqual([]);
    expect(tokenFilters('mine', 'urn:li:corpuser:me', false)).toEqual([]);
  });

  it('lets the maker or a manager revoke', () => {
    const token = { ownerUrn: 'urn:li:corpuser:me' };
    expect(mayRevoke(token, 'urn:li:corpuser:me', false)).toBe(true);
    expect(mayRevoke(token, 'urn:li:corpuser:other', false)).toBe(false);
    expect(mayRevoke(token, 'urn:li:corpuser:other', true)).toBe(true);
    expect(mayRevoke(token, undefined, false)).toBe(false);
  });
});

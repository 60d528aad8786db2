import {
  checkDeprecation,
  checkLinkLabel,
  checkLinkUrl,
  dateOfMillis,
  descriptionChanged,
  descriptionToSend,
  domainUrnOfInput,
  millisOfDate,
  ownerEntityTypeOf,
  ownerOfInput,
  ownershipTypeLabel,
  ownershipTypeUrnOf,
  removalTypeUrnOf,
  tagOfInput,
  termUrnOfInput,
} from './curation-inputs';

describe('links', () => {
  it.each(['https://wiki.example.com/orders', 'http://intranet/page?q=1#top', '  https://example.com  '])(
    'accepts the http(s) URL %s',
    (url) => {
      expect(checkLinkUrl(url)).toEqual({ ok: true, value: url.trim() });
    },
  );

  it.each([
    ['', 'Enter the link’s URL.'],
    ['javascript:alert(1)', 'Only http and https links can be added.'],
    ['data:text/html,<b>x</b>', 'Only http and https links can be added.'],
    ['ftp://files.example.com/x', 'Only http and https links can be added.'],
    ['mailto:someone@example.com', 'Only http and https links can be added.'],
    ['wiki.example.com/orders', 'Enter a full URL, starting with https:// or http://.'],
    ['https://exa mple.com', 'A URL may not contain spaces.'],
    [`https://example.com/${'a'.repeat(2000)}`, 'A URL may have at most 2000 characters.'],
  ])('refuses %j', (url, error) => {
    expect(checkLinkUrl(url)).toEqual({ ok: false, error });
  });

  it('labels a link by its URL when no label is given, trims a label, refuses a long one', () => {
    expect(checkLinkLabel('  ', 'https://x.example')).toEqual({ ok: true, value: 'https://x.example' });
    expect(checkLinkLabel(' Runbook ', 'https://x.example')).toEqual({ ok: true, value: 'Runbook' });
    expect(checkLinkLabel('x'.repeat(201), 'https://x.example').ok).toBe(false);
  });
});

describe('tags, terms and domains', () => {
  it('makes a tag URN from a name, and takes a tag URN as it is', () => {
    expect(tagOfInput(' pii ')).toEqual({ ok: true, value: { urn: 'urn:li:tag:pii', name: 'pii' } });
    expect(tagOfInput('urn:li:tag:Legacy')).toEqual({ ok: true, value: { urn: 'urn:li:tag:Legacy', name: 'Legacy' } });
    expect(tagOfInput('Needs review')).toEqual({
      ok: true,
      value: { urn: 'urn:li:tag:Needs review', name: 'Needs review' },
    });
  });

  it.each([
    ['', 'Enter a tag name.'],
    ['urn:li:tag:', 'Enter a tag name.'],
    ['urn:li:glossaryTerm:x', 'A tag URN starts with urn:li:tag:.'],
    ['a,b', 'A tag name may not contain parentheses or commas.'],
    ['(x)', 'A tag name may not contain parentheses or commas.'],
    ['a\u0007b', 'A tag name may not contain control characters.'],
  ])('refuses the tag %j', (text, error) => {
    expect(tagOfInput(text)).toEqual({ ok: false, error });
  });

  it('names terms and domains by URN or id', () => {
    expect(termUrnOfInput('Classification.PII')).toEqual({ ok: true, value: 'urn:li:glossaryTerm:Classification.PII' });
    expect(termUrnOfInput('urn:li:glossaryTerm:abc')).toEqual({ ok: true, value: 'urn:li:glossaryTerm:abc' });
    expect(termUrnOfInput('urn:li:tag:abc').ok).toBe(false);
    expect(domainUrnOfInput('finance')).toEqual({ ok: true, value: 'urn:li:domain:finance' });
    expect(domainUrnOfInput('urn:li:domain:finance')).toEqual({ ok: true, value: 'urn:li:domain:finance' });
    expect(domainUrnOfInput('urn:li:dataset:x').ok).toBe(false);
    expect(domainUrnOfInput(' ').ok).toBe(false);
  });
});

describe('owners', () => {
  it('takes a user or group URN, or a bare user name', () => {
    expect(ownerOfInput('jdoe')).toEqual({ ok: true, value: { urn: 'urn:li:corpuser:jdoe', entityType: 'CORP_USER' } });
    expect(ownerOfInput('urn:li:corpuser:jdoe@example.com')).toEqual({
      ok: true,
      value: { urn: 'urn:li:corpuser:jdoe@example.com', entityType: 'CORP_USER' },
    });
    expect(ownerOfInput('urn:li:corpGroup:data-platform')).toEqual({
      ok: true,
      value: { urn: 'urn:li:corpGroup:data-platform', entityType: 'CORP_GROUP' },
    });
  });

  it.each([
    ['', 'Enter a user name.'],
    ['john doe', 'A user name may not contain spaces.'],
    ['urn:li:tag:pii', 'An owner is a user (urn:li:corpuser:…) or a group (urn:li:corpGroup:…).'],
    ['urn:li:corpGroup:', 'Enter a group name.'],
  ])('refuses the owner %j', (text, error) => {
    expect(ownerOfInput(text)).toEqual({ ok: false, error });
  });

  it('names ownership types and the type a removal names', () => {
    expect(ownerEntityTypeOf('urn:li:corpGroup:x')).toBe('CORP_GROUP');
    expect(ownerEntityTypeOf('urn:li:corpuser:x')).toBe('CORP_USER');
    expect(ownershipTypeUrnOf('TECHNICAL_OWNER')).toBe('urn:li:ownershipType:__system__technical_owner');
    expect(ownershipTypeLabel('urn:li:ownershipType:__system__data_steward')).toBe('Data steward');
    expect(ownershipTypeLabel('BUSINESS_OWNER')).toBe('Business owner');
    expect(ownershipTypeLabel('urn:li:ownershipType:architect')).toBe('Architect');
    expect(ownershipTypeLabel(undefined)).toBeUndefined();
    expect(removalTypeUrnOf({ ownershipTypeUrn: 'urn:li:ownershipType:x', type: 'NONE' })).toBe(
      'urn:li:ownershipType:x',
    );
    expect(removalTypeUrnOf({ type: 'DATA_STEWARD' })).toBe('urn:li:ownershipType:__system__data_steward');
    expect(removalTypeUrnOf({})).toBeUndefined();
  });
});

describe('deprecation', () => {
  it('sends a note and an optional day; un-deprecating sends neither', () => {
    expect(checkDeprecation({ deprecated: true, note: ' Use orders_v2 ', date: '' })).toEqual({
      ok: true,
      value: { deprecated: true, note: 'Use orders_v2', decommissionTime: null },
    });
    expect(checkDeprecation({ deprecated: true, note: '', date: '2030-01-31' })).toEqual({
      ok: true,
      value: { deprecated: true, note: '', decommissionTime: Date.UTC(2030, 0, 31) },
    });
    expect(checkDeprecation({ deprecated: false, note: 'ignored', date: 'nonsense' })).toEqual({
      ok: true,
      value: { deprecated: false, note: '', decommissionTime: null },
    });
  });

  it('refuses a day that is not one, and a note too long', () => {
    expect(checkDeprecation({ deprecated: true, note: '', date: '2030-02-30' }).ok).toBe(false);
    expect(checkDeprecation({ deprecated: true, note: '', date: '31/01/2030' }).ok).toBe(false);
    expect(checkDeprecation({ deprecated: true, note: 'x'.repeat(5001), date: '' }).ok).toBe(false);
  });

  it('converts days and epoch milliseconds both ways (UTC)', () => {
    expect(millisOfDate('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(millisOfDate('2023-02-29')).toBeUndefined();
    expect(dateOfMillis(Date.UTC(2024, 1, 29, 15))).toBe('2024-02-29');
    expect(dateOfMillis(0)).toBe('');
    expect(dateOfMillis(null)).toBe('');
  });
});

describe('descriptions', () => {
  it('drops trailing whitespace and compares as sent', () => {
    expect(descriptionToSend('Orders\n\n')).toBe('Orders');
    expect(descriptionChanged('Orders', 'Orders  \n')).toBe(false);
    expect(descriptionChanged(null, '')).toBe(false);
    expect(descriptionChanged(undefined, 'New')).toBe(true);
  });
});

import { BadRequestError } from '@strata/model';
import { maxSemanticChange, parseCategories, parseCategory } from './change-event';

describe('parseCategory', () => {
  it.each([
    ['TAG', 'TAG'],
    ['tag', 'TAG'],
    ['OWNERSHIP', 'OWNERSHIP'],
    ['OWNER', 'OWNERSHIP'],
    ['owner', 'OWNERSHIP'],
    ['technical_schema', 'TECHNICAL_SCHEMA'],
    ['Technical Schema', 'TECHNICAL_SCHEMA'],
    ['technical-schema', 'TECHNICAL_SCHEMA'],
    ['GLOSSARY_TERM', 'GLOSSARY_TERM'],
    ['structured property', 'STRUCTURED_PROPERTY'],
    ['asset-membership', 'ASSET_MEMBERSHIP'],
    [' lifecycle ', 'LIFECYCLE'],
  ])('given %p, when read, then it is %s', (text, category) => {
    expect(parseCategory(text)).toBe(category);
  });

  it('given a name that is no category, when read, then it is a bad request naming the categories', () => {
    expect(() => parseCategory('TAGS')).toThrow(BadRequestError);
    expect(() => parseCategory('TAGS')).toThrow(/Invalid value 'TAGS' for parameter 'categories'.*DOCUMENTATION/);
  });
});

describe('parseCategories', () => {
  it('given comma lists and repeated values, when read, then the categories come in the order first named, once each', () => {
    expect(parseCategories(['TAG,OWNER', 'documentation', 'OWNERSHIP,TAG'])).toEqual([
      'TAG',
      'OWNERSHIP',
      'DOCUMENTATION',
    ]);
  });

  it('given empty items, when read, then they are skipped', () => {
    expect(parseCategories(['TAG,', ',OWNER'])).toEqual(['TAG', 'OWNERSHIP']);
  });

  it('given no category at all, when read, then it is the bad request DataHub answers for a missing parameter', () => {
    expect(() => parseCategories([])).toThrow(
      "Required request parameter 'categories' for method parameter type Set is not present",
    );
    expect(() => parseCategories([''])).toThrow(BadRequestError);
  });

  it('given one unknown category among known ones, when read, then the whole request is refused', () => {
    expect(() => parseCategories(['TAG,NOPE'])).toThrow(BadRequestError);
  });
});

describe('maxSemanticChange', () => {
  it('orders NONE < PATCH < MINOR < MAJOR < EXCEPTIONAL', () => {
    expect(maxSemanticChange('PATCH', 'MINOR')).toBe('MINOR');
    expect(maxSemanticChange('MAJOR', 'MINOR')).toBe('MAJOR');
    expect(maxSemanticChange('NONE', 'NONE')).toBe('NONE');
    expect(maxSemanticChange('EXCEPTIONAL', 'MAJOR')).toBe('EXCEPTIONAL');
  });
});

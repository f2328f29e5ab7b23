import { isId, newId, ulid } from './id.js';

describe('ids', () => {
  it('are <prefix>_<26 Crockford base32 chars>', () => {
    expect(newId('survey')).toMatch(/^sur_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newId('surveyStep')).toMatch(/^step_/);
    expect(newId('orderItem')).toMatch(/^oli_/);
  });

  it('sort by creation time, also within one millisecond', () => {
    const ids = Array.from({ length: 2000 }, () => newId('event'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ulid(1_000) < ulid(2_000)).toBe(true);
  });

  it('isId checks the prefix and the body', () => {
    const id = newId('business');
    expect(isId('business', id)).toBe(true);
    expect(isId('survey', id)).toBe(false);
    expect(isId('business', 'bus_short')).toBe(false);
    expect(isId('business', `${id}x`)).toBe(false);
    expect(isId('business', 42)).toBe(false);
  });
});

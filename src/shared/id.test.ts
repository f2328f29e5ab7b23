import { idAt, idFor, idTime, isId, newId, ulid } from './id.js';

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

  it('carry their time: idTime reads it back, idAt is a prefix that sorts first among the ids of its millisecond', () => {
    const ms = Date.UTC(2026, 10, 30);
    expect(idTime(newId('event'))).toBeGreaterThanOrEqual(Date.now() - 1_000);
    expect(idTime(idAt('event', ms))).toBe(ms);
    expect(idTime(idFor('webhookDelivery', ms, 'k'))).toBe(ms);
    expect(idAt('event', ms) < idFor('event', ms, 'a')).toBe(true);
    expect(idFor('event', ms - 1, 'b') < idAt('event', ms)).toBe(true);
    expect(idTime('evt_flag_1')).toBeUndefined();
  });

  it('idFor makes the same id of the same key, a well-formed one', () => {
    const ms = Date.UTC(2026, 10, 30, 12);
    expect(idFor('webhookDelivery', ms, 'evt_1 wh_1')).toBe(idFor('webhookDelivery', ms, 'evt_1 wh_1'));
    expect(idFor('webhookDelivery', ms, 'evt_1 wh_2')).not.toBe(idFor('webhookDelivery', ms, 'evt_1 wh_1'));
    expect(isId('webhookDelivery', idFor('webhookDelivery', ms, 'x'))).toBe(true);
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

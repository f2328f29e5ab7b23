import { normaliseChannel, normaliseCurrency, normaliseEmail, normalisePhone, parseMoney } from './order-normalise.rules.js';

describe('normaliseChannel', () => {
  it.each([
    ['website', 'WEBSITE'],
    [' Android ', 'ANDROID'],
    ['iOS', 'IOS'],
    ['call in', 'CALL-IN'],
    ['Call_In', 'CALL-IN'],
    ['CALL-IN', 'CALL-IN'],
    ['call - in', 'CALL-IN'],
    ['qr', 'QR'],
    ['FoodPanda', 'FOODPANDA'],
    ['golootlo', 'GOLOOTLO'],
    // Every spelling integrators use: spaces, hyphens and underscores do not count.
    ['Food Panda', 'FOODPANDA'],
    ['food_panda', 'FOODPANDA'],
    ['food-panda', 'FOODPANDA'],
    ['callin', 'CALL-IN'],
    ['Call-In', 'CALL-IN'],
    ['Web Site', 'WEBSITE'],
    ['go_lootlo', 'GOLOOTLO'],
    ['Q R', 'QR'],
    ['I-O-S', 'IOS'],
    ['uber eats', 'OTHER'],
    ['web', 'OTHER'],
    ['other', 'OTHER'],
  ])('%j -> %s', (input, expected) => expect(normaliseChannel(input)).toBe(expected));

  it('leaves an absent or blank channel unset', () => {
    expect(normaliseChannel(undefined)).toBeNull();
    expect(normaliseChannel(null)).toBeNull();
    expect(normaliseChannel('  ')).toBeNull();
  });
});

describe('parseMoney', () => {
  it.each<[unknown, number]>([
    ['Rs. 1,250.00', 1250],
    ['1250', 1250],
    ['$12.50', 12.5],
    ['PKR 1 000', 1000],
    ['1.250,75 €', 1250.75],
    ['12,5', 12.5],
    ['1,234,567.891', 1234567.891],
    ['0.00001', 0],
    [99.99, 99.99],
    [0, 0],
  ])('%j -> %d', (input, expected) => expect(parseMoney(input)).toEqual({ value: expected }));

  it.each<[unknown, RegExp]>([
    ['abc', /no digits/],
    ['Rs.', /no digits/],
    ['', /no digits/],
    ['-5', /negative/],
    [-1, /negative/],
    ['12abc34', /not an amount/],
    [Number.NaN, /finite/],
    [true, /number or a money string/],
    [1e16, /too large/],
  ])('%j is refused', (input, message) => expect(parseMoney(input).error).toMatch(message));
});

describe('normaliseCurrency', () => {
  it('accepts ISO 4217 codes in any case', () => {
    expect(normaliseCurrency('PKR')).toEqual({ value: 'PKR' });
    expect(normaliseCurrency(' usd ')).toEqual({ value: 'USD' });
  });
  it('refuses unknown, empty and non-string values', () => {
    expect(normaliseCurrency('XYZ').error).toBe("'XYZ' is not an ISO 4217 code");
    expect(normaliseCurrency('').error).toMatch(/required/);
    expect(normaliseCurrency(840).error).toMatch(/required/);
  });
});

describe('normaliseEmail', () => {
  it('trims and lower-cases a valid address', () => expect(normaliseEmail('  Ali@Example.COM ')).toBe('ali@example.com'));
  it.each(['not-an-email', 'a@b', '@example.com', ''])('drops %j', (input) => expect(normaliseEmail(input)).toBeNull());
  it('keeps absence as null', () => expect(normaliseEmail(undefined)).toBeNull());
});

describe('normalisePhone', () => {
  it('reads a national number in the business country as E.164', () => {
    expect(normalisePhone('0300 1234567', 'PK')).toBe('+923001234567');
    expect(normalisePhone('(020) 7946 0958', 'GB')).toBe('+442079460958');
  });
  it('keeps an international number whatever the country', () => {
    expect(normalisePhone('+1 415 555 2671', 'PK')).toBe('+14155552671');
    expect(normalisePhone('+92 300 1234567', null)).toBe('+923001234567');
  });
  it('drops a value over 64 characters, even one that would parse', () => {
    expect(normalisePhone('+92 300 1234567'.padEnd(64), null)).toBe('+923001234567');
    expect(normalisePhone('+92 300 1234567'.padEnd(65), null)).toBeNull();
  });
  it.each([
    ['123', 'PK'],
    ['0300 1234567', null],
    ['phone', 'PK'],
    ['', 'PK'],
  ])('drops %j (country %s)', (input, country) => expect(normalisePhone(input, country)).toBeNull());
});

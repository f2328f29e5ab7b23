import fc from 'fast-check';
import pg from 'pg';
import { parseTimestamptz } from './entity.rows.js';

const general = pg.types.getTypeParser(1184) as (text: string) => Date;

/** PostgreSQL's text form of a timestamptz in a UTC session: microseconds, trailing zeros dropped, "+00". */
function pgText(ms: number, micros: number): string {
  const iso = new Date(ms).toISOString();
  const fraction = String((((ms % 1000) + 1000) % 1000) * 1000 + micros)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
}

describe('parseTimestamptz', () => {
  it('gives the instant node-postgres gives for every UTC timestamp PostgreSQL prints', () => {
    const instants = fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });
    fc.assert(
      fc.property(instants, fc.integer({ min: 0, max: 999 }), (ms, micros) => {
        const text = pgText(ms, micros);
        expect(parseTimestamptz(text).getTime()).toBe(general(text).getTime());
      }),
      { numRuns: 5_000 },
    );
  });

  it('leaves other offsets, BC dates, years before 100 and infinity to the general parser', () => {
    for (const text of [
      '2026-11-25 17:34:56.5+05',
      '2026-03-29 01:30:00-04:30',
      '0044-03-15 12:00:00+00 BC',
      '0044-03-15 12:00:00.25+00',
      'infinity',
      '-infinity',
    ]) {
      expect(String(parseTimestamptz(text))).toBe(String(general(text)));
    }
  });
});

import {
  bucketIndex,
  distributionOf,
  histogram,
  menuItemFigures,
  rankGroups,
  metricFigures,
  npsFigures,
  previousRange,
  quartiles,
  type RollupSums,
} from './analytics.presenter.js';

const sums = (low: number[], extra: Partial<RollupSums> = {}): RollupSums => {
  const n = low.reduce((a, c) => a + c, 0);
  const s = low.reduce((a, c, v) => a + c * v, 0);
  const q = low.reduce((a, c, v) => a + c * v * v, 0);
  return { keys: [], day: 0, period: 0, n, s, q, top: 0, low, ...extra };
};

describe('analytics figures', () => {
  it('reads quartiles from a histogram: the lowest value whose cumulative count reaches p × n', () => {
    expect(quartiles([0, 0, 1, 0, 0, 1], 2)).toEqual([2, 2, 5]);
    expect(quartiles([0, 0, 0], 0)).toEqual([null, null, null]);
  });

  it('merges the wide part of a histogram (values above 10) into dense counts', () => {
    const counts = histogram(sums([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], { high: { 12: 3 } }));
    expect(counts).toHaveLength(13);
    expect(counts[11]).toBe(0);
    expect(counts[12]).toBe(3);
  });

  it('shows a metric scale whole (zeros included), and only the values seen when rows mix metrics', () => {
    expect(distributionOf([0, 1, 0, 2], { min: 1, max: 5 })).toEqual({ 1: 1, 2: 0, 3: 2, 4: 0, 5: 0 });
    expect(distributionOf([0, 1, 0, 2], undefined)).toEqual({ 1: 1, 2: 0, 3: 2 });
  });

  it('computes a metric row: mean, sample stddev, quartiles, CSAT, its keys, its distribution on demand', () => {
    const row = metricFigures(
      sums([0, 0, 1, 0, 0, 1], { keys: ['mtr_1', ''], top: 1 }),
      new Map([['mtr_1', { min: 1, max: 5 }]]),
      ['metric', 'location'],
      null,
    );
    expect(row).toMatchObject({ metric: 'mtr_1', location: null, count: 2, mean: 3.5, median: 2, p25: 2, p75: 5, csat: 0.5 });
    expect(row.stddev).toBeCloseTo(Math.sqrt(4.5));
    expect(row.distribution).toEqual({ 1: 0, 2: 1, 3: 0, 4: 0, 5: 1 });
  });

  it('counts NPS promoters (9, 10), detractors (0 to 6) and passives', () => {
    expect(npsFigures(sums([1, 0, 0, 0, 0, 0, 1, 1, 0, 2, 1]), [])).toMatchObject({ count: 6, promoters: 3, detractors: 2, passives: 1, score: (1 / 6) * 100 });
  });

  it('lines a bucket up with the same one of the previous range', () => {
    const before = previousRange({ fromDay: '2026-03-01', lastDay: '2026-03-31' });
    expect(before).toEqual({ fromDay: '2026-01-29', lastDay: '2026-02-28' });
    const day = (d: string) => Date.UTC(+d.slice(0, 4), +d.slice(5, 7) - 1, +d.slice(8, 10)) / 86_400_000;
    expect(bucketIndex('day', '2026-03-01', day('2026-03-03'))).toBe(2);
    expect(bucketIndex('month', '2026-01-29', day('2026-02-01'))).toBe(1);
    expect(bucketIndex('week', '2026-03-04', day('2026-03-09'))).toBe(1);
  });

  it('shrinks a dish mean toward the overall mean and keeps dishes rated often enough', () => {
    const rows = menuItemFigures(
      [
        { menuItem: 'a', name: 'A', source: 'order', n: 10, s: 50 },
        { menuItem: 'b', name: null, source: 'order', n: 10, s: 10 },
        { menuItem: 'c', name: 'C', source: 'order', n: 1, s: 5 },
      ],
      null,
      2,
      'shrunkMean',
      'desc',
    );
    expect(rows.map((r) => r.menuItem)).toEqual(['a', 'b']);
    expect(rows[0].shrunkMean).toBeCloseTo((50 + 10 * (65 / 21)) / 20);
  });

  it('shrinks direct and order ratings each toward their own mean, direct rows first', () => {
    const rows = menuItemFigures(
      [
        { menuItem: 'a', name: 'A', source: 'order', n: 10, s: 90 },
        { menuItem: 'a', name: 'A', source: 'direct', n: 4, s: 8 },
        { menuItem: 'b', name: 'B', source: 'direct', n: 6, s: 30 },
      ],
      null,
      1,
      'shrunkMean',
      'desc',
    );
    expect(rows.map((r) => `${r.source}:${r.menuItem}`)).toEqual(['direct:b', 'direct:a', 'order:a']);
    expect(rows[0].shrunkMean).toBeCloseTo((30 + 10 * (38 / 10)) / 16);
    expect(rows[2].shrunkMean).toBeCloseTo(9);
  });

  it('ranks locations or staff with enough answers and marks the others insufficient', () => {
    const row = (
      staff: string,
      count: number,
      mean: number,
    ): { staff: string; period: number; count: number; mean: number; insufficient?: boolean; rank?: number | null } => ({ staff, period: 0, count, mean });
    const rows = rankGroups([row('Ali', 12, 4.5), row('Sara', 3, 5), row('Omar', 10, 4.5), row('Zed', 20, 3)], ['staff'], ['staff'], 10, (r) => r.mean);
    expect(rows.map((r) => [r.staff, r.insufficient, r.rank])).toEqual([
      ['Ali', false, 1],
      ['Sara', true, null],
      ['Omar', false, 1],
      ['Zed', false, 3],
    ]);
    const plain = rankGroups([row('', 3, 4)], [], [], 10, (r) => r.mean);
    expect(plain[0]).toMatchObject({ insufficient: false, rank: null });
  });
});

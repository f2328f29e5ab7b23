import { readIntegers } from './analytics.service.js';

describe('readIntegers (a rollup row packed by concat_ws)', () => {
  it('reads every figure, negative ones too (a period before 1970 in a zone west of UTC)', () => {
    expect(readIntegers('-1,-18000000,7,2129,9007199254740991,0', 6)).toEqual([-1, -18000000, 7, 2129, 2 ** 53 - 1, 0]);
  });

  it('refuses a row whose figures are not all there (concat_ws skips a NULL) or not integers', () => {
    expect(() => readIntegers('1,2', 3)).toThrow('expected 3 integers, read 2');
    expect(() => readIntegers('1,2,3,4', 3)).toThrow('expected 3 integers, read 4');
    expect(() => readIntegers('1,2.5,3', 3)).toThrow('not an integer list');
  });
});

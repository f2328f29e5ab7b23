import { randomBytesPooled } from './random.js';

describe('randomBytesPooled', () => {
  it('hands every byte out once, as a copy a refill of the pool never changes', () => {
    const first = randomBytesPooled(32);
    const kept = Buffer.from(first);
    // Enough draws to refill the 4 KiB pool several times over.
    const drawn = Array.from({ length: 1_000 }, () => randomBytesPooled(32).toString('hex'));
    expect(first).toEqual(kept);
    expect(new Set([kept.toString('hex'), ...drawn]).size).toBe(1_001);
    expect(drawn.every((hex) => hex.length === 64)).toBe(true);
  });

  it('gives sizes larger than the pool too', () => {
    const big = randomBytesPooled(10_000);
    expect(big).toHaveLength(10_000);
    expect(new Set(big).size).toBeGreaterThan(200); // not a zero-filled buffer
  });
});

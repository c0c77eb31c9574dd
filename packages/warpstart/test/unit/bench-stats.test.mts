import { mulberry32, PERCENTILES, pairedComparison, percentile, summarize } from "../../measure/stats.mts";

const oneToTen = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

describe("percentile", () => {
  it.each([
    [0, 1],
    [50, 5.5],
    [90, 9.1],
    [95, 9.55],
    [99, 9.91],
    [100, 10],
  ])("interpolates linearly between closest ranks: p%p of 1..10 = %p", (p, expected) => {
    expect(percentile(oneToTen, p)).toBeCloseTo(expected, 10);
  });

  it("does not depend on input order and does not sort the caller's array", () => {
    const shuffled = [7, 1, 10, 4, 2, 9, 3, 8, 6, 5];
    expect(percentile(shuffled, 90)).toBeCloseTo(9.1, 10);
    expect(shuffled).toEqual([7, 1, 10, 4, 2, 9, 3, 8, 6, 5]);
  });

  it("sorts numerically, not as strings", () => {
    expect(percentile([100, 9, 20], 0)).toBe(9);
    expect(percentile([100, 9, 20], 100)).toBe(100);
    expect(percentile([100, 9, 20], 50)).toBe(20);
  });

  it("returns the only value of a one-element array for every p", () => {
    for (const p of PERCENTILES) expect(percentile([42], p)).toBe(42);
  });

  it("throws a clear error on an empty array and on p outside 0..100", () => {
    expect(() => percentile([], 50)).toThrow(/empty/);
    expect(() => percentile([1], 101)).toThrow(/0\.\.100/);
    expect(() => percentile([1], Number.NaN)).toThrow(/0\.\.100/);
  });
});

describe("summarize", () => {
  it("returns n 0 and null percentiles for no values", () => {
    expect(summarize([])).toEqual({ n: 0, p0: null, p50: null, p90: null, p95: null, p99: null, p100: null });
  });

  it("returns the value itself for every percentile of one value", () => {
    expect(summarize([12.5])).toEqual({ n: 1, p0: 12.5, p50: 12.5, p90: 12.5, p95: 12.5, p99: 12.5, p100: 12.5 });
  });

  it("matches percentile() for each reported percentile", () => {
    const s = summarize([...oneToTen].reverse());
    expect(s.n).toBe(10);
    expect(s.p0).toBe(1);
    expect(s.p50).toBeCloseTo(5.5, 10);
    expect(s.p90).toBeCloseTo(9.1, 10);
    expect(s.p95).toBeCloseTo(9.55, 10);
    expect(s.p99).toBeCloseTo(9.91, 10);
    expect(s.p100).toBe(10);
  });
});

describe("mulberry32", () => {
  it("is deterministic per seed and stays within [0, 1)", () => {
    const a = mulberry32(1);
    const b = mulberry32(1);
    const c = mulberry32(2);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 1000 }, () => c())).not.toEqual(xs);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    // Not degenerate: the values spread over the interval.
    expect(new Set(xs).size).toBeGreaterThan(990);
    expect(xs.filter((x) => x < 0.5).length).toBeGreaterThan(400);
  });
});

/** Round -> value for rounds 0..n-1. */
function rounds(values: number[], firstRound = 0): Map<number, number> {
  return new Map(values.map((value, i) => [firstRound + i, value]));
}

describe("pairedComparison", () => {
  it("gives ratio 2 with a degenerate [2, 2] interval when A is exactly twice B in every round", () => {
    const b = [100, 120, 90, 300, 110, 95, 130];
    const c = pairedComparison(rounds(b.map((v) => 2 * v)), rounds(b));
    expect(c.n).toBe(7);
    expect(c.medianB).toBe(110);
    expect(c.medianA).toBe(220);
    expect(c.ratio).toBe(2);
    expect(c.ratioCi95).toEqual([2, 2]);
    // Differences are a - b = b, so their median is the median of b.
    expect(c.diffMs).toBe(110);
    const [lo, hi] = c.diffCi95 ?? [Number.NaN, Number.NaN];
    expect(lo).toBeGreaterThanOrEqual(90);
    expect(hi).toBeLessThanOrEqual(300);
    expect(lo).toBeLessThanOrEqual(110);
    expect(hi).toBeGreaterThanOrEqual(110);
  });

  it("gives a zero-width difference interval when A is B plus a constant", () => {
    const b = [50, 60, 70, 80, 90];
    const c = pairedComparison(rounds(b.map((v) => v - 15)), rounds(b));
    expect(c.diffMs).toBe(-15);
    expect(c.diffCi95).toEqual([-15, -15]);
    expect(c.ratio).toBeCloseTo(55 / 70, 12);
  });

  it("has intervals with lo <= point <= hi on noisy data, and is reproducible", () => {
    const random = mulberry32(7);
    const base = Array.from({ length: 40 }, () => 200 + 100 * random());
    const cell = base.map((v) => 0.6 * v + 30 * (random() - 0.5));
    const c = pairedComparison(rounds(cell), rounds(base));
    expect(c.n).toBe(40);
    const [rlo, rhi] = c.ratioCi95 ?? [Number.NaN, Number.NaN];
    const [dlo, dhi] = c.diffCi95 ?? [Number.NaN, Number.NaN];
    expect(rlo).toBeLessThanOrEqual(c.ratio as number);
    expect(rhi).toBeGreaterThanOrEqual(c.ratio as number);
    expect(rlo).toBeLessThan(rhi);
    expect(rlo).toBeGreaterThan(0.4);
    expect(rhi).toBeLessThan(0.8);
    expect(dlo).toBeLessThanOrEqual(c.diffMs as number);
    expect(dhi).toBeGreaterThanOrEqual(c.diffMs as number);
    expect(dhi).toBeLessThan(0);
    expect(pairedComparison(rounds(cell), rounds(base))).toEqual(c);
    // Another seed resamples differently but agrees on the point estimates.
    const other = pairedComparison(rounds(cell), rounds(base), { seed: 12345 });
    expect(other.ratio).toBe(c.ratio);
    expect(other.ratioCi95).not.toEqual(c.ratioCi95);
  });

  it("uses only rounds present in both maps", () => {
    const a = new Map([
      [0, 10],
      [1, 20],
      [2, 30],
      [5, 1000],
    ]);
    const b = new Map([
      [1, 10],
      [2, 10],
      [0, 10],
      [7, 1],
    ]);
    const c = pairedComparison(a, b);
    expect(c.n).toBe(3);
    expect(c.medianA).toBe(20);
    expect(c.medianB).toBe(10);
    expect(c.ratio).toBe(2);
    expect(c.diffMs).toBe(10);
  });

  it("has no intervals below two pairs, and nothing at all without pairs", () => {
    const one = pairedComparison(
      new Map([[3, 30]]),
      new Map([
        [3, 10],
        [4, 10],
      ]),
    );
    expect(one).toEqual({ n: 1, medianA: 30, medianB: 10, ratio: 3, ratioCi95: null, diffMs: 20, diffCi95: null });
    const none = pairedComparison(new Map([[1, 30]]), new Map([[2, 10]]));
    expect(none).toEqual({ n: 0, medianA: null, medianB: null, ratio: null, ratioCi95: null, diffMs: null, diffCi95: null });
  });

  it("honours the resample count", () => {
    const b = [100, 120, 90, 300, 110];
    const c = pairedComparison(rounds(b.map((v, i) => v + i)), rounds(b), { resamples: 1 });
    expect(c.ratioCi95?.[0]).toBe(c.ratioCi95?.[1]);
  });
});

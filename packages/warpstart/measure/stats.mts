// Small, dependency-free statistics for the bench and the doctor: percentiles of one cell's timings, and a
// paired comparison of two cells with bootstrap confidence intervals.

export const PERCENTILES = [0, 50, 90, 95, 99, 100] as const;

/**
 * The p-th percentile (0..100) of values, by linear interpolation between the closest ranks of
 * the sorted values (numpy's default "linear" method), so results match what most people would
 * compute in a notebook from results.json: p0 is the minimum, p100 the maximum.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error("percentile: cannot take a percentile of an empty array");
  if (!(p >= 0 && p <= 100)) throw new Error(`percentile: p must be within 0..100, got ${p}`);
  return percentileOfSorted(
    [...values].sort((x, y) => x - y),
    p,
  );
}

function percentileOfSorted(sorted: readonly number[], p: number): number {
  const rank = ((sorted.length - 1) * p) / 100;
  const lo = Math.floor(rank);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const loValue = sorted[lo] as number;
  const hiValue = sorted[hi] as number;
  return loValue + (rank - lo) * (hiValue - loValue);
}

function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export interface Summary {
  n: number;
  p0: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  p100: number | null;
}

/** Count and the report's percentiles; a cell with no samples still gets a row (all null). */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { n: 0, p0: null, p50: null, p90: null, p95: null, p99: null, p100: null };
  // Sort once: the bench asks for six percentiles of the same array.
  const sorted = [...values].sort((x, y) => x - y);
  const at = (p: number) => percentileOfSorted(sorted, p);
  return { n: values.length, p0: at(0), p50: at(50), p90: at(90), p95: at(95), p99: at(99), p100: at(100) };
}

/**
 * mulberry32: a tiny seeded PRNG returning floats in [0, 1). Math.random cannot be seeded, and a
 * report whose confidence intervals change on every regeneration from the same results.json
 * would be confusing; statistical quality is ample for bootstrap resampling.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEFAULT_BOOTSTRAP_RESAMPLES = 2000;
const DEFAULT_BOOTSTRAP_SEED = 0x5eed;

export interface PairedComparisonOptions {
  /** Bootstrap resamples; 2000 keeps the 2.5/97.5 percentiles stable to well under 1%. */
  resamples?: number;
  seed?: number;
}

export interface PairedComparison {
  /** Rounds present in both A and B. */
  n: number;
  medianA: number | null;
  medianB: number | null;
  /** medianA / medianB: < 1 means A is faster than the baseline B. */
  ratio: number | null;
  ratioCi95: [number, number] | null;
  /** Median of the per-round differences a - b, in the values' unit (ms). */
  diffMs: number | null;
  diffCi95: [number, number] | null;
}

/**
 * Compares cell A with baseline B using only rounds both measured. Pairing by round cancels
 * drift that affects every cell in a round alike (host load, network, throttling), which is
 * why the bench interleaves cells per round. The intervals are percentile bootstrap intervals:
 * whole rounds are resampled with replacement and the same statistic recomputed, so the pairing
 * is preserved and no distributional assumption is needed (cold start timings are skewed).
 */
export function pairedComparison(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>, options: PairedComparisonOptions = {}): PairedComparison {
  const resamples = options.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const rounds = [...a.keys()].filter((round) => b.has(round)).sort((x, y) => x - y);
  const as = rounds.map((round) => a.get(round) as number);
  const bs = rounds.map((round) => b.get(round) as number);
  const diffs = as.map((value, i) => value - (bs[i] as number));
  const n = rounds.length;
  if (n === 0) return { n, medianA: null, medianB: null, ratio: null, ratioCi95: null, diffMs: null, diffCi95: null };

  const medianA = median(as);
  const medianB = median(bs);
  const result: PairedComparison = { n, medianA, medianB, ratio: medianA / medianB, ratioCi95: null, diffMs: median(diffs), diffCi95: null };
  // One pair says nothing about spread: a resample of it is always itself.
  if (n < 2 || resamples < 1) return result;

  const random = mulberry32(options.seed ?? DEFAULT_BOOTSTRAP_SEED);
  const ratios: number[] = [];
  const diffMedians: number[] = [];
  const sa: number[] = new Array(n);
  const sb: number[] = new Array(n);
  const sd: number[] = new Array(n);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) {
      const j = Math.floor(random() * n);
      sa[i] = as[j] as number;
      sb[i] = bs[j] as number;
      sd[i] = diffs[j] as number;
    }
    ratios.push(median(sa) / median(sb));
    diffMedians.push(median(sd));
  }
  result.ratioCi95 = [percentile(ratios, 2.5), percentile(ratios, 97.5)];
  result.diffCi95 = [percentile(diffMedians, 2.5), percentile(diffMedians, 97.5)];
  return result;
}

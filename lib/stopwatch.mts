// The one clock every function (the demo's and the examples') times its calls with.

/**
 * Starts a stopwatch: the function it returns gives the milliseconds since, two decimals, as
 * every latency a function reports. process.hrtime, not performance.now(): the global's first use
 * loads perf_hooks (9 modules) during INIT, a cost of the measuring, not of what is measured.
 */
export function stopwatch(): () => number {
  const started = process.hrtime.bigint();
  return () => Math.round(Number(process.hrtime.bigint() - started) / 10_000) / 100;
}

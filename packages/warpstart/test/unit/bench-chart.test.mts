import { escapeXml, initChartSvg, niceTicks } from "../../bench/chart.mts";
import type { BenchResults } from "../../bench/results.mts";
import type { CellResult } from "../../measure/cold-starts.mts";

function cellResult(name: string, initMs: number[], failures = 0): CellResult {
  const samples = initMs.map((value, round) => ({ round, initMs: value, e2eMs: value * 2, durationMs: 3, warmE2eMs: 8 }));
  return {
    name,
    function: name,
    profile: name,
    runtime: "node22",
    functionName: name,
    samples,
    initMs,
    e2eMs: samples.map((s) => s.e2eMs),
    failures: Array.from({ length: failures }, (_, round) => ({ round, phase: "cold" as const, errorType: "Runtime.InitError", message: "boom" })),
  };
}

function fixture(): BenchResults {
  return {
    schema: 6,
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: "2025-01-01T00:10:00.000Z",
    target: { kind: "aws", stacks: ["warpstart"], region: "eu-west-1" },
    rounds: 10,
    cells: [
      cellResult("Raw", [100, 110, 120, 130, 140, 150, 160, 170, 180, 190]),
      cellResult("A&B <fast>", [40, 42, 44, 46, 48], 2),
      cellResult("Empty", [], 3),
    ],
    runtimes: ["node22"],
    versions: {},
    machine: { platform: "linux", arch: "arm64", cpuModel: "cpu", cpuCount: 2, memoryGiB: 4 },
  };
}

/** A small well-formedness check: tags nest and close, and every & starts an entity. */
function assertWellFormed(svg: string): void {
  const stack: string[] = [];
  for (const match of svg.matchAll(/<(\/?)([a-zA-Z][\w:-]*)([^>]*?)(\/?)>/g)) {
    const [, closing, name, , selfClosing] = match;
    if (selfClosing) continue;
    if (closing) expect(stack.pop()).toBe(name);
    else stack.push(name as string);
  }
  expect(stack).toEqual([]);
  expect(svg).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
  // Text outside tags must not hold a raw "<" (it would open a tag) — every "<" starts a tag.
  expect(svg.match(/</g)?.length).toBe(svg.match(/<\/?[a-zA-Z][^>]*>/g)?.length);
}

describe("initChartSvg", () => {
  const svg = initChartSvg(fixture());

  it("is a standalone, well-formed SVG with an accessible title", () => {
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg).toMatch(/<title[^>]*>Init Duration per cell \(ms\)<\/title>/);
    const width = Number(/<svg[^>]* width="(\d+)"/.exec(svg)?.[1]);
    expect(width).toBeGreaterThanOrEqual(800);
    expect(width).toBeLessThanOrEqual(1000);
    assertWellFormed(svg);
  });

  it("draws one box per cell with samples and a 'no samples' row for the rest", () => {
    expect(svg.match(/<rect /g)).toHaveLength(2);
    expect(svg).toContain("no samples");
    expect(svg).toContain("3 failed");
    expect(svg).toContain("2 failed");
  });

  it("labels each box with its p50 and sample count", () => {
    expect(svg).toContain("p50 145.0 ms (n=10)");
    expect(svg).toContain("p50 44.0 ms (n=5)");
  });

  it("escapes cell labels for XML", () => {
    expect(svg).toContain("A&amp;B &lt;fast&gt;");
    expect(svg).not.toContain("A&B");
  });

  it("has an axis starting at 0 whose last tick covers every whisker, and says what the whiskers are", () => {
    const ticks = [...svg.matchAll(/<text [^>]*font-size="11"[^>]*>(\d+(?:\.\d+)?)<\/text>/g)].map((m) => Number(m[1]));
    expect(ticks[0]).toBe(0);
    // Raw's p95 is 185.5, so the axis reaches at least that.
    expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(185.5);
    expect(svg).toContain("whiskers: p5–p95");
    expect(svg).toContain("Init Duration (ms)");
  });

  it("places boxes proportionally: the faster cell's box lies left of the slower one's", () => {
    const xs = [...svg.matchAll(/<rect [^>]*x="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(xs).toHaveLength(2);
    expect(xs[1]).toBeLessThan(xs[0] as number);
  });

  it("can chart E2E with a custom title", () => {
    const e2e = initChartSvg(fixture(), { metric: "e2eMs", title: "E2E & more" });
    expect(e2e).toContain('<title id="chart-title">E2E &amp; more</title>');
    expect(e2e).toContain("p50 290.0 ms (n=10)");
    expect(e2e).toContain("Cold E2E (ms)");
    assertWellFormed(e2e);
  });

  it("still renders when no cell has samples", () => {
    const results = fixture();
    results.cells = [cellResult("Only", [], 1)];
    const empty = initChartSvg(results);
    expect(empty).not.toContain("<rect");
    expect(empty).toContain("no samples · 1 failed");
    assertWellFormed(empty);
  });
});

describe("niceTicks", () => {
  it.each([
    [185.5, [0, 50, 100, 150, 200]],
    [1000, [0, 200, 400, 600, 800, 1000]],
    [7, [0, 2, 4, 6, 8]],
    [0, [0, 0.2, 0.4, 0.6, 0.8, 1]],
  ])("ticks for max %p are %p", (max, expected) => {
    expect(niceTicks(max)).toEqual(expected);
  });
});

describe("escapeXml", () => {
  it("escapes the five XML special characters", () => {
    expect(escapeXml(`a&b<c>d"e'f`)).toBe("a&amp;b&lt;c&gt;d&quot;e&apos;f");
  });
});

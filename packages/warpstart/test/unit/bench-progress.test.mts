import { createProgress, formatDuration, type ProgressStream } from "../../core/progress.mts";

function fakeStream(isTTY: boolean, columns?: number): ProgressStream & { output: string } {
  const stream = {
    isTTY,
    columns,
    output: "",
    write(chunk: string) {
      stream.output += chunk;
      return true;
    },
  };
  return stream;
}

/** A clock advanced by hand, so elapsed and ETA are exact. */
function fakeClock(start = 1_000_000) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

describe("formatDuration", () => {
  it.each([
    [0, "00:00"],
    [59_400, "00:59"],
    [61_000, "01:01"],
    [3_600_000, "60:00"],
    [Number.NaN, "--:--"],
  ])("formats %p ms as %p", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe("createProgress on a TTY", () => {
  it("redraws one line with \\r, a bar, k/total, percent, elapsed, ETA and the detail", () => {
    const stream = fakeStream(true, 200);
    const clock = fakeClock();
    const progress = createProgress(10, { stream, label: "bench", now: clock.now });
    clock.advance(2000);
    progress.tick("round 1 Raw");
    clock.advance(2000);
    progress.tick("round 1 Optimized");
    const updates = stream.output.split("\r").filter(Boolean);
    expect(updates).toHaveLength(2);
    expect(stream.output).not.toContain("\n");
    const last = updates[1] ?? "";
    expect(last.startsWith("\x1b[2K")).toBe(true);
    expect(last).toContain("bench [####----------------] 2/10");
    expect(last).toContain(" 20%");
    // 4 s for 2 ticks: 2 s each, 8 ticks left.
    expect(last).toContain("elapsed 00:04 eta 00:16");
    expect(last.endsWith("round 1 Optimized")).toBe(true);
    progress.done();
    expect(stream.output.endsWith("\n")).toBe(true);
    expect(stream.output.split("\n")).toHaveLength(2);
  });

  it("truncates the line to the terminal width", () => {
    const stream = fakeStream(true, 60);
    const progress = createProgress(3, { stream, now: fakeClock().now });
    progress.tick("x".repeat(500));
    const line = stream.output.replace("\r\x1b[2K", "");
    expect(line.length).toBeLessThan(60);
    expect(line.endsWith("…")).toBe(true);
  });

  it("fills the bar at the end", () => {
    const stream = fakeStream(true, 120);
    const progress = createProgress(4, { stream, now: fakeClock().now });
    for (let i = 0; i < 4; i++) progress.tick();
    expect(stream.output).toContain("[####################] 4/4 100%");
  });
});

describe("createProgress without a TTY", () => {
  it("prints plain lines, no \\r, at most one per 5% for total=100", () => {
    const stream = fakeStream(false);
    const clock = fakeClock();
    const progress = createProgress(100, { stream, now: clock.now });
    for (let i = 0; i < 100; i++) {
      clock.advance(1000);
      progress.tick(`round ${i}`);
    }
    progress.done();
    expect(stream.output).not.toContain("\r");
    expect(stream.output).not.toContain("\x1b");
    const lines = stream.output.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(10);
    expect(lines.length).toBeLessThanOrEqual(21);
    expect(lines[0]).toMatch(/^5\/100 +5% elapsed 00:05 eta 01:35 round 4$/);
    expect(lines[lines.length - 1]).toMatch(/^100\/100 100% elapsed 01:40 eta 00:00 round 99$/);
  });

  it("prints the final state on done() when the last tick was not printed", () => {
    const stream = fakeStream(false);
    const progress = createProgress(100, { stream, now: fakeClock().now });
    for (let i = 0; i < 7; i++) progress.tick();
    progress.done();
    progress.done();
    const lines = stream.output.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^5\/100/);
    expect(lines[1]).toMatch(/^7\/100/);
  });

  it("prints every tick of a short run", () => {
    const stream = fakeStream(false);
    const progress = createProgress(3, { stream, label: "deploy", now: fakeClock().now });
    progress.tick("a");
    progress.tick("b");
    progress.tick("c");
    progress.done();
    expect(
      stream.output
        .trimEnd()
        .split("\n")
        .map((line) => line.split(" ")[1]),
    ).toEqual(["1/3", "2/3", "3/3"]);
  });
});

// What the exec wrapper (src/warp/warp-exec) changes about a function's heap. Lambda's bootstrap
// runs node with --expose-gc and heap limits derived from the memory size M; wrapped on
// nodejs22.x, node runs without them, so V8 sizes the heap from the memory it sees, which on
// Lambda is the microVM's (MemTotal ≈ M). Each node here runs in a private mount namespace whose
// /proc/meminfo says MemTotal = M MiB (`unshare --map-root-user --mount` + `mount --bind`: any user,
// where the kernel allows unprivileged user namespaces; elsewhere the tests are skipped, saying so).
// Asserted: heap limits (flags vs V8's defaults), where the live heap runs out, gc(), the
// young generation's size and what it does to an allocation-heavy workload's scavenges, and
// that on nodejs24.x the wrapper keeps the limits.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NODE22, PACKAGE_ROOT } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { describeIfMet, type Requirement } from "../support/needs.mts";

const MiB = 2 ** 20;
const WRAPPER = join(PACKAGE_ROOT, "src/warp/warp-exec");
const FIXTURES = join(PACKAGE_ROOT, "test/fixtures/exec-wrapper");
const BINARIES = { node22: NODE22, node24: RUNTIMES.node24.hostBinary };
type Runtime = keyof typeof BINARIES;
type Mode = "flags" | "wrapped";

interface Run {
  what: string;
  argv: string[];
  status: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

const show = (run: Run) =>
  [
    `--- ${run.what}`,
    `$ ${run.argv.map((arg) => (/^[\w./=:,+-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)).join(" ")}`,
    `exit status ${run.status}, signal ${run.signal}`,
    `stdout (end): ${run.stdout.slice(-1500)}`,
    `stderr (end): ${run.stderr.slice(-3000)}`,
  ].join("\n");

/** Fails the test with the claim and every run it rests on, stderr included. */
function check(holds: boolean, claim: string, ...runs: Run[]) {
  if (!holds) throw new Error(`${claim}\n\n${runs.map(show).join("\n\n")}`);
}

const meminfoDir = mkdtempSync(join(tmpdir(), "warpstart-exec-wrapper-heap-"));
const meminfoFor = (memoryMb: number) => {
  const path = join(meminfoDir, `meminfo-${memoryMb}`);
  writeFileSync(path, readFileSync("/proc/meminfo", "utf8").replace(/^MemTotal:.*$/m, `MemTotal:       ${memoryMb * 1024} kB`));
  return path;
};

/** argv under a /proc/meminfo that says MemTotal = memoryMb MiB. */
function underMemory(memoryMb: number, what: string, argv: string[], env: Record<string, string> = {}): Run {
  const command = ["unshare", "--map-root-user", "--mount", "sh", "-c", 'mount --bind "$0" /proc/meminfo && exec "$@"', meminfoFor(memoryMb), ...argv];
  // Only PATH (for unshare, sh, mount): no NODE_OPTIONS from whoever runs the tests.
  const result = spawnSync(command[0]!, command.slice(1), {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    encoding: "utf8",
    timeout: 30_000,
    killSignal: "SIGKILL",
    maxBuffer: 64 * MiB,
  });
  const stderr = `${result.stderr ?? ""}${result.error ? `\n(spawn error: ${result.error.message})` : ""}`;
  return { what, argv: command, status: result.status, signal: result.signal, stdout: result.stdout ?? "", stderr };
}

/** A script run as Lambda's bootstrap runs node for memory M, directly or through the wrapper. */
function lambdaNode(runtime: Runtime, memoryMb: number, mode: Mode, script: string, ...args: string[]): Run {
  const node = [BINARIES[runtime], ...RUNTIMES[runtime].nodeFlags(memoryMb), join(FIXTURES, script), ...args];
  return underMemory(memoryMb, `${script} ${args.join(" ")} on ${runtime} at ${memoryMb} MB, ${mode}`, mode === "wrapped" ? [WRAPPER, ...node] : node, {
    AWS_EXECUTION_ENV: `AWS_Lambda_${RUNTIMES[runtime].lambdaRuntime}`,
  });
}

const flagValue = (flags: string[], name: string) => Number(flags.find((flag) => flag.startsWith(`${name}=`))!.split("=")[1]);
const powerOfTwoAtLeast = (mib: number) => 2 ** Math.ceil(Math.log2(mib));

/**
 * The heap Lambda's flags give (MiB): the old generation as given, and a young generation of
 * three semi-spaces (two, and as much new large-object space) of the given size, which V8
 * rounds up to a power of two.
 */
function flaggedHeap(runtime: Runtime, memoryMb: number) {
  const flags = RUNTIMES[runtime].nodeFlags(memoryMb);
  const old = flagValue(flags, "--max-old-space-size");
  const semi = powerOfTwoAtLeast(flagValue(flags, "--max-semi-space-size"));
  return { old, semi, limit: old + 3 * semi };
}

/**
 * V8's default heap (MiB) for the memory it sees, in 64-bit builds without pointer compression
 * (Node's official ones), whose limits are twice the compressed ones: an old generation of half
 * the memory, between 256 MiB and 2 GiB; a semi-space of old/256 up to 256 MiB of old
 * generation and old/128 above, between 1 and 16 MiB, rounded up to a power of two; the young
 * generation three of them.
 */
function defaultHeap(memoryMb: number) {
  const old = Math.min(Math.max(memoryMb / 2, 256), 2048);
  const semi = powerOfTwoAtLeast(Math.min(Math.max(old / (old <= 256 ? 256 : 128), 1), 16));
  return { old, semi, limit: old + 3 * semi };
}

interface Probe {
  heapSizeLimit: number;
  newSpaceLargest: number;
  gc: string;
  totalmem: number;
  constrainedMemory: number;
  pointerCompression: boolean;
  execArgv: string[];
}

const probes = new Map<string, { run: Run; probe: Probe }>();
/** heap-probe.mjs's report, once per case, after checking the memory it saw is the fake MemTotal. */
function probeOf(runtime: Runtime, memoryMb: number, mode: Mode) {
  const key = `${runtime} ${memoryMb} ${mode}`;
  if (!probes.has(key)) {
    const run = lambdaNode(runtime, memoryMb, mode, "heap-probe.mjs");
    check(run.status === 0, "the heap probe failed", run);
    let probe: Probe | undefined;
    try {
      probe = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Probe;
    } catch {
      check(false, "the heap probe printed no JSON", run);
    }
    check(probe!.totalmem === memoryMb * MiB, `node saw ${probe!.totalmem / MiB} MiB of memory, not the fake MemTotal of ${memoryMb} MiB`, run);
    const constrained = probe!.constrainedMemory;
    check(
      !(constrained > 0 && constrained < memoryMb * MiB),
      `a cgroup memory limit of ${constrained / MiB} MiB, below ${memoryMb} MiB, sizes node's heap here instead of MemTotal: run the test without it`,
      run,
    );
    probes.set(key, { run, probe: probe! });
  }
  return probes.get(key)!;
}

const withinOneMiB = (bytes: number, mib: number) => Math.abs(bytes / MiB - mib) <= 1;

interface Growth {
  live: number;
  rss: number;
  held: boolean;
  maxRss: number;
}
/** The last step grow-heap.mjs reported: live heap and RSS (MiB), whether it held its target. */
function growthOf(run: Run): Growth {
  const lines = [...run.stdout.matchAll(/^(live|held) (\d+) rss (\d+)$/gm)];
  check(lines.length > 0, "grow-heap.mjs reported no step", run);
  const last = lines.at(-1)!;
  return { live: Number(last[2]), rss: Number(last[3]), held: last[1] === "held", maxRss: Math.max(...lines.map((line) => Number(line[3]))) };
}

const heapOutOfMemory = (run: Run) => run.signal === "SIGABRT" && run.stderr.includes("JavaScript heap out of memory");

afterAll(() => rmSync(meminfoDir, { recursive: true, force: true }));

/** Whether this machine lets any user show a process a /proc/meminfo of its choosing. */
const fakeMeminfo: Requirement = {
  met: (() => {
    const run = underMemory(128, "the fake /proc/meminfo", ["head", "-n", "1", "/proc/meminfo"]);
    return run.status === 0 && /^MemTotal:\s+131072 kB$/m.test(run.stdout);
  })(),
  needs: "a user namespace of its own with a mount namespace (`unshare --map-root-user --mount`, then `mount --bind` over /proc/meminfo)",
  how: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces above 0; in a container, a seccomp profile that allows unshare)",
};

describeIfMet(fakeMeminfo, "nodejs22.x: Lambda's flags vs the wrapper", () => {
  it.each([128, 512, 1024])("at %i MB, Lambda's flags set the heap: M - M/10 old, (M/10)/2 semi-space rounded up to a power of two", (memoryMb) => {
    const { run, probe } = probeOf("node22", memoryMb, "flags");
    const expected = flaggedHeap("node22", memoryMb);
    check(withinOneMiB(probe.heapSizeLimit, expected.limit), `heap_size_limit ${probe.heapSizeLimit / MiB} MiB, expected ${JSON.stringify(expected)}`, run);
    check(
      probe.newSpaceLargest <= 2 * expected.semi * MiB,
      `new space grew to ${probe.newSpaceLargest / MiB} MiB, past 2 semi-spaces of ${expected.semi} MiB`,
      run,
    );
  });

  it.each([128, 512, 1024])("at %i MB wrapped, V8 sizes the heap from the memory it sees (its defaults), with the other flags kept", (memoryMb) => {
    const { run, probe } = probeOf("node22", memoryMb, "wrapped");
    check(!probe.pointerCompression, "defaultHeap() is V8's rule for builds without pointer compression, and this node compresses pointers", run);
    const expected = defaultHeap(memoryMb);
    check(withinOneMiB(probe.heapSizeLimit, expected.limit), `heap_size_limit ${probe.heapSizeLimit / MiB} MiB, expected ${JSON.stringify(expected)}`, run);
    check(
      probe.newSpaceLargest <= 2 * expected.semi * MiB,
      `new space grew to ${probe.newSpaceLargest / MiB} MiB, past 2 semi-spaces of ${expected.semi} MiB`,
      run,
    );
    const dropped = ["--expose-gc", "--max-semi-space-size", "--max-old-space-size"];
    const kept = RUNTIMES.node22.nodeFlags(memoryMb).filter((flag) => !dropped.includes(flag.split("=")[0]!));
    check(JSON.stringify(probe.execArgv) === JSON.stringify(kept), `node ran with ${JSON.stringify(probe.execArgv)}, expected ${JSON.stringify(kept)}`, run);
  });

  it("wrapped, the heap limit is above 128 MB at 128 MB (above the VM's memory) and below the flags' at 512 MB; the young generation is smaller", () => {
    const [flags128, wrapped128, flags512, wrapped512] = [
      probeOf("node22", 128, "flags"),
      probeOf("node22", 128, "wrapped"),
      probeOf("node22", 512, "flags"),
      probeOf("node22", 512, "wrapped"),
    ];
    check(wrapped128.probe.heapSizeLimit > 128 * MiB, "wrapped at 128 MB, V8's heap limit is not above the VM's 128 MB", wrapped128.run);
    check(wrapped128.probe.heapSizeLimit > flags128.probe.heapSizeLimit, "wrapped at 128 MB, the limit is not above the flags'", wrapped128.run, flags128.run);
    check(wrapped512.probe.heapSizeLimit < flags512.probe.heapSizeLimit, "wrapped at 512 MB, the limit is not below the flags'", wrapped512.run, flags512.run);
    check(wrapped512.probe.heapSizeLimit < 512 * MiB, "wrapped at 512 MB, the limit is not below the function's 512 MB", wrapped512.run);
    // The flags' young generation grows past anything the wrapped one can reach (2 semi-spaces of 1 MiB).
    check(
      flags512.probe.newSpaceLargest > 2 * defaultHeap(512).semi * MiB,
      "with the flags at 512 MB, the new space did not grow past the wrapped maximum",
      flags512.run,
    );
  });

  it("gc() is a function with Lambda's flags and undefined wrapped, on nodejs22.x and nodejs24.x", () => {
    for (const runtime of ["node22", "node24"] as const) {
      const flags = probeOf(runtime, 512, "flags");
      const wrapped = probeOf(runtime, 512, "wrapped");
      check(flags.probe.gc === "function", `${runtime} with --expose-gc: typeof gc is ${flags.probe.gc}`, flags.run);
      check(wrapped.probe.gc === "undefined", `${runtime} wrapped: typeof gc is ${wrapped.probe.gc}`, wrapped.run);
    }
  });
});

describeIfMet(fakeMeminfo, "nodejs24.x: the wrapper keeps the heap flags", () => {
  it.each([128, 512])("at %i MB, the wrapped heap limit is the flags'", (memoryMb) => {
    const flags = probeOf("node24", memoryMb, "flags");
    const wrapped = probeOf("node24", memoryMb, "wrapped");
    const expected = flaggedHeap("node24", memoryMb);
    check(
      withinOneMiB(flags.probe.heapSizeLimit, expected.limit),
      `flags: heap_size_limit ${flags.probe.heapSizeLimit / MiB} MiB, expected ${expected.limit}`,
      flags.run,
    );
    check(
      wrapped.probe.heapSizeLimit === flags.probe.heapSizeLimit,
      `wrapped: heap_size_limit ${wrapped.probe.heapSizeLimit / MiB} MiB, the flags' ${flags.probe.heapSizeLimit / MiB} MiB`,
      wrapped.run,
      flags.run,
    );
    check(
      wrapped.probe.execArgv.some((flag) => flag.startsWith("--max-old-space-size=")) && !wrapped.probe.execArgv.includes("--expose-gc"),
      "wrapped on nodejs24.x, node should keep the heap flags and drop --expose-gc",
      wrapped.run,
    );
  });
});

describeIfMet(fakeMeminfo, "where a growing live heap runs out (nodejs22.x)", () => {
  it("at 512 MB wrapped, V8 runs out near its 256 MiB old generation, below the 461 MB the flags allow, while the flags hold 350 MiB", () => {
    const wrapped = lambdaNode("node22", 512, "wrapped", "grow-heap.mjs", String(flaggedHeap("node22", 512).old));
    const reached = growthOf(wrapped);
    check(heapOutOfMemory(wrapped), "wrapped at 512 MB, growing to 461 MiB of live heap should end in V8's heap out of memory", wrapped);
    check(reached.live <= defaultHeap(512).old, `wrapped at 512 MB, the live heap reached ${reached.live} MiB, past V8's ${defaultHeap(512).old} MiB`, wrapped);
    // 512 MB of VM memory is not what stopped it: the RSS stayed below it.
    check(reached.maxRss < 512, `wrapped at 512 MB, the RSS reached ${reached.maxRss} MiB before V8's OOM`, wrapped);

    const flags = lambdaNode("node22", 512, "flags", "grow-heap.mjs", "350");
    const held = growthOf(flags);
    check(flags.status === 0 && held.held && held.live >= 350, "with Lambda's flags at 512 MB, 350 MiB of live heap should fit", flags);
  });

  it("at 128 MB wrapped, V8 lets the live heap grow past the VM's 128 MB (Lambda's own OOM kill comes first); the flags stop it below 116 MiB", () => {
    const wrapped = lambdaNode("node22", 128, "wrapped", "grow-heap.mjs", "160");
    const held = growthOf(wrapped);
    check(wrapped.status === 0 && held.held && held.live >= 160, "wrapped at 128 MB, 160 MiB of live heap should fit V8's limit", wrapped);
    check(held.rss > 128, `wrapped at 128 MB holding ${held.live} MiB, the RSS is ${held.rss} MiB, not past the VM's 128 MB`, wrapped);

    const flags = lambdaNode("node22", 128, "flags", "grow-heap.mjs", "160");
    const reached = growthOf(flags);
    check(heapOutOfMemory(flags), "with Lambda's flags at 128 MB, growing to 160 MiB should end in V8's heap out of memory", flags);
    check(reached.live <= flaggedHeap("node22", 128).old, `with the flags at 128 MB, the live heap reached ${reached.live} MiB`, flags);
  });
});

describeIfMet(fakeMeminfo, "an allocation-heavy workload with a small live heap (nodejs22.x, 512 MB)", () => {
  it("wrapped, its 1 MiB semi-spaces make V8 scavenge many times more often than with the flags' 32 MiB", () => {
    const countsOf = (run: Run) => {
      check(run.status === 0, "gc-workload.mjs failed", run);
      return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { minor: number; major: number };
    };
    const flags = lambdaNode("node22", 512, "flags", "gc-workload.mjs", "20");
    const wrapped = lambdaNode("node22", 512, "wrapped", "gc-workload.mjs", "20");
    const [withFlags, withWrapper] = [countsOf(flags), countsOf(wrapped)];
    check(
      withWrapper.minor > 5 * withFlags.minor,
      `scavenges: ${withWrapper.minor} wrapped, ${withFlags.minor} with the flags (expected over 5 times as many)`,
      wrapped,
      flags,
    );
    check(withWrapper.major > withFlags.major, `mark-compacts: ${withWrapper.major} wrapped, ${withFlags.major} with the flags`, wrapped, flags);
  });
});

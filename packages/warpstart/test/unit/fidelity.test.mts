// The two settings every lab command takes: the network and code loading, as a user writes them.
import { UsageError } from "../../core/options.mts";
import { LAMBDA_NETWORK, LOOPBACK, parseNetwork } from "../../emulation/local-aws/network.mts";
import { describeFidelity, fidelityFrom, LAMBDA_FIDELITY } from "../../lab/fidelity.mts";

describe("parseNetwork", () => {
  it("knows lambda and none by name", () => {
    expect(parseNetwork("lambda")).toBe(LAMBDA_NETWORK);
    expect(parseNetwork("none")).toBe(LOOPBACK);
  });

  it("takes dns and rtt in ms, either left out", () => {
    expect(parseNetwork("dns=5,rtt=0.5")).toEqual({ name: "dns=5,rtt=0.5", dnsMs: 5, rttMs: 0.5 });
    expect(parseNetwork("rtt=20")).toEqual({ name: "rtt=20", dnsMs: 0, rttMs: 20 });
  });

  it.each(["fast", "dns=", "dns=-1", "rtt=5ms", "dns=1;rtt=2"])("refuses %s, naming what it takes", (value) => {
    expect(() => parseNetwork(value)).toThrow(
      `"${value}" is not a network: use lambda (DNS ${LAMBDA_NETWORK.dnsMs} ms per connection, RTT ${LAMBDA_NETWORK.rttMs} ms), none, or dns=MS,rtt=MS`,
    );
  });
});

describe("fidelityFrom", () => {
  it("is Lambda's network and code loading when no flag is given", () => {
    expect(fidelityFrom({})).toEqual(LAMBDA_FIDELITY);
  });

  it("takes each flag", () => {
    expect(fidelityFrom({ network: "none", "code-loading": "none" })).toEqual({ network: LOOPBACK, codeLoading: "none" });
  });

  it("says which flag is wrong, as a usage error", () => {
    expect(() => fidelityFrom({ network: "fast" })).toThrow(UsageError);
    expect(() => fidelityFrom({ network: "fast" })).toThrow(/^--network: "fast" is not a network/);
  });
});

it("describes a run's settings in one line", () => {
  expect(describeFidelity(LAMBDA_FIDELITY)).toBe(
    `network: DNS ${LAMBDA_NETWORK.dnsMs} ms per connection, RTT ${LAMBDA_NETWORK.rttMs} ms; each new environment's code read from storage`,
  );
  expect(describeFidelity({ network: LOOPBACK, codeLoading: "none" })).toBe("network: loopback, no delay; code from the page cache");
  expect(describeFidelity({ network: LOOPBACK, codeLoading: "artifact" })).toBe(
    "network: loopback, no delay; each new environment's code read from storage, the runtime's SDK copy from memory",
  );
});

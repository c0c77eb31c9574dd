// Warp's early DNS lookup: which host it looks up for a client, and how the SDK's first connect
// takes the answer. node:dns is a fake here, answering when the test says.
import type { ServiceHost } from "../../src/contract.mts";
import { type Dns, FRESH_MS, hostToResolve, startEarlyLookups } from "../../src/warp/early-lookup.mts";

const STS: ServiceHost = { endpointVariable: "STS", host: "sts.{region}.amazonaws.com" };
const SECRETS: ServiceHost = { endpointVariable: "SECRETS_MANAGER", host: "secretsmanager.{region}.amazonaws.com" };
const ADDRCONFIG = 32;
/** How Node's net.connect calls dns.lookup for a host name (autoSelectFamily on, no family). */
const CONNECT_OPTIONS = { hints: ADDRCONFIG, all: true };
const ADDRESSES = [{ address: "10.0.0.1", family: 4 }];

/** A node:dns whose lookups wait until `answer` is called; every call is kept. */
function fakeDns() {
  const calls: Array<{ hostname: string; options: unknown; callback: (...args: unknown[]) => void }> = [];
  const dns: Dns = {
    ADDRCONFIG,
    lookup: (hostname: string, options: unknown, callback: unknown) => {
      calls.push({ hostname, options, callback: callback as (...args: unknown[]) => void });
      return {};
    },
  };
  const systemLookup = dns.lookup;
  return { dns, calls, systemLookup };
}

/** Calls dns.lookup as Node's connect does; resolves with what the callback got. */
const connectLookup = (dns: Dns, hostname: string, options: object = CONNECT_OPTIONS) =>
  new Promise<unknown[]>((resolve) => dns.lookup(hostname, options, (...args: unknown[]) => resolve(args)));

describe("the host Warp looks up early", () => {
  it("is the client's regional endpoint in the function's region", () => {
    expect(hostToResolve(STS, { AWS_REGION: "eu-west-1" })).toBe("sts.eu-west-1.amazonaws.com");
  });

  it("is the configured endpoint's host, the service's own variable first, as the SDK reads them", () => {
    expect(hostToResolve(SECRETS, { AWS_REGION: "eu-west-1", AWS_ENDPOINT_URL: "https://aws.example:4566" })).toBe("aws.example");
    expect(hostToResolve(SECRETS, { AWS_ENDPOINT_URL: "https://aws.example", AWS_ENDPOINT_URL_SECRETS_MANAGER: "https://sm.example/" })).toBe("sm.example");
    expect(hostToResolve(SECRETS, { AWS_REGION: "eu-west-1", AWS_ENDPOINT_URL: "https://aws.example", AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: "true" })).toBe(
      "secretsmanager.eu-west-1.amazonaws.com",
    );
  });

  it("is none where the SDK looks nothing up or would ask for another host", () => {
    expect(hostToResolve(STS, { AWS_ENDPOINT_URL: "https://127.0.0.1:4566" })).toBeNull();
    expect(hostToResolve(STS, { AWS_ENDPOINT_URL: "https://[::1]:4566" })).toBeNull();
    expect(hostToResolve(STS, { AWS_REGION: "eu-west-1", AWS_USE_FIPS_ENDPOINT: "true" })).toBeNull();
    expect(hostToResolve(STS, { AWS_REGION: "eu-west-1", AWS_USE_DUALSTACK_ENDPOINT: "true" })).toBeNull();
    expect(hostToResolve(STS, {})).toBeNull();
  });
});

describe("the early lookup", () => {
  const env = { AWS_REGION: "eu-west-1" };
  const host = "sts.eu-west-1.amazonaws.com";

  it("starts at once, as a connect would ask, one per host", () => {
    const { dns, calls } = fakeDns();
    startEarlyLookups([STS, STS, SECRETS], env, dns);
    expect(calls.map(({ hostname, options }) => [hostname, options])).toEqual([
      [host, CONNECT_OPTIONS],
      ["secretsmanager.eu-west-1.amazonaws.com", CONNECT_OPTIONS],
    ]);
  });

  it("answers the first connect to the host, waiting for the lookup if it is still running, then gives dns.lookup back", async () => {
    const { dns, calls, systemLookup } = fakeDns();
    startEarlyLookups([STS], env, dns);
    const connect = connectLookup(dns, host);
    expect(calls).toHaveLength(1); // no second lookup
    calls[0]!.callback(null, ADDRESSES);
    expect(await connect).toEqual([null, ADDRESSES]);
    expect(dns.lookup).toBe(systemLookup);
  });

  it("answers from a lookup already done, asynchronously, and a caller asking for one address gets the first", async () => {
    const { dns, calls } = fakeDns();
    startEarlyLookups([STS], env, dns);
    calls[0]!.callback(null, ADDRESSES);
    let answered = false;
    const connect = connectLookup(dns, host, { hints: ADDRCONFIG }).then((args) => {
      answered = true;
      return args;
    });
    expect(answered).toBe(false);
    expect(await connect).toEqual([null, "10.0.0.1", 4]);
    expect(calls).toHaveLength(1);
  });

  it("is used once: the next connect looks the host up again", async () => {
    const { dns, calls } = fakeDns();
    startEarlyLookups([STS], env, dns);
    calls[0]!.callback(null, ADDRESSES);
    await connectLookup(dns, host);
    void connectLookup(dns, host);
    expect(calls.map(({ hostname }) => hostname)).toEqual([host, host]);
  });

  it("leaves a failed lookup's host to a lookup of its own", async () => {
    const { dns, calls } = fakeDns();
    startEarlyLookups([STS], env, dns);
    calls[0]!.callback(Object.assign(new Error("getaddrinfo EAI_AGAIN"), { code: "EAI_AGAIN" }), []);
    const connect = connectLookup(dns, host);
    await new Promise(process.nextTick);
    expect(calls).toHaveLength(2);
    calls[1]!.callback(null, ADDRESSES);
    expect(await connect).toEqual([null, ADDRESSES]);
  });

  it("is not used once it is older than FRESH_MS", async () => {
    const { dns, calls } = fakeDns();
    let clock = 1_000_000;
    startEarlyLookups([STS], env, dns, () => clock);
    calls[0]!.callback(null, ADDRESSES);
    clock += FRESH_MS + 1;
    void connectLookup(dns, host);
    await new Promise(process.nextTick);
    expect(calls).toHaveLength(2);
  });

  it("passes other hosts, and lookups of one family, to dns.lookup as they were", () => {
    const { dns, calls } = fakeDns();
    startEarlyLookups([STS], env, dns);
    void connectLookup(dns, "example.com");
    void connectLookup(dns, host, { family: 6, hints: ADDRCONFIG });
    expect(calls.map(({ hostname, options }) => [hostname, options])).toEqual([
      [host, CONNECT_OPTIONS],
      ["example.com", CONNECT_OPTIONS],
      [host, { family: 6, hints: ADDRCONFIG }],
    ]);
  });

  it("changes nothing when no host is to be looked up", () => {
    const { dns, calls, systemLookup } = fakeDns();
    startEarlyLookups([STS], { AWS_ENDPOINT_URL: "https://127.0.0.1:4566" }, dns);
    expect(calls).toHaveLength(0);
    expect(dns.lookup).toBe(systemLookup);
  });
});

// Warp's early DNS lookup (builder/sdk.mts puts a call to it before the chunk loads): the
// lookup of each service endpoint the handler's clients will call starts at the top of INIT and
// runs in libuv's thread pool while V8 deserializes and evaluates the chunk; the SDK's first
// connection to that host then takes the answer instead of looking it up after the chunk has
// loaded. Only the lookup can overlap: a connect or a TLS handshake needs the one JavaScript
// thread, which the chunk holds (docs/warp.md#tried-and-dropped).
//
// The answer is used at most once and only while it is fresh; a lookup that failed, a host the
// SDK does not ask for (FIPS, dual-stack, another partition, S3's bucket hosts) or options Node's
// connect does not use leave the lookup to dns.lookup as it was.
import type { ServiceHost } from "../contract.mts";

type Addresses = Array<{ address: string; family: number }>;
type Answer = { error: Error | null; addresses: Addresses; at: number };
type AnyLookup = (hostname: string, ...rest: unknown[]) => unknown;
/** What this module uses of node:dns. */
export type Dns = { lookup: AnyLookup; ADDRCONFIG: number };

/** Longer than any INIT's wait for its first connection, far shorter than the TTL of an AWS endpoint's records. */
export const FRESH_MS = 1_000;

const { isIP } = process.getBuiltinModule("node:net");

/** The host the SDK will connect to for `service`, or null when it will not look one up or the guess could be wrong. */
export function hostToResolve(service: ServiceHost, env: NodeJS.ProcessEnv): string | null {
  if (env.AWS_USE_FIPS_ENDPOINT === "true" || env.AWS_USE_DUALSTACK_ENDPOINT === "true") return null;
  const configured =
    env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS === "true" ? undefined : (env[`AWS_ENDPOINT_URL_${service.endpointVariable}`] ?? env.AWS_ENDPOINT_URL);
  if (configured) {
    const host = URL.parse(configured)?.hostname.replace(/^\[|\]$/g, "");
    return host && !isIP(host) ? host : null;
  }
  return env.AWS_REGION ? service.host.replace("{region}", env.AWS_REGION) : null;
}

/**
 * Starts the lookup of each service's host with `dns.lookup` and replaces `dns.lookup` by one
 * that answers the next lookup of that host, asked as Node's connect asks, from it.
 */
export function startEarlyLookups(services: ServiceHost[], env: NodeJS.ProcessEnv, dns: Dns, now: () => number = Date.now): void {
  const systemLookup = dns.lookup;
  // Node's connect asks for every address of a host, with these hints, unless told a family.
  const asConnectAsks = { all: true, hints: dns.ADDRCONFIG };
  const pending = new Map<string, { answer: Answer | null; waiting: Array<(answer: Answer) => void> }>();
  for (const host of new Set(services.map((service) => hostToResolve(service, env)))) {
    if (host === null) continue;
    const entry = { answer: null as Answer | null, waiting: [] as Array<(answer: Answer) => void> };
    pending.set(host, entry);
    systemLookup(host, asConnectAsks, (error: Error | null, addresses: Addresses) => {
      entry.answer = { error, addresses, at: now() };
      for (const take of entry.waiting.splice(0)) take(entry.answer);
    });
  }
  if (pending.size === 0) return;

  function earlyLookup(this: unknown, hostname: string, ...rest: unknown[]): unknown {
    const [options, callback] = rest as [{ family?: number; hints?: number; all?: boolean } | undefined, (...args: unknown[]) => void];
    const entry = pending.get(hostname);
    const asked = typeof options === "object" && !options.family && options.hints === asConnectAsks.hints && typeof callback === "function";
    if (!entry || !asked) return systemLookup.call(this, hostname, ...rest);
    pending.delete(hostname);
    if (pending.size === 0 && dns.lookup === earlyLookup) dns.lookup = systemLookup;
    const answer = ({ error, addresses, at }: Answer) => {
      if (error || addresses.length === 0 || now() - at > FRESH_MS) systemLookup.call(this, hostname, ...rest);
      else if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    };
    // Always asynchronously, as dns.lookup answers.
    if (entry.answer) process.nextTick(answer, entry.answer);
    else entry.waiting.push(answer);
    return {};
  }
  dns.lookup = earlyLookup;
}

let started = false;

/** Starts the lookups once per process, at whichever of the handler's SDK imports comes first. */
export function lookUpEarly(services: ServiceHost[]): void {
  if (started) return;
  started = true;
  startEarlyLookups(services, process.env, process.getBuiltinModule("node:dns") as unknown as Dns);
}

// The network between a function and AWS, as the local AWS's proxy plays it. On loopback a
// connection and a round trip cost nothing; on Lambda the first call of an INIT pays a DNS
// lookup, the TCP handshake, the TLS handshake and the request's round trip, and keep-alive is
// worth what those cost. The proxy adds them: a new connection's first bytes wait for the lookup
// and the TCP handshake, and every answer waits one round trip, so TLS 1.3's handshake and each
// request cost one round trip each, as on a real link. A client that resolves the local AWS by
// name pays the lookup in its own process instead (dns.cjs), and the proxy's port for it charges
// none (local-aws.mts).

import type { Socket } from "node:net";

export interface NetworkModel {
  /** How it is named on the command line and in results.json. */
  name: string;
  /** A DNS lookup, paid by every new connection (Node caches no lookup). */
  dnsMs: number;
  /** One round trip between the function and the service's endpoint. */
  rttMs: number;
}

/**
 * In-region Lambda to a regional endpoint, from a measurement on Lambda (arm64, ap-northeast-1,
 * 2026-03-31, shinyaz.com "Lambda Rust First-Request 900ms Explained"): DNS 7.3 ms, TCP connect
 * 0.7 ms (one round trip), the round trip rounded up to Node's 1 ms timer resolution.
 */
export const LAMBDA_NETWORK: NetworkModel = { name: "lambda", dnsMs: 7, rttMs: 1 };

/** Plain loopback: what the lab had before it modelled the network. */
export const LOOPBACK: NetworkModel = { name: "none", dnsMs: 0, rttMs: 0 };

const NAMED = [LAMBDA_NETWORK, LOOPBACK];

/** `lambda`, `none`, or `dns=MS,rtt=MS` (either may be left out: 0). */
export function parseNetwork(value: string): NetworkModel {
  const named = NAMED.find((model) => model.name === value);
  if (named) return named;
  const model: NetworkModel = { name: value, dnsMs: 0, rttMs: 0 };
  for (const part of value.split(",")) {
    const match = /^(dns|rtt)=(\d+(?:\.\d+)?)$/.exec(part.trim());
    if (!match) throw new Error(`"${value}" is not a network: use lambda (${describeNetwork(LAMBDA_NETWORK)}), none, or dns=MS,rtt=MS`);
    model[match[1] === "dns" ? "dnsMs" : "rttMs"] = Number(match[2]);
  }
  return model;
}

export function describeNetwork(model: NetworkModel): string {
  return model.dnsMs === 0 && model.rttMs === 0 ? "loopback, no delay" : `DNS ${model.dnsMs} ms per connection, RTT ${model.rttMs} ms`;
}

/** Joins a client's connection to the server's through `model`: bytes both ways, ends and failures passed on. */
export function link(client: Socket, server: Socket, model: NetworkModel): void {
  const delayed = model.dnsMs > 0 || model.rttMs > 0;
  // The client's bytes go at once, except that nothing reaches the server before the lookup and the handshake are over.
  forward(client, server, delayed ? { delayMs: 0, notBefore: performance.now() + model.dnsMs + model.rttMs } : undefined);
  forward(server, client, delayed ? { delayMs: model.rttMs, notBefore: 0 } : undefined);
}

/** `from`'s bytes and end to `to`, each `delayMs` later than it came and in order; a failure resets `to`. */
function forward(from: Socket, to: Socket, delay: { delayMs: number; notBefore: number } | undefined): void {
  from.on("error", () => to.destroy());
  if (!delay) {
    from.pipe(to);
    return;
  }
  // One queue and one timer, so that nothing overtakes what came before it.
  const queue: Array<{ due: number; chunk: Buffer | null }> = [];
  let timerSet = false;
  let lastDue = delay.notBefore;
  const deliverDue = () => {
    timerSet = false;
    while (queue.length > 0 && queue[0]!.due <= performance.now()) {
      const { chunk } = queue.shift()!;
      if (to.destroyed) return;
      if (chunk === null) to.end();
      else to.write(chunk);
    }
    if (queue.length > 0) setTimer(queue[0]!.due);
  };
  const setTimer = (due: number) => {
    timerSet = true;
    setTimeout(deliverDue, due - performance.now());
  };
  const enqueue = (chunk: Buffer | null) => {
    lastDue = Math.max(performance.now() + delay.delayMs, lastDue);
    queue.push({ due: lastDue, chunk });
    if (!timerSet) setTimer(lastDue);
  };
  from.on("data", (chunk: Buffer) => enqueue(chunk));
  from.once("end", () => enqueue(null));
}

// Loaded with --require (NODE_OPTIONS) into every Node function the lab or a build runs: nothing
// they run may leave this machine. Every TCP connect and UDP send to an address other than
// loopback (where the local AWS, the Runtime API and the X-Ray daemon listen) fails at once as a
// refused connection, and says so on stderr with the host and port (the function's log; the
// build reads it), the first AWS endpoint's with why a client asked for one. The guard sits on
// the socket handles' native bindings, below net, tls, http, fetch's undici and database drivers
// alike, so it catches literal addresses too, and loads no module a function would not load
// itself. A host name other than loopback's resolves to an address of a range reserved for
// documentation (RFC 5737, RFC 3849), remembered, so the refusal can name the host the function
// asked for. Not caught: dns.resolve*() queries (c-ares's own sockets) and native addons'
// sockets. A connection to 127.0.0.1:443 goes to the local AWS (localAwsPort).
"use strict";
const dns = require("node:dns");
const { TCP } = process.binding("tcp_wrap");
const { UDP } = process.binding("udp_wrap");
const { UV_ECONNREFUSED } = process.binding("uv");

const isLoopback = (address) => address === "::1" || /^127\./.test(address) || /^::ffff:127\./.test(address);
const isLoopbackName = (host) => host === "localhost" || host.endsWith(".localhost");
const isAddress = (host) => /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.includes(":");
/** The name each reserved address stands for; the addresses are handed out in turn, 254 of each family. */
const hostOf = new Map();
let lookups = 0;
const reservedAddress = (hostname, family) => {
  const n = (lookups++ % 254) + 1;
  const address = family === 6 ? `2001:db8::${n}` : `192.0.2.${n}`;
  hostOf.set(address, hostname);
  return address;
};

const systemLookup = dns.lookup;
dns.lookup = function guardedLookup(hostname, ...rest) {
  if (typeof hostname !== "string" || isLoopbackName(hostname) || isAddress(hostname)) return systemLookup.call(this, hostname, ...rest);
  const [options, callback] = rest;
  const done = typeof options === "function" ? options : callback;
  const family = typeof options === "object" && options?.family === 6 ? 6 : 4;
  const address = reservedAddress(hostname, family);
  const all = typeof options === "object" && options?.all === true;
  process.nextTick(() => (all ? done(null, [{ address, family }]) : done(null, address, family)));
  return {};
};

/** Said with the first refusal of an AWS endpoint in a process: why a client asked for one at all. */
const AWS_ENDPOINT = /\.amazonaws\.com(\.cn)?$/;
const WHY_AWS =
  " (a client that did not read AWS_ENDPOINT_URL, where the lab puts the local AWS: the SDK v2, aws-sdk, never reads it; the v3 clients, @aws-sdk/client-*, do)";
let toldWhyAws = false;

/** Writes the refusal's line and returns the error libuv gives a refused connection. */
function refuse(address, port) {
  const host = hostOf.get(address) ?? (address.includes(":") ? `[${address}]` : address);
  const why = !toldWhyAws && AWS_ENDPOINT.test(host) ? WHY_AWS : "";
  if (why) toldWhyAws = true;
  process.stderr.write(
    `warpstart: refused an outbound connection to ${host}:${port}: nothing the lab or a build runs may leave this machine; only the local AWS is reachable${why}\n`,
  );
  return UV_ECONNREFUSED;
}

/**
 * The local AWS's port, where a connection to 127.0.0.1:443 goes: the ResponseURL the lab gives a
 * custom resource's function is https://127.0.0.1/..., and cfn-response PUTs to port 443 whatever
 * the URL says (emulation/events.mts). Nothing else listens at 443 on Lambda's loopback either.
 */
const localAwsPort = (() => {
  try {
    return Number(new URL(process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL).port) || null;
  } catch {
    return null;
  }
})();
const HTTPS_PORT = 443;

// net: handle.connect(req, address, port) and connect6; dgram: handle.send(req, list, count,
// port, address, hasCallback) and send6 (a connected socket's send has no address), connect(6).
for (const method of ["connect", "connect6"]) {
  const connect = TCP.prototype[method];
  TCP.prototype[method] = function guardedConnect(req, address, port, ...rest) {
    if (!isLoopback(address)) return refuse(address, port);
    const to = port === HTTPS_PORT && localAwsPort && /^(::ffff:)?127\.0\.0\.1$/.test(address) ? localAwsPort : port;
    return connect.call(this, req, address, to, ...rest);
  };
}
for (const method of ["send", "send6"]) {
  const send = UDP.prototype[method];
  UDP.prototype[method] = function guardedSend(req, list, count, ...rest) {
    const [port, address] = rest;
    return typeof address !== "string" || isLoopback(address) ? send.call(this, req, list, count, ...rest) : refuse(address, port);
  };
}
for (const method of ["connect", "connect6"]) {
  const connect = UDP.prototype[method];
  UDP.prototype[method] = function guardedConnect(address, port) {
    return isLoopback(address) ? connect.call(this, address, port) : refuse(address, port);
  };
}

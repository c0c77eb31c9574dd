// Loaded with --require (NODE_OPTIONS) into every Node function the lab or a build runs: nothing
// they run may leave this machine, so looking up any host name but loopback's (where the local
// AWS, the Runtime API and the X-Ray daemon listen) fails at once, as a refused connection, and
// says so on stderr (the function's log; the build reads it to name the host). Every client that
// connects by name (http, https, fetch's undici, database drivers) asks dns.lookup first, which
// Node's net reads at each connect; guarding net itself would load it into functions that never
// connect. Not caught: a connection to a literal IP address, which no lookup precedes.
"use strict";
const dns = require("node:dns");

const isLoopback = (host) => host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\./.test(host);
const systemLookup = dns.lookup;

dns.lookup = function guardedLookup(hostname, ...rest) {
  if (typeof hostname !== "string" || isLoopback(hostname)) return systemLookup.call(this, hostname, ...rest);
  const done = rest.find((arg) => typeof arg === "function");
  process.stderr.write(
    `warpstart: refused an outbound connection to ${hostname}: nothing the lab or a build runs may leave this machine; only the local AWS is reachable\n`,
  );
  const error = Object.assign(new Error(`getaddrinfo ECONNREFUSED ${hostname} (warpstart: only the local AWS is reachable)`), {
    code: "ECONNREFUSED",
    syscall: "getaddrinfo",
    hostname,
  });
  process.nextTick(() => done(error));
  return {};
};

// Loaded with --require (NODE_OPTIONS) into a Node function the lab runs on a network with a DNS
// lookup (network.mts, function-environment.mts): the local AWS's name resolves as a regional
// endpoint's does on Lambda. There getaddrinfo runs in libuv's thread pool while the function's
// JavaScript goes on, and its answer is taken when the event loop is next free; a timer of the
// lookup's length is the same. Any other name resolves as usual. CommonJS and synchronous: in
// place before the runtime client's first line. Node's net reads dns.lookup at each connect.
"use strict";
const dns = require("node:dns");

const name = new URL(process.env.AWS_ENDPOINT_URL).hostname;
const lookupMs = Number(process.env.WARPSTART_LAB_DNS_MS);
const address = "127.0.0.1"; // where the local AWS listens
const systemLookup = dns.lookup;

dns.lookup = function lookup(hostname, ...rest) {
  if (hostname !== name) return systemLookup.call(this, hostname, ...rest);
  const [options, callback] = rest;
  const done = typeof options === "function" ? options : callback;
  const all = typeof options === "object" && options !== null && options.all === true;
  setTimeout(() => (all ? done(null, [{ address, family: 4 }]) : done(null, address, 4)), lookupMs);
  return {};
};

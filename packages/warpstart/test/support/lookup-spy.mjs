// Preload (node --import <this file's URL>?out=<file>&channel=<name>), after the lab's DNS
// preload: writes to `out`, in order, each dns.lookup of a host name and each step Warp's chunk
// loader publishes on `channel` (SDK_CHUNK_CHANNEL), when the process exits.
import { subscribe } from "node:diagnostics_channel";
import dns from "node:dns";
import { writeFileSync } from "node:fs";

const params = new URL(import.meta.url).searchParams;
const [out, channel] = [params.get("out"), params.get("channel")];
if (!out || !channel) throw new Error(`lookup-spy.mjs needs ?out=<file>&channel=<name> in its URL, not ${import.meta.url}`);
const events = [];
const lookup = dns.lookup;
dns.lookup = function spiedLookup(hostname, ...rest) {
  events.push(`lookup ${hostname}`);
  return lookup.call(this, hostname, ...rest);
};
subscribe(channel, (step) => events.push(`chunk ${step}`));
process.on("exit", () => writeFileSync(out, JSON.stringify(events)));

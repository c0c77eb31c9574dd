// Preload (node --import <this file's URL>?at=<ms since the epoch>) that makes a function's INIT
// repeatable: the clock stands still at `at`, and the randomness the SDK puts into a request
// (the invocation id's UUID, getRandomValues, the retry jitter's Math.random) comes from fixed
// sequences. Two builds of the same function then owe each other the same request, byte for
// byte, signature included. Plain JavaScript, as invoke-once.mjs, so no TypeScript stripper loads.
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";

const at = Number(new URL(import.meta.url).searchParams.get("at"));
if (!Number.isSafeInteger(at)) throw new Error(`fixed-clock.mjs needs ?at=<ms since the epoch> in its URL, not ${import.meta.url}`);

// A Proxy, not a subclass: Date() called without new still works, and instanceof Date still holds.
const RealDate = Date;
globalThis.Date = new Proxy(RealDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length ? args : [at], newTarget),
  apply: () => new RealDate(at).toString(),
  get: (target, property, receiver) => (property === "now" ? () => at : Reflect.get(target, property, receiver)),
});

// UUIDs count up (…-000000000001 is the first one drawn): readable, and equal across builds
// that draw as many, whichever crypto they draw them from.
let uuids = 0;
const randomUUID = () => `00000000-0000-4000-8000-${(++uuids).toString(16).padStart(12, "0")}`;

/** xorshift32 from a fixed seed: the same numbers in every process. */
function sequence() {
  let state = 0x9e3779b9;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}
const nextByte = sequence();
const getRandomValues = (array) => {
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(nextByte() * 256);
  return array;
};
Math.random = sequence();

// The published SDK draws from the global (web) crypto, the patched one from node:crypto
// (patches/*uuid-without-webcrypto.patch); node:crypto's getRandomValues calls the global's.
Object.defineProperties(globalThis.crypto, { randomUUID: { value: randomUUID }, getRandomValues: { value: getRandomValues } });
crypto.randomUUID = randomUUID;
syncBuiltinESMExports(); // so `import { randomUUID } from "node:crypto"` sees it too

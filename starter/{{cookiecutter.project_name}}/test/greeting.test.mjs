import assert from "node:assert/strict";
import { test } from "node:test";
import { greetingResponse } from "../src/greeting.mjs";

test("answers the greeting INIT read, to whoever the query names", () => {
  const answer = greetingResponse("Hello from INIT", "Ada");
  assert.equal(answer.statusCode, 200);
  assert.deepEqual(JSON.parse(answer.body), { message: "Hello from INIT, Ada" });
});

test("answers the greeting alone when the query names nobody", () => {
  assert.deepEqual(JSON.parse(greetingResponse("Hello from INIT").body), { message: "Hello from INIT" });
});

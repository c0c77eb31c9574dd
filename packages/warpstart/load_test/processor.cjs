// Artillery processor: reads each response's identity JSON and reports, per variant (the
// request name), cold starts and initialization types as custom counters, and the latency of
// each environment's first request (coldstart: true) as a histogram.
"use strict";

function countColdStarts(req, res, _context, events, next) {
  const variant = req.name || "unnamed";
  let body;
  try {
    body = JSON.parse(res.body);
  } catch {
    events.emit("counter", `warpstart.${variant}.unparsable_responses`, 1);
    return next();
  }
  const total = res.timings?.phases?.total;
  if (typeof total === "number") events.emit("histogram", `warpstart.${variant}.response_ms`, total);
  if (body.coldstart === true) {
    events.emit("counter", `warpstart.${variant}.cold_starts`, 1);
    if (typeof total === "number") events.emit("histogram", `warpstart.${variant}.first_request_ms`, total);
  }
  events.emit("counter", `warpstart.${variant}.init_type.${body.initializationType || "unknown"}`, 1);
  return next();
}

module.exports = { countColdStarts };

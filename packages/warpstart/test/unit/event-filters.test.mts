// Lambda's event filtering as the lab applies it to a generated event (emulation/event-filters.mts):
// each rule keeps the records it passes, and a record that none passes is changed to pass the first.
import { filteredEvent, filterPatterns } from "../../emulation/event-filters.mts";

const records = [
  { eventName: "INSERT", size: 3, region: "eu-west-1", note: "hello" },
  { eventName: "REMOVE", size: 9, region: "us-east-1" },
];
const kept = (pattern: Record<string, unknown>) => filteredEvent({ Records: records }, [pattern]).Records;

it.each([
  ["a literal", { eventName: ["REMOVE"] }, [records[1]]],
  ["prefix", { region: [{ prefix: "eu-" }] }, [records[0]]],
  ["suffix", { region: [{ suffix: "-1" }] }, records],
  ["equals-ignore-case", { eventName: [{ "equals-ignore-case": "insert" }] }, [records[0]]],
  ["anything-but", { eventName: [{ "anything-but": ["INSERT"] }] }, [records[1]]],
  ["exists", { note: [{ exists: true }] }, [records[0]]],
  ["exists false", { note: [{ exists: false }] }, [records[1]]],
  ["numeric ranges", { size: [{ numeric: [">", 2, "<=", 3] }] }, [records[0]]],
  ["one of several accepted values", { eventName: ["MODIFY", "REMOVE"] }, [records[1]]],
])("%s passes the records it matches", (_, pattern, expected) => {
  expect(kept(pattern)).toEqual(expected);
});

it.each([
  ["a literal", { eventName: ["MODIFY"] }, { eventName: "MODIFY" }],
  ["numeric", { size: [{ numeric: [">", 10] }] }, { size: 11 }],
  ["exists false", { region: [{ exists: false }] }, { region: undefined }],
  ["a nested field, made where it was not", { detail: { state: ["OK"] } }, { detail: { state: "OK" } }],
])("where none passes, the first record changed to pass %s", (_, pattern, change) => {
  const expected = { ...records[0], ...change } as Record<string, unknown>;
  for (const [key, value] of Object.entries(expected)) if (value === undefined) delete expected[key];
  expect(kept(pattern)).toEqual([expected]);
});

it("reads the patterns SAM's FilterCriteria holds (JSON strings), skipping one that is not JSON", () => {
  expect(filterPatterns({ FilterCriteria: { Filters: [{ Pattern: '{"a": ["b"]}' }, { Pattern: "{not json" }] } })).toEqual([{ a: ["b"] }]);
  expect(filterPatterns({})).toEqual([]);
});

it("a Kinesis record's base64 data is matched, and made to match, as the JSON it holds", () => {
  const data = (json: object) => Buffer.from(JSON.stringify(json)).toString("base64");
  const event = { Records: [{ kinesis: { data: data({ level: "debug" }) } }] };
  const [record] = filteredEvent(event, [{ kinesis: { data: { level: ["error"] } } }]).Records as { kinesis: { data: string } }[];
  expect(JSON.parse(Buffer.from(record!.kinesis.data, "base64").toString("utf8"))).toEqual({ level: "error" });
});

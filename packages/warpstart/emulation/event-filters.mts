// A poller's FilterCriteria (SQS, Kinesis, DynamoDB streams, MSK, MQ): Lambda invokes the function
// only with the records one of its filters matches, so the lab's generated event holds only those.
// The rules are Lambda's event filtering syntax (docs: "Control which events Lambda sends to your
// function"): a field's list of accepted values, each a literal or one of prefix, suffix,
// equals-ignore-case, exists, numeric, anything-but; an SQS body or a Kinesis record's data is
// matched as the JSON it holds.

type Json = Record<string, unknown>;

/** The fields whose string holds the record's message, matched as the JSON it is: SQS's body, Kinesis's base64 data. */
const MESSAGE_FIELDS: Record<string, { read: (text: string) => string; write: (json: string) => string }> = {
  body: { read: (text) => text, write: (json) => json },
  data: { read: (text) => Buffer.from(text, "base64").toString("utf8"), write: (json) => Buffer.from(json).toString("base64") },
};

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The JSON a message field's string holds, or undefined when it holds none. */
function messageOf(field: string, value: unknown): Json | undefined {
  const message = MESSAGE_FIELDS[field];
  if (!message || typeof value !== "string") return undefined;
  try {
    const parsed = JSON.parse(message.read(value)) as unknown;
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Whether one accepted value (a literal, or an operator's object) takes `value` (undefined: the field is absent). */
function accepts(rule: unknown, value: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => accepts(rule, item));
  if (!isObject(rule)) return value !== undefined && rule === value;
  const [[operator, operand]] = Object.entries(rule) as [[string, unknown]];
  const text = typeof value === "string" ? value : undefined;
  switch (operator) {
    case "exists":
      return (value !== undefined) === operand;
    case "prefix":
      return text?.startsWith(String(operand)) ?? false;
    case "suffix":
      return text?.endsWith(String(operand)) ?? false;
    case "equals-ignore-case":
      return text?.toLowerCase() === String(operand).toLowerCase();
    case "anything-but":
      return value !== undefined && !(Array.isArray(operand) ? operand : [operand]).includes(value);
    case "numeric": {
      if (typeof value !== "number") return false;
      const pairs = operand as (string | number)[];
      const test: Record<string, (a: number, b: number) => boolean> = {
        "<": (a, b) => a < b,
        "<=": (a, b) => a <= b,
        "=": (a, b) => a === b,
        ">": (a, b) => a > b,
        ">=": (a, b) => a >= b,
      };
      for (let i = 0; i < pairs.length; i += 2) if (!test[String(pairs[i])]?.(value, Number(pairs[i + 1]))) return false;
      return true;
    }
    default:
      return false; // a rule this reading does not know (wildcard, cidr): the record is made to match instead
  }
}

/** Whether a record (or a part of it) matches a filter's pattern: every field the pattern names, as it says. */
function matches(record: unknown, pattern: Json): boolean {
  return Object.entries(pattern).every(([field, rule]) => {
    const value = isObject(record) ? record[field] : undefined;
    if (Array.isArray(rule)) return rule.some((accepted) => accepts(accepted, value));
    return isObject(rule) && matches(messageOf(field, value) ?? value, rule);
  });
}

/** A value the first of a field's accepted values takes (undefined: the field is left out). */
function acceptedValue(rule: unknown, value: unknown): unknown {
  if (!isObject(rule)) return rule;
  const [[operator, operand]] = Object.entries(rule) as [[string, unknown]];
  if (accepts(rule, value)) return value;
  switch (operator) {
    case "exists":
      return operand ? "warpstart-sample" : undefined;
    case "anything-but":
      return "warpstart-sample";
    case "numeric": {
      const [comparison, bound] = operand as [string, number];
      return comparison === ">" ? bound + 1 : comparison === "<" ? bound - 1 : bound;
    }
    default:
      return operand; // prefix, suffix, equals-ignore-case: the operand itself matches
  }
}

/** The record changed as little as it takes to match the pattern. */
function conformed(record: unknown, pattern: Json): Json {
  const result: Json = isObject(record) ? { ...record } : {};
  for (const [field, rule] of Object.entries(pattern)) {
    if (Array.isArray(rule)) {
      if (rule.some((accepted) => accepts(accepted, result[field]))) continue;
      const value = acceptedValue(rule[0], result[field]);
      if (value === undefined) delete result[field];
      else result[field] = value;
    } else if (isObject(rule)) {
      const message = messageOf(field, result[field]);
      const inner = conformed(message ?? result[field], rule);
      result[field] = MESSAGE_FIELDS[field] && typeof result[field] === "string" ? MESSAGE_FIELDS[field].write(JSON.stringify(inner)) : inner;
    }
  }
  return result;
}

/** The patterns of an event source's FilterCriteria (each Filter's Pattern, a JSON string); none when it has none. */
export function filterPatterns(properties: Record<string, unknown>): Json[] {
  const { Filters: filters } = (properties.FilterCriteria ?? {}) as { Filters?: { Pattern?: unknown }[] };
  if (!Array.isArray(filters)) return [];
  return filters.flatMap(({ Pattern: pattern }) => {
    try {
      const parsed = typeof pattern === "string" ? (JSON.parse(pattern) as unknown) : pattern;
      return isObject(parsed) ? [parsed] : [];
    } catch {
      return [];
    }
  });
}

/**
 * The event Lambda would send for these filters: the records one of them matches, or, when the
 * generated records match none, the first changed to match the first filter.
 */
export function filteredEvent(event: Json, patterns: Json[]): Json {
  const records = event.Records;
  if (patterns.length === 0 || !Array.isArray(records) || records.length === 0) return event;
  const kept = records.filter((record) => patterns.some((pattern) => matches(record, pattern)));
  return { ...event, Records: kept.length > 0 ? kept : [conformed(records[0], patterns[0]!)] };
}

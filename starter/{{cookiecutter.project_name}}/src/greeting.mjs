// The answer, apart from where its greeting comes from: no I/O, so its test needs no AWS.
export function greetingResponse(greeting, name) {
  const message = name ? `${greeting}, ${name}` : greeting;
  return { statusCode: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ message }) };
}

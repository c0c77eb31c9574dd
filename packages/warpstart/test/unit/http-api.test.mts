// API Gateway's payload format 2.0 response mapping (SAM local_apigw_service.py, AWS docs).
import { mapResponse } from "../../lab/http-api.mts";

const mapped = (value: unknown, functionError?: string) => {
  const response = mapResponse(Buffer.from(typeof value === "string" ? value : JSON.stringify(value)), functionError);
  return { ...response, body: response.body.toString("utf8") };
};

describe("mapResponse", () => {
  it("uses statusCode, headers, cookies and body", () => {
    expect(mapped({ statusCode: 201, headers: { "x-a": "1" }, cookies: ["c=1"], body: "hi" })).toEqual({
      status: 201,
      headers: { "content-type": "application/json", "x-a": "1", "set-cookie": ["c=1"] },
      body: "hi",
    });
  });

  it("decodes a base64 body", () => {
    expect(mapped({ statusCode: 200, body: Buffer.from("binary").toString("base64"), isBase64Encoded: true }).body).toBe("binary");
  });

  it("infers 200 and JSON for an object without statusCode", () => {
    expect(mapped({ hello: "world" })).toMatchObject({ status: 200, body: '{"hello":"world"}' });
  });

  it("answers 200 with a string result as the body", () => {
    expect(mapped(JSON.stringify("plain"))).toMatchObject({ status: 200, body: "plain" });
  });

  it.each([[{ statusCode: "200" }], [{ statusCode: 99 }], ["{not json"]])("answers 502 for an unusable result %p", (value) => {
    expect(mapped(value)).toMatchObject({ status: 502, body: '{"message":"Internal server error"}' });
  });

  it("answers 500 for a function error", () => {
    expect(mapped({ errorType: "TypeError", errorMessage: "boom" }, "Unhandled")).toMatchObject({ status: 500, body: '{"message":"Internal server error"}' });
  });
});

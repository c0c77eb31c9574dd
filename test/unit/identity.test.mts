import { httpResponse, type IdentityBody, MASKED_ACCOUNT_ID, maskAccountIds, requestPath } from "../../src/functions/identity/identity.mts";

describe("maskAccountIds", () => {
  it("masks the account id in an assumed-role ARN", () => {
    expect(maskAccountIds("arn:aws:sts::123456789012:assumed-role/app-role/app-fn")).toBe(`arn:aws:sts::${MASKED_ACCOUNT_ID}:assumed-role/app-role/app-fn`);
  });

  it("masks a bare account id, such as the root user's UserId", () => {
    expect(maskAccountIds("123456789012")).toBe(MASKED_ACCOUNT_ID);
  });

  it("masks every account id in a string", () => {
    expect(maskAccountIds("111111111111 and 222222222222")).toBe(`${MASKED_ACCOUNT_ID} and ${MASKED_ACCOUNT_ID}`);
  });

  it("leaves digit runs that are not 12 long alone", () => {
    expect(maskAccountIds("12345678901 1234567890123")).toBe("12345678901 1234567890123");
  });

  it("leaves ids without digits alone and maps a missing value to null", () => {
    expect(maskAccountIds("AROAEXAMPLEROLEID:app-fn")).toBe("AROAEXAMPLEROLEID:app-fn");
    expect(maskAccountIds(undefined)).toBeNull();
  });
});

describe("requestPath", () => {
  it("reads rawPath from an HTTP API event", () => {
    expect(requestPath({ version: "2.0", rawPath: "/raw" })).toBe("/raw");
  });

  it.each([[undefined], [null], ["GET /raw"], [42], [[]], [{}], [{ rawPath: 7 }]])("returns null for %p", (event) => {
    expect(requestPath(event)).toBeNull();
  });
});

describe("httpResponse", () => {
  it("answers in the HTTP API payload 2.0 format with a JSON string body", () => {
    const body = { function: "Raw", profile: "Raw", coldstart: true } as IdentityBody;
    const response = httpResponse(body);
    expect(response).toEqual({ statusCode: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  });
});

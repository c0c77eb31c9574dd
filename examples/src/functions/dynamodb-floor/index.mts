// DynamoDb's Floor: its INIT's DescribeTable and its per-invoke calls (?calls=K PutItem, or
// ListTables with ?operation=ListTables) with no AWS SDK: AWS JSON calls over node:https,
// SigV4-signed, on one keep-alive connection, answering with the same fields.
import { awsJsonClient } from "../../shared/aws-json-floor.mts";
import { invokeFacts, json, requestedCalls, requestedOperation, stopwatch, timedCalls } from "../../shared/report.mts";

declare const TABLE_NAME: string;

const dynamodb = awsJsonClient({ serviceId: "DynamoDB", signingName: "dynamodb", targetPrefix: "DynamoDB_20120810", jsonVersion: "1.0" });

const elapsedMs = stopwatch();
const { Table } = await dynamodb<{ Table?: { TableStatus?: string } }>("DescribeTable", { TableName: TABLE_NAME });
const initCallMs = elapsedMs();

let sequence = 0;
const operations = {
  PutItem: () => dynamodb("PutItem", { TableName: TABLE_NAME, Item: { id: { S: `item-${++sequence}` }, at: { N: String(Date.now()) } } }),
  ListTables: () => dynamodb("ListTables", {}),
};

export const handler = async (event: { queryStringParameters?: Record<string, string | undefined> }) => {
  const operation = requestedOperation(event);
  const calls = await timedCalls(requestedCalls(event), operations[operation]);
  return json({ ...invokeFacts(), table: TABLE_NAME, tableStatus: Table?.TableStatus, keepAlive: true, initCallMs, operation, calls });
};

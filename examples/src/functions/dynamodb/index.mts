// The keep-alive workloads of Yan Cui's "Lambda optimization tip – enable HTTP keep-alive"
// (PutItem) and of the published ListTables measurement: DynamoDB calls from a warm function, with
// the SDK's keep-alive agent or without it (BuildProperties.Define KEEP_ALIVE: false). INIT checks
// the table (DescribeTable, top-level await); each invoke makes K sequential calls (?calls=K):
// PutItem, or ListTables with ?operation=ListTables, and reports each call's latency.
import { DescribeTableCommand, DynamoDBClient, ListTablesCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { invokeFacts, json, requestedCalls, requestedOperation, stopwatch, timedCalls } from "../../shared/report.mts";

declare const TABLE_NAME: string;
declare const KEEP_ALIVE: boolean | undefined;

// One client per execution environment: with keep-alive (the SDK's default agent) every call
// after the first reuses the connection INIT opened.
const keepAlive = typeof KEEP_ALIVE === "undefined" || KEEP_ALIVE;
const dynamodb = new DynamoDBClient(keepAlive ? {} : { requestHandler: { httpsAgent: { keepAlive: false } } });

const elapsedMs = stopwatch();
const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: TABLE_NAME }));
const initCallMs = elapsedMs();

let sequence = 0;
const operations = {
  PutItem: () => dynamodb.send(new PutItemCommand({ TableName: TABLE_NAME, Item: { id: { S: `item-${++sequence}` }, at: { N: String(Date.now()) } } })),
  ListTables: () => dynamodb.send(new ListTablesCommand({})),
};

export const handler = async (event: { queryStringParameters?: Record<string, string | undefined> }) => {
  const operation = requestedOperation(event);
  const calls = await timedCalls(requestedCalls(event), operations[operation]);
  return json({ ...invokeFacts(), table: TABLE_NAME, tableStatus: Table?.TableStatus, keepAlive, initCallMs, operation, calls });
};

// The local AWS a `sam build` shares: SAM's makefile builder runs `warpstart build` once per
// function, and each Warp function's build runs INIT against AWS. The first build that asks
// starts this server (build-services.mts); every build of the same template asks it for the
// services while it runs, and it stops once no build has used it for IDLE_MS.
//   node build-aws-server.mts <socket> <template>
// It answers one JSON line per request on the socket, the connection being a build's lease:
//   {"open": true}     the services, with the template's resources made (once per version of the file)
//   {"calls": "<key>"} the calls signed with that access key
//   {"status": true}   its pid and how many builds it served
//   {"stop": true}     stops now
// Its first line on stdout says "ready", or "taken" when another server answers on the socket.
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { createInterface } from "node:readline";
import { answers } from "../../core/servers.mts";
import { readTemplate } from "../../core/template.mts";
import { eventDataFor } from "./build-services.mts";
import { type LocalAws, startLocalAws } from "./local-aws.mts";
import { type CreatedResources, createResources, type Seeder, startSeeder } from "./resources.mts";

/** How long it waits for the next build once the last one is done: longer than SAM takes between two builds. */
const IDLE_MS = 20_000;

const [socketPath, templateFile] = process.argv.slice(2) as [string, string];

// The template's resources, made once per version of the file: every build of a sam build reads the same one.
let madeFrom: string | null = null;
let made: Promise<CreatedResources> | null = null;
function resources(aws: LocalAws): Promise<CreatedResources> {
  const version = createHash("sha256").update(readFileSync(templateFile)).digest("hex");
  if (version !== madeFrom || !made) {
    madeFrom = version;
    const template = readTemplate(templateFile);
    // What each function's event names, for the builds whose cache is made after an invoke with it.
    made = createResources(template, aws, { eventData: template.functions.flatMap(eventDataFor), seeder: takeSeeder() });
  }
  return made;
}

let builds = 0;
let leases = 0;
let idle: NodeJS.Timeout | undefined;
const server = createServer((socket) => {
  leases += 1;
  clearTimeout(idle);
  socket.on("close", () => {
    leases -= 1;
    if (leases === 0) idle = setTimeout(stop, IDLE_MS);
  });
  socket.on("error", () => {}); // a build that ended mid-answer: its lease is over
  createInterface({ input: socket }).on("line", (line) => void answer(socket, JSON.parse(line) as Record<string, unknown>));
});

async function answer(socket: Socket, request: Record<string, unknown>): Promise<void> {
  let reply: unknown;
  try {
    const aws = await started;
    if (request.open) {
      builds += 1;
      const { attributes } = await resources(aws);
      reply = { endpoint: aws.endpoint, caFile: aws.caFile, xrayAddress: aws.xray.address, attributes };
    } else if (typeof request.calls === "string") reply = { calls: await aws.calls(request.calls) };
    else if (request.status) reply = { pid: process.pid, builds, startedAt };
    else if (request.stop) reply = {};
    else reply = { error: `unknown request ${JSON.stringify(request)}` };
  } catch (error) {
    if (request.open) made = null; // the next build tries again
    reply = { error: (error as Error).message };
  }
  socket.write(`${JSON.stringify(reply)}\n`);
  if (request.stop) await stop();
}

async function stop(): Promise<void> {
  server.close();
  rmSync(socketPath, { force: true });
  await (await started).stop();
  console.error(`${new Date().toISOString()} stopped after ${builds} builds`);
  process.exit(0);
}

/** Claims the socket before anything starts: of two servers started at once, the second finds it taken. */
function listen(): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve(true));
  }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE") throw error;
    if (await answers(socketPath)) return false;
    rmSync(socketPath, { force: true }); // left by a server that ended without removing it
    return listen();
  });
}

if (!(await listen())) {
  process.stdout.write("taken\n");
  process.exit(0);
}
// The first build's resources are made by a seeder started now, which loads moto's CloudFormation
// (over a second) while the local AWS starts; a later version of the template gets one of its own.
let seeder: Seeder | undefined = startSeeder();
const takeSeeder = () => {
  const taken = seeder;
  seeder = undefined;
  return taken;
};
// Requests that come before it is up wait for it.
const started = startLocalAws();
started.catch(() => takeSeeder()?.stop());
const startedAt = new Date().toISOString();
console.error(`${startedAt} the local AWS for ${templateFile}: ${(await started).endpoint} (pid ${process.pid})`);
idle = setTimeout(stop, IDLE_MS);
process.stdout.write("ready\n");

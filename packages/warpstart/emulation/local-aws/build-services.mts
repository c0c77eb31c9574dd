// The local AWS as the services a Warp build's INIT runs against (core/init-services.mts):
// one a whole `sam build` shares (sharedLocalAws, build-aws-server.mts), or one started for a
// single build (ownLocalAws: the lab's, the bench's and the doctor's builds, whose templates may
// be read with parameter values of their own).
import type { Socket } from "node:net";
import { createInterface } from "node:readline";
import type { InitServices, OpenInitServices } from "../../core/init-services.mts";
import { ownModule } from "../../core/paths.mts";
import { connectTo, serverFiles, startDetached } from "../../core/servers.mts";
import type { TemplateFunction } from "../../core/template.mts";
import { ensurePart } from "../../core/tools.mts";
import { eventDataOf } from "../events.mts";
import { startLocalAws } from "./local-aws.mts";
import { createResources, type EventData, WHAT_THE_LAB_CREATES } from "./resources.mts";

/** What a function's event names, for a cache made after an invoke with it; nothing where the lab makes no event for it. */
export function eventDataFor(fn: TemplateFunction): EventData[] {
  try {
    return eventDataOf(fn);
  } catch {
    return [];
  }
}

/** A local AWS of its own for one build, stopped when the build releases it. */
export const ownLocalAws: OpenInitServices = async (template, fn) => {
  const aws = await startLocalAws();
  try {
    const { attributes } = await createResources(template, aws, { eventData: eventDataFor(fn) });
    return {
      endpoint: aws.endpoint,
      caFile: aws.caFile,
      xrayAddress: aws.xray.address,
      holds: WHAT_THE_LAB_CREATES,
      attributes,
      calls: (accessKeyId) => aws.calls(accessKeyId),
      release: () => aws.stop(),
    };
  } catch (error) {
    await aws.stop();
    throw error;
  }
};

/** Where the server of a template listens, and writes what it did. */
export const sharedServerOf = (templateFile: string) => serverFiles("build-aws", [templateFile]);

/** Starts the template's server, detached (it outlives this build), once it says it listens, or that another one does. */
function startServer(templateFile: string, { socket, log }: { socket: string; log: string }): Promise<void> {
  ensurePart("moto"); // here, where the build says what it downloads, not in the server's log
  return startDetached(process.execPath, [ownModule("emulation/local-aws/build-aws-server"), socket, templateFile], {
    log,
    what: "the local AWS for the build",
  });
}

/** One request and its answer, a JSON line each, on a connection that asks one thing at a time. */
function asker(socket: Socket, log: string): (request: object) => Promise<Record<string, unknown>> {
  const waiting: { answered(line: string): void; ended(): void }[] = [];
  createInterface({ input: socket }).on("line", (line) => waiting.shift()?.answered(line));
  // A server that ended (it could not start the local AWS) answers nobody: what waits fails.
  socket.on("close", () => {
    for (const request of waiting.splice(0)) request.ended();
  });
  return (request) =>
    new Promise((resolve, reject) => {
      waiting.push({
        answered(line) {
          const reply = JSON.parse(line) as Record<string, unknown>;
          if (typeof reply.error === "string") reject(new Error(reply.error));
          else resolve(reply);
        },
        ended: () => reject(new Error(`the local AWS of the build ended before it answered: see ${log}`)),
      });
      socket.write(`${JSON.stringify(request)}\n`);
    });
}

/** A connection to the server of a template's builds, started if none answers. */
export async function sharedServer(templateFile: string): Promise<{ socket: Socket; ask: ReturnType<typeof asker> }> {
  const where = sharedServerOf(templateFile);
  let socket = await connectTo(where.socket).catch(() => null);
  if (!socket) {
    await startServer(templateFile, where);
    socket = await connectTo(where.socket);
  }
  return { socket, ask: asker(socket, where.log) };
}

/**
 * The local AWS every build of the template shares while a `sam build` runs (and for a while
 * after): one start, and the template's resources made once, for all its Warp functions.
 */
export const sharedLocalAws: OpenInitServices = async (template) => {
  const { socket, ask } = await sharedServer(template.file);
  try {
    const opened = (await ask({ open: true })) as Omit<InitServices, "holds" | "calls" | "release">;
    return {
      ...opened,
      holds: WHAT_THE_LAB_CREATES,
      calls: async (accessKeyId) => (await ask({ calls: accessKeyId })).calls as Awaited<ReturnType<InitServices["calls"]>>,
      release: async () => void socket.end(),
    };
  } catch (error) {
    socket.destroy();
    throw error;
  }
};

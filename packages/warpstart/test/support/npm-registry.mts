// A stand-in for npm's registry, for the tests of what the lab installs on demand: the real npm CLI,
// pointed at it (npm_config_registry), installs packages the test wrote, and nothing leaves the
// machine. It serves what npm asks for an install and `npm view`: a package's document (its
// versions, each with its tarball's address and integrity) and the tarballs `npm pack` made.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeServer, listenOnLoopback } from "../../core/loopback.mts";
import { NODE22 } from "../../core/paths.mts";

export interface FakePackage {
  /** A folder with the package's files but package.json, which the registry writes per version. */
  dir: string;
  name: string;
  versions: string[];
  peerDependencies?: Record<string, string>;
}

export interface Registry {
  url: string;
  /** The package documents npm asked for, by name, in order. */
  asked: string[];
  close(): Promise<void>;
}

const NPM_CLI = join(NODE22, "../../npm/bin/npm-cli.js");

export async function startRegistry(packages: FakePackage[]): Promise<Registry> {
  const work = mkdtempSync(join(tmpdir(), "warpstart-registry-"));
  const tarballs = new Map<string, string>();
  const documents = new Map<string, { name: string; "dist-tags": { latest: string }; versions: Record<string, unknown> }>();
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url!, "http://registry").pathname.slice(1));
    const tarball = tarballs.get(path);
    if (tarball) return response.writeHead(200, { "content-type": "application/octet-stream" }).end(readFileSync(tarball));
    const document = documents.get(path);
    if (document) asked.push(path);
    response.writeHead(document ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify(document ?? { error: "Not found" }));
  });
  const asked: string[] = [];
  const port = await listenOnLoopback(server);
  const url = `http://127.0.0.1:${port}/`;
  for (const pkg of packages) {
    const versions: Record<string, unknown> = {};
    for (const version of pkg.versions) {
      const source = join(work, "src", `${pkg.name.replace("/", "+")}@${version}`);
      cpSync(pkg.dir, source, { recursive: true });
      const manifest = { name: pkg.name, version, main: "index.js", peerDependencies: pkg.peerDependencies };
      writeFileSync(join(source, "package.json"), JSON.stringify(manifest));
      const [packed] = JSON.parse(
        execFileSync(NODE22, [NPM_CLI, "pack", "--json", "--pack-destination", work, "--loglevel=error"], { cwd: source, encoding: "utf8" }),
      ) as { filename: string; integrity: string; shasum: string }[];
      const file = `tarballs/${packed!.filename}`;
      tarballs.set(file, join(work, packed!.filename));
      versions[version] = { ...manifest, dist: { tarball: `${url}${file}`, integrity: packed!.integrity, shasum: packed!.shasum } };
    }
    documents.set(pkg.name, { name: pkg.name, "dist-tags": { latest: pkg.versions.at(-1)! }, versions });
  }
  return {
    url,
    asked,
    close: async () => {
      await closeServer(server);
      rmSync(work, { recursive: true, force: true });
    },
  };
}

// Jest transformer for the project's TypeScript ES modules: esbuild strips the types (the same
// compiler the builds use); tsc --noEmit does the type checking.
import { transformSync } from "esbuild";

export default {
  process(source, filename) {
    const { code, map } = transformSync(source, { loader: "ts", format: "esm", target: "node22", sourcemap: "external", sourcefile: filename });
    return { code, map };
  },
};

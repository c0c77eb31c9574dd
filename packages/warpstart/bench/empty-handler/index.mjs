// The process-start comparison's baseline (bench/process-start.mts): a handler that imports
// nothing and does nothing at INIT, so a runtime's own start is measured, as in the
// Deno/Bun/Node study's hyperfine runs.
export const handler = async () => "hello";

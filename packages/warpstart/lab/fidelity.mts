// What of Lambda the lab plays beyond the runtime itself, on by default: the network between a
// function and AWS (emulation/local-aws/network.mts) and where a new environment's code comes from
// (emulation/page-cache.mts). The commands that start a lab take the same two flags.

import { errorMessage } from "../core/errors.mts";
import { type OptionSpec, UsageError } from "../core/options.mts";
import { describeNetwork, LAMBDA_NETWORK, type NetworkModel, parseNetwork } from "../emulation/local-aws/network.mts";

/**
 * `lambda`: a new environment reads its code from storage (its artifact, layers, a custom
 * runtime's binary, and the files it loads of the managed runtime's SDK copy); `artifact`: the
 * same but the runtime's SDK copy stays in memory (the lab's model before 2026-11-25, kept to
 * measure the difference); `none`: code from wherever it is.
 */
export type CodeLoading = "lambda" | "artifact" | "none";
const CODE_LOADINGS: readonly CodeLoading[] = ["lambda", "artifact", "none"];

export interface Fidelity {
  network: NetworkModel;
  codeLoading: CodeLoading;
}

export const LAMBDA_FIDELITY: Fidelity = { network: LAMBDA_NETWORK, codeLoading: "lambda" };

/** The two options of every command that starts a lab. */
export const FIDELITY_OPTIONS = {
  network: {
    value: "N",
    help: `the network between functions and the local AWS: lambda (default: ${describeNetwork(LAMBDA_NETWORK)}),\nnone (loopback), or dns=MS,rtt=MS`,
  },
  "code-loading": {
    value: "M",
    oneOf: CODE_LOADINGS,
    help: "lambda (default: each new environment reads its artifact, layers, a custom runtime's\nbinary and the managed runtime's SDK copy from storage, not the page cache),\nartifact (the same, the runtime's SDK copy in memory) or none",
  },
} as const satisfies Record<string, OptionSpec>;

export function fidelityFrom(values: { network?: string; "code-loading"?: string }): Fidelity {
  let network = LAMBDA_FIDELITY.network;
  if (values.network !== undefined) {
    try {
      network = parseNetwork(values.network);
    } catch (error) {
      throw new UsageError(`--network: ${errorMessage(error)}`, { cause: error });
    }
  }
  // Checked against FIDELITY_OPTIONS' oneOf by the parser.
  return { network, codeLoading: (values["code-loading"] ?? LAMBDA_FIDELITY.codeLoading) as CodeLoading };
}

/** One line for a report: what the run's lab played. */
export function describeFidelity(fidelity: Fidelity): string {
  const code = {
    lambda: "each new environment's code read from storage",
    artifact: "each new environment's code read from storage, the runtime's SDK copy from memory",
    none: "code from the page cache",
  }[fidelity.codeLoading];
  return `network: ${describeNetwork(fidelity.network)}; ${code}`;
}

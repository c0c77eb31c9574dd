// Tests that need what a machine may lack (a privilege, a kernel feature): they run where it is
// there; elsewhere jest skips them under a name that says what they need and how to run them, and
// test/support/run-report.mjs lists every skip at the end of the run. Never a silent skip, never a pass.

/** What a group of tests needs: whether this machine has it, what it is, and how to get it. */
export interface Requirement {
  met: boolean;
  /** e.g. "a mount namespace of its own (unshare --mount)". */
  needs: string;
  /** What to do to run them: the command, the package, the setting. */
  how: string;
}

/** `describe`, or, where the requirement is not met, `describe.skip` under a name that says why. */
export function describeIfMet(requirement: Requirement, name: string, tests: () => void): void {
  if (requirement.met) describe(name, tests);
  else describe.skip(`${name} [skipped: needs ${requirement.needs}; ${requirement.how}]`, tests);
}

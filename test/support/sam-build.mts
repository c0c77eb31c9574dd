// Jest globalSetup of the integration project: one real `sam build` (the makefile builder, as
// samconfig.toml configures it) whose artifacts every integration test reads.
import { samBuild } from "../../lab/sam.mts";

export default async function globalSetup(): Promise<void> {
  await samBuild({ quiet: true });
}

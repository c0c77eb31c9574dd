// Every optimization keeps what the demo's STS function does, byte for byte (test/support/request-bytes.mts).
import { DEMO_STS, requestBytesTests } from "../support/request-bytes.mts";

requestBytesTests([DEMO_STS]);

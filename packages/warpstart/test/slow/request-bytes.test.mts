// Every optimization keeps what the examples' SSM, Secrets Manager and DynamoDB functions do, byte for byte (test/support/request-bytes.mts).
import { EXAMPLE_SERVICES, requestBytesTests } from "../support/request-bytes.mts";

requestBytesTests(EXAMPLE_SERVICES);

// The JS SDK team's Lambda benchmark: STS GetCallerIdentity during INIT. SDK releases before
// AWS_ENDPOINT_URL support need the lab's local AWS named, which later ones read by themselves.
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";

const client = new STSClient({ endpoint: process.env.AWS_ENDPOINT_URL });
const identity = await client.send(new GetCallerIdentityCommand({}));
export const handler = async () => ({ statusCode: 200, body: identity.Account });

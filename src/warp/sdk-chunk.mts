// The entry of Warp's SDK chunk (sdk.cjs): the part of the SDK the handler uses, as CommonJS,
// so sdk-chunk-loader.mts can compile it with vm.Script and a V8 code cache.
export { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";

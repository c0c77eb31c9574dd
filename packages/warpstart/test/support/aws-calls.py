"""Calls the local AWS through boto3, for tests that check what is in it with clients the project's
Node tree lacks (SQS, SNS, Kinesis, Step Functions, CloudWatch Logs...).

usage: aws-calls.py REQUEST
REQUEST is JSON: {"endpoint", "caFile", "region", "calls": [[service, operation, params], ...]}.
Prints a JSON list: each call's response, or {"error": code} when the service refused it.
"""
import json
import sys

import boto3
from botocore.exceptions import ClientError


def main() -> None:
    request = json.loads(sys.argv[1])
    session = boto3.session.Session(aws_access_key_id="ASIAWARPSTARTTESTS00", aws_secret_access_key="test", region_name=request["region"])
    answers = []
    for service, operation, params in request["calls"]:
        client = session.client(service, endpoint_url=request["endpoint"], verify=request["caFile"])
        try:
            answer = getattr(client, operation)(**params)
            answer.pop("ResponseMetadata", None)
            answers.append(answer)
        except ClientError as error:
            answers.append({"error": error.response["Error"]["Code"]})
    json.dump(answers, sys.stdout, default=str)


main()

"""Creates a template's resources in the local AWS, as CloudFormation would, through its API.

Usage: python seed.py < request.json > created.json
request: {"endpoint", "caFile", "region", "resources": [{"logicalId", "type", "name", "properties"}]}
(`name` is the physical name: the template's own, or one the lab chose.)
created: {"<logicalId>": {"Ref": ..., "Arn": ..., ...the other GetAtt attributes}}
Unsupported types never reach this script: core/local-aws/resources.mts names them first.
"""
import json
import sys

import boto3

ACCOUNT_ID = "123456789012"  # moto's default account: every access key maps to it


def ssm_parameter(clients, name, props):
    clients("ssm").put_parameter(Name=name, Value=str(props["Value"]), Type=props.get("Type", "String"), Overwrite=True)
    return {"Ref": name, "Type": props.get("Type", "String"), "Value": str(props["Value"])}


def secret(clients, name, props):
    sm = clients("secretsmanager")
    if "SecretString" in props:
        value = props["SecretString"]
    else:
        generate = props.get("GenerateSecretString", {})
        password = sm.get_random_password(
            PasswordLength=int(generate.get("PasswordLength", 32)),
            ExcludeCharacters=generate.get("ExcludeCharacters", ""),
            ExcludePunctuation=bool(generate.get("ExcludePunctuation", False)),
        )["RandomPassword"]
        if "SecretStringTemplate" in generate:
            value = json.dumps({**json.loads(generate["SecretStringTemplate"]), generate["GenerateStringKey"]: password})
        else:
            value = password
    arn = sm.create_secret(Name=name, SecretString=value)["ARN"]
    return {"Ref": arn, "Id": arn}


def dynamodb_table(clients, name, props):
    args = {
        "TableName": name,
        "KeySchema": props["KeySchema"],
        "AttributeDefinitions": props["AttributeDefinitions"],
        "BillingMode": props.get("BillingMode", "PROVISIONED"),
    }
    if args["BillingMode"] == "PROVISIONED":
        args["ProvisionedThroughput"] = {k: int(v) for k, v in props.get("ProvisionedThroughput", {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}).items()}
    for key in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if key in props:
            args[key] = props[key]
    arn = clients("dynamodb").create_table(**args)["TableDescription"]["TableArn"]
    return {"Ref": name, "Arn": arn}


def simple_table(clients, name, props):
    key = props.get("PrimaryKey", {"Name": "id", "Type": "String"})
    attribute_type = {"String": "S", "Number": "N", "Binary": "B"}[key.get("Type", "String")]
    throughput = props.get("ProvisionedThroughput")
    table = {
        "KeySchema": [{"AttributeName": key["Name"], "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": key["Name"], "AttributeType": attribute_type}],
        "BillingMode": "PROVISIONED" if throughput else "PAY_PER_REQUEST",
    }
    if throughput:
        table["ProvisionedThroughput"] = throughput
    return dynamodb_table(clients, name, table)


def s3_bucket(clients, name, props):
    clients("s3").create_bucket(Bucket=name)
    return {"Ref": name, "Arn": f"arn:aws:s3:::{name}", "DomainName": f"{name}.s3.amazonaws.com"}


def log_group(clients, name, props):
    clients("logs").create_log_group(logGroupName=name)
    return {"Ref": name, "Arn": f"arn:aws:logs:{clients('logs').meta.region_name}:{ACCOUNT_ID}:log-group:{name}:*"}


CREATORS = {
    "AWS::SSM::Parameter": ssm_parameter,
    "AWS::SecretsManager::Secret": secret,
    "AWS::DynamoDB::Table": dynamodb_table,
    "AWS::Serverless::SimpleTable": simple_table,
    "AWS::S3::Bucket": s3_bucket,
    "AWS::Logs::LogGroup": log_group,
}


def main() -> None:
    request = json.load(sys.stdin)
    session = boto3.session.Session(aws_access_key_id="ASIAWARPSTARTSEEDING", aws_secret_access_key="lab", region_name=request["region"])
    cache = {}

    def clients(service):
        if service not in cache:
            cache[service] = session.client(service, endpoint_url=request["endpoint"], verify=request["caFile"])
        return cache[service]

    created = {}
    for resource in request["resources"]:
        try:
            created[resource["logicalId"]] = CREATORS[resource["type"]](clients, resource["name"], resource["properties"])
        except Exception as error:  # noqa: BLE001 - the message goes to the user, with the resource it was for
            sys.exit(f"could not create {resource['type']} {resource['logicalId']} ({resource['name']}): {error}")
    json.dump(created, sys.stdout)


if __name__ == "__main__":
    main()

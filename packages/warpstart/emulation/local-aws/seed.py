"""Creates a template's resources in the local AWS as CloudFormation would: one stack made by moto's
own CloudFormation, rehearsed here first (stack_rehearsal.py), and the secrets, a type moto's
CloudFormation lacks, made through their API before it, so that the stack can refer to them. Then
puts in the data: what generated events say exists, then the app's seed folder (seeds.mts), so
that a user's file wins over an event's placeholder.

Usage: python seed.py < request.json > created.json  (it may be started ahead: it loads moto meanwhile)
request: {"endpoint", "caFile", "region", "stackName",
          "resources": {"<logicalId>": {"Type", "Properties", "DependsOn"?}}  (SAM types converted),
          "secrets": [{"logicalId", "properties"}]  (properties evaluated by the caller),
          "parameters": {"<name>": {"definition": {...}, "value": "..." | null}},
          "conditions", "conditionValues": {"<name>": bool}, "mappings",
          "literals": {"<logicalId>": {"Ref": ..., "<attribute>": ...}}  (what the lab serves itself),
          "wanted": {"<logicalId>": ["Ref" | "<attribute>", ...]}  (what the template refers to),
          "eventData": [{"function", "bucket", "key"} | {"function", "table", "item" (DynamoDB JSON)}],
          "seeds": {"objects": [{"source", "logicalId", "key", "path"}], "tables": [{"source", "logicalId", "path"}],
                    "parameters": [{"source", "name", "value"}], "secrets": [{"source", "name", "value"}]}}
created: {"attributes": {"<logicalId>": {"Ref": ..., "<attribute>": ...}},
          "notCreated": [{"logicalId", "type", "reason"}], "problems": ["<one line>", ...]}
"""
import json
import sys
import threading
from decimal import Decimal

import boto3
from boto3.dynamodb.types import TypeSerializer
from botocore.config import Config
from botocore.exceptions import ClientError
from botocore.parsers import ResponseParserError

SECRET = "AWS::SecretsManager::Secret"


def create_secret(sm, name: str, props: dict) -> dict:
    """A secret as CloudFormation makes one: its SecretString, or one generated as GenerateSecretString says."""
    if "SecretString" in props:
        value = str(props["SecretString"])
    else:
        generate = props.get("GenerateSecretString", {})

        def flag(key: str, default: bool = False) -> bool:
            return str(generate.get(key, default)).lower() == "true"  # YAML gives a bool, a parameter a string

        password = sm.get_random_password(
            PasswordLength=int(generate.get("PasswordLength", 32)),
            ExcludeCharacters=str(generate.get("ExcludeCharacters", "")),
            ExcludeNumbers=flag("ExcludeNumbers"),
            ExcludePunctuation=flag("ExcludePunctuation"),
            ExcludeUppercase=flag("ExcludeUppercase"),
            ExcludeLowercase=flag("ExcludeLowercase"),
            IncludeSpace=flag("IncludeSpace"),
            RequireEachIncludedType=flag("RequireEachIncludedType", True),
        )["RandomPassword"]
        if "SecretStringTemplate" in generate:
            value = json.dumps({**json.loads(generate["SecretStringTemplate"]), generate["GenerateStringKey"]: password})
        else:
            value = password
    args = {"Name": name, "SecretString": value, **({"Description": str(props["Description"])} if "Description" in props else {})}
    try:
        arn = sm.create_secret(**args)["ARN"]
    except ClientError as error:
        if error.response["Error"]["Code"] != "ResourceExistsException":
            raise
        # Left by an earlier template in this local AWS: the one being created now declares it.
        sm.delete_secret(SecretId=name, ForceDeleteWithoutRecovery=True)
        arn = sm.create_secret(**args)["ARN"]
    return {"Ref": arn, "Id": arn}


def message(error: Exception) -> str:
    if isinstance(error, ClientError):
        return error.response["Error"].get("Message") or str(error)
    return " ".join(str(error).split())


class Clients(dict):
    """A client per service, made on first use: botocore reads the service's model as it makes one (0.2 s for the four seeding may use), so each is made once, and only if used."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, service: str):
        self[service] = client = self.make(service)
        return client


def put_event_data(clients: dict, facts: list) -> list:
    """What each generated event says exists: the bucket it names (made if the template's is not there under that name) and the object, or the item."""
    problems = []
    for fact in facts:
        try:
            if "bucket" in fact:
                s3 = clients["s3"]
                try:
                    s3.head_bucket(Bucket=fact["bucket"])
                except ClientError:
                    s3.create_bucket(Bucket=fact["bucket"])
                body = b"{}" if fact["key"].endswith(".json") else b"warpstart lab: the object the generated event names\n"
                s3.put_object(Bucket=fact["bucket"], Key=fact["key"], Body=body)
            else:
                clients["dynamodb"].put_item(TableName=fact["table"], Item=fact["item"])
        except Exception as error:  # noqa: BLE001 - one event's data never stops the others'
            where = f"s3://{fact['bucket']}/{fact['key']}" if "bucket" in fact else f"its item in the table {fact['table']}"
            problems.append(
                f"{fact['function']}: the lab could not put what its generated event names ({where}): {message(error)}; "
                f"give it an event of its own (events/{fact['function']}.json) or the data in local-aws/"
            )
    return problems


def load_seeds(clients: dict, seeds: dict, attributes: dict) -> list:
    """The app's seed folder into the resources the template made; a file that fails is one line naming it, the rest load."""
    problems = []

    def created(entry: dict, what: str):
        name = attributes.get(entry["logicalId"], {}).get("Ref")
        if name is None:
            problems.append(f"{entry['source']}: the {what} {entry['logicalId']} was not created (the lab's line above says why), so nothing went into it")
        return name

    for entry in seeds["objects"]:
        bucket = created(entry, "bucket")
        if bucket is None:
            continue
        try:
            with open(entry["path"], "rb") as body:
                clients["s3"].put_object(Bucket=bucket, Key=entry["key"], Body=body.read())
        except Exception as error:  # noqa: BLE001 - the file's own line
            problems.append(f"{entry['source']}: not loaded: {message(error)}")
    serializer = TypeSerializer()
    for entry in seeds["tables"]:
        table = created(entry, "table")
        if table is None:
            continue
        with open(entry["path"], encoding="utf-8") as file:
            items = json.load(file, parse_float=Decimal)  # DynamoDB's numbers: never a binary float
        for index, item in enumerate(items):
            try:
                clients["dynamodb"].put_item(TableName=table, Item={name: serializer.serialize(value) for name, value in item.items()})
            except Exception as error:  # noqa: BLE001 - the item's own line
                problems.append(f"{entry['source']}: item {index + 1} not loaded: {message(error)}: each item needs the table's key attributes, of their types")
    for entry in seeds["parameters"]:
        try:
            clients["ssm"].put_parameter(Name=entry["name"], Value=entry["value"], Type="String", Overwrite=True)
        except Exception as error:  # noqa: BLE001 - the parameter's own line
            problems.append(f"{entry['source']}: the parameter {entry['name']} not loaded: {message(error)}")
    for entry in seeds["secrets"]:
        try:
            try:
                clients["secretsmanager"].put_secret_value(SecretId=entry["name"], SecretString=entry["value"])
            except ClientError as error:
                if error.response["Error"]["Code"] != "ResourceNotFoundException":
                    raise
                clients["secretsmanager"].create_secret(Name=entry["name"], SecretString=entry["value"])
        except Exception as error:  # noqa: BLE001 - the secret's own line
            problems.append(f"{entry['source']}: the secret {entry['name']} not loaded: {message(error)}")
    return problems


def main() -> None:
    request = {}
    clients = cfn = None
    # One attempt: a CreateStack that failed must not be sent again.
    config = Config(retries={"total_max_attempts": 1, "mode": "standard"})
    failed = []

    def take_request() -> None:
        """Waits for the request (this process may be started ahead of it), then clears the way for its stack."""
        nonlocal clients, cfn
        try:
            request.update(json.load(sys.stdin))
            session = boto3.session.Session(aws_access_key_id="ASIAWARPSTARTSEEDING", aws_secret_access_key="lab", region_name=request["region"])
            clients = Clients(lambda service: session.client(service, endpoint_url=request["endpoint"], verify=request["caFile"], config=config))
            cfn = clients["cloudformation"]
        except Exception as error:  # noqa: BLE001 - raised again by the main thread
            failed.append(error)
            return
        remove_earlier_stack(cfn, request["stackName"])

    def remove_earlier_stack(cfn, stack_name: str) -> None:
        try:
            cfn.describe_stacks(StackName=stack_name)
        except ClientError:
            return  # none
        except Exception as error:  # noqa: BLE001 - raised again by the main thread
            failed.append(error)
            return
        try:
            # The local AWS holds one template's resources: an earlier template's stack makes way.
            cfn.delete_stack(StackName=stack_name)
        except Exception as error:  # noqa: BLE001 - raised again by the main thread
            failed.append(error)

    # The local AWS loads its CloudFormation on the first call there while this process loads its own.
    earlier = threading.Thread(target=take_request)
    earlier.start()
    import stack_rehearsal  # moto takes a second to import: while the request comes, or that call is on its way

    earlier.join()
    if failed:
        raise failed[0]
    stack_name = request["stackName"]
    attributes = {}
    secrets_left_out = {}
    for secret in request["secrets"]:
        logical_id, props = secret["logicalId"], secret["properties"]
        name = props.get("Name") or stack_rehearsal.generated_name(SECRET, stack_name, logical_id)
        try:
            attributes[logical_id] = create_secret(clients["secretsmanager"], name, props)
        except ClientError as error:
            secrets_left_out[logical_id] = error.response["Error"].get("Message") or str(error)

    literals = {**request["literals"], **attributes}
    types = {logical_id: resource["Type"] for logical_id, resource in request["resources"].items()}
    for resource in request["resources"].values():
        resource["Properties"] = stack_rehearsal.rewrite(resource.get("Properties") or {}, literals, types)
    stack = stack_rehearsal.Stack(request, secrets_left_out)
    rehearsed = stack.rehearse()
    if rehearsed is not None:
        outputs = stack.outputs(rehearsed, request["wanted"])
        try:
            cfn.create_stack(
                StackName=stack_name,
                TemplateBody=json.dumps(stack.template({key: expression for key, (_, _, expression) in outputs.items()})),
                Parameters=[{"ParameterKey": name, "ParameterValue": value} for name, value in stack.parameter_values().items()],
            )
        except ResponseParserError as error:
            # moto answers a failure of its own with an HTML page (HTTP 500) that says nothing more.
            raise RuntimeError("moto's CloudFormation failed in the local AWS to create the stack it created in rehearsal, and answered only HTTP 500") from error
        for output in cfn.describe_stacks(StackName=stack_name)["Stacks"][0].get("Outputs", []):
            logical_id, name, _ = outputs[output["OutputKey"]]
            attributes.setdefault(logical_id, {})[name] = output["OutputValue"]
    types.update({logical_id: SECRET for logical_id in secrets_left_out})
    not_created = [{"logicalId": logical_id, "type": types[logical_id], "reason": reason} for logical_id, reason in stack.left_out.items()]
    problems = put_event_data(clients, request.get("eventData", []))
    problems += load_seeds(clients, request.get("seeds") or {"objects": [], "tables": [], "parameters": [], "secrets": []}, attributes)
    json.dump({"attributes": attributes, "notCreated": not_created, "problems": problems}, sys.stdout)


if __name__ == "__main__":
    try:
        main()
    except ClientError as error:
        sys.exit(f"{error.operation_name} failed: {error.response['Error'].get('Message') or error}")
    except RuntimeError as error:
        sys.exit(str(error))
    except Exception as error:  # noqa: BLE001 - never a traceback for the user: moto's words, in one line
        sys.exit(" ".join(str(getattr(error, "message", None) or f"{type(error).__name__}: {error}").split()))

"""Creates a template's resources in the local AWS as CloudFormation would: one stack made by moto's
own CloudFormation, rehearsed here first (stack_rehearsal.py), and the secrets, a type moto's
CloudFormation lacks, made through their API before it, so that the stack can refer to them.

Usage: python seed.py < request.json > created.json
request: {"endpoint", "caFile", "region", "stackName",
          "resources": {"<logicalId>": {"Type", "Properties", "DependsOn"?}}  (SAM types converted),
          "secrets": [{"logicalId", "properties"}]  (properties evaluated by the caller),
          "parameters": {"<name>": {"definition": {...}, "value": "..." | null}},
          "conditions", "conditionValues": {"<name>": bool}, "mappings",
          "literals": {"<logicalId>": {"Ref": ..., "<attribute>": ...}}  (what the lab serves itself),
          "wanted": {"<logicalId>": ["Ref" | "<attribute>", ...]}  (what the template refers to)}
created: {"attributes": {"<logicalId>": {"Ref": ..., "<attribute>": ...}},
          "notCreated": [{"logicalId", "type", "reason"}]}
"""
import json
import sys
import threading

import boto3
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


def main() -> None:
    request = json.load(sys.stdin)
    session = boto3.session.Session(aws_access_key_id="ASIAWARPSTARTSEEDING", aws_secret_access_key="lab", region_name=request["region"])
    # One attempt: a CreateStack that failed must not be sent again.
    config = Config(retries={"total_max_attempts": 1, "mode": "standard"})
    cfn, sm = (session.client(service, endpoint_url=request["endpoint"], verify=request["caFile"], config=config) for service in ("cloudformation", "secretsmanager"))
    stack_name = request["stackName"]

    failed = []

    def remove_earlier_stack() -> None:
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

    # The local AWS loads its CloudFormation on this first call while this process loads its own.
    earlier = threading.Thread(target=remove_earlier_stack)
    earlier.start()
    import stack_rehearsal  # moto takes a second to import: after the call above is on its way

    earlier.join()
    if failed:
        raise failed[0]
    attributes = {}
    secrets_left_out = {}
    for secret in request["secrets"]:
        logical_id, props = secret["logicalId"], secret["properties"]
        name = props.get("Name") or stack_rehearsal.generated_name(SECRET, stack_name, logical_id)
        try:
            attributes[logical_id] = create_secret(sm, name, props)
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
    json.dump({"attributes": attributes, "notCreated": not_created}, sys.stdout)


if __name__ == "__main__":
    try:
        main()
    except ClientError as error:
        sys.exit(f"{error.operation_name} failed: {error.response['Error'].get('Message') or error}")
    except RuntimeError as error:
        sys.exit(str(error))
    except Exception as error:  # noqa: BLE001 - never a traceback for the user: moto's words, in one line
        sys.exit(" ".join(str(getattr(error, "message", None) or f"{type(error).__name__}: {error}").split()))

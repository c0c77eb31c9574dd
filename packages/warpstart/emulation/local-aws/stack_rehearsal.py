"""A template's stack rehearsed in this process by moto's own CloudFormation (the version the local AWS runs).

moto's CloudFormation creates nothing of a type it does not implement, and a resource that fails
fails its whole CreateStack with an HTTP 500 that says nothing. Made here first, each resource that
fails is left out with moto's reason, and whatever needs it; the stack that succeeds is the one
seed.py makes for real, with the Outputs that answer each Ref and Fn::GetAtt it was asked for.
"""
import json
import logging
import re

from moto.cloudformation import parsing
from moto.cloudformation.models import cloudformation_backends
from moto.core.base_backend import BackendDict

ACCOUNT_ID = "123456789012"  # moto's default account: every access key maps to it
SUB_REFERENCE = re.compile(r"\$\{([^}!][^}]*)\}")
# Attributes moto's models do not answer whose value is the resource's Ref in CloudFormation.
ATTRIBUTE_IS_REF = {("AWS::SNS::Topic", "TopicArn"), ("AWS::SQS::Queue", "QueueUrl"), ("AWS::StepFunctions::StateMachine", "Arn")}
# moto's Ref of these answers its model object rather than the name CloudFormation's Ref gives.
REF_IS_ATTRIBUTE = {"AWS::Events::EventBus": "Name"}

logging.getLogger("moto").setLevel(logging.CRITICAL)  # its warnings would read as the failure


class StackError(RuntimeError):
    """The template as a whole cannot be made: one line for the user."""


class ResourceFailed(Exception):
    def __init__(self, logical_id: str, error: Exception):
        super().__init__(logical_id)
        self.logical_id = logical_id
        self.reason = reason_of(error)


def reason_of(error: Exception) -> str:
    """moto's words for a failure; a KeyError is a property its model requires."""
    if isinstance(error, KeyError):
        return f"moto's model of it needs the property {error}"
    message = getattr(error, "message", None)
    return str(message) if message else f"{type(error).__name__}: {error}"


def _naming_the_failed(create):
    """moto's parse_and_create_resource, whose failure names the resource that failed, not the ones whose Ref created it."""

    def create_naming_the_failed(logical_id, *args, **kwargs):
        try:
            return create(logical_id, *args, **kwargs)
        except ResourceFailed:
            raise
        except Exception as error:  # noqa: BLE001 - whatever moto raised is the reason
            raise ResourceFailed(logical_id, error) from error

    return create_naming_the_failed


parsing.parse_and_create_resource = _naming_the_failed(parsing.parse_and_create_resource)


def get_att(value) -> list:
    return value.split(".", 1) if isinstance(value, str) else list(value)


def rewrite(value, literals: dict, types: dict):
    """The value with the lab's own values in place of Ref/Fn::GetAtt of what it serves or made itself, and moto's gaps bridged."""
    if isinstance(value, list):
        return [rewrite(item, literals, types) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        [(fn, args)] = value.items()
        if fn == "Ref" and isinstance(args, str):
            if "Ref" in literals.get(args, {}):
                return literals[args]["Ref"]
            if types.get(args) in REF_IS_ATTRIBUTE:
                return {"Fn::GetAtt": [args, REF_IS_ATTRIBUTE[types[args]]]}
            return value
        if fn == "Fn::GetAtt":
            logical_id, attribute = get_att(args)
            if attribute in literals.get(logical_id, {}):
                return literals[logical_id][attribute]
            if (types.get(logical_id), attribute) in ATTRIBUTE_IS_REF:
                return {"Ref": logical_id}
            return {"Fn::GetAtt": [logical_id, attribute]}
        if fn == "Fn::Sub":
            text, variables = (args, {}) if isinstance(args, str) else args
            variables = rewrite(variables, literals, types)

            def substitute(match: re.Match) -> str:
                name = match.group(1)
                if name in variables:
                    return match.group(0)
                logical_id, _, attribute = name.partition(".")
                known = literals.get(logical_id, {}).get(attribute or "Ref")
                if known is not None:
                    return str(known)
                if not attribute and types.get(logical_id) in REF_IS_ATTRIBUTE:
                    return f"${{{logical_id}.{REF_IS_ATTRIBUTE[types[logical_id]]}}}"
                if (types.get(logical_id), attribute) in ATTRIBUTE_IS_REF:
                    return f"${{{logical_id}}}"
                return match.group(0)

            text = SUB_REFERENCE.sub(substitute, text)
            return {"Fn::Sub": [text, variables] if variables else text}
    return {key: rewrite(inner, literals, types) for key, inner in value.items()}


def references(value, condition_values: dict) -> set:
    """The logical ids and parameters a value refers to, following only the branch each Fn::If takes."""
    if isinstance(value, list):
        return set().union(*(references(item, condition_values) for item in value))
    if not isinstance(value, dict):
        return set()
    if len(value) == 1:
        [(fn, args)] = value.items()
        if fn == "Ref" and isinstance(args, str):
            return set() if args.startswith("AWS::") else {args}
        if fn == "Fn::GetAtt":
            return {get_att(args)[0]}
        if fn == "Fn::If" and isinstance(args, list) and len(args) == 3:
            return references(args[1] if condition_values.get(args[0]) else args[2], condition_values)
        if fn == "Fn::Sub":
            text, variables = (args, {}) if isinstance(args, str) else args
            names = {match.group(1).split(".")[0] for match in SUB_REFERENCE.finditer(text) if match.group(1) not in variables}
            return {name for name in names if not name.startswith("AWS::")} | references(variables, condition_values)
    return set().union(*(references(inner, condition_values) for inner in value.values()))


def generated_name(resource_type: str, stack_name: str, logical_id: str) -> str:
    """The name CloudFormation (moto's) makes up for a resource given none: <stack>-<LogicalId>-<random>."""
    return parsing.generate_resource_name(resource_type, stack_name, logical_id)


class Stack:
    """The resources of one stack, and those left out of it with why."""

    def __init__(self, request: dict, left_out: dict):
        self.name = request["stackName"]
        self.region = request["region"]
        self.conditions = request.get("conditions") or {}
        self.condition_values = request.get("conditionValues") or {}
        self.mappings = request.get("mappings") or {}
        self.parameters = {name: p for name, p in request["parameters"].items() if p["value"] is not None}
        self.missing_parameters = {name for name, p in request["parameters"].items() if p["value"] is None}
        self.resources = request["resources"]
        self.left_out = dict(left_out)
        models = parsing.get_model_map()
        for logical_id, resource in self.resources.items():
            if resource["Type"] not in models:
                self.left_out[logical_id] = "moto's CloudFormation does not implement this type"
            self.name_as_cloudformation_would(logical_id, resource)

    def name_as_cloudformation_would(self, logical_id: str, resource: dict) -> None:
        """Gives a resource without a name the one CloudFormation would make up where moto's model makes up none, or a wrong one."""
        properties = resource.setdefault("Properties", {})
        if resource["Type"] == "AWS::SSM::Parameter" and "Name" not in properties:
            # moto's model takes the name from Name only.
            properties["Name"] = generated_name(resource["Type"], self.name, logical_id)
        if resource["Type"] == "AWS::SQS::Queue" and str(properties.get("FifoQueue")).lower() == "true" and "QueueName" not in properties:
            # A FIFO queue's name ends in .fifo, which CloudFormation adds to the one it makes up.
            properties["QueueName"] = f"{generated_name(resource['Type'], self.name, logical_id)}.fifo"

    def kept(self) -> dict:
        return {logical_id: resource for logical_id, resource in self.resources.items() if logical_id not in self.left_out}

    def leave_out_what_needs_the_left_out(self) -> None:
        """Leaves out each resource that refers to one left out, or to something without a value, until none does."""
        changed = True
        while changed:
            changed = False
            for logical_id, resource in self.kept().items():
                for name in sorted(references(resource.get("Properties", {}), self.condition_values)):
                    if name in self.left_out:
                        reason = f"needs {name}, not created"
                    elif name in self.missing_parameters:
                        reason = f"needs a value for the parameter {name} (it has no Default and none was passed)"
                    elif name not in self.resources and name not in self.parameters:
                        reason = f"refers to {name}, which the lab has no value for"
                    else:
                        continue
                    self.left_out[logical_id] = reason
                    changed = True
                    break

    def template(self, outputs: dict | None = None) -> dict:
        kept = self.kept()
        resources = {}
        for logical_id, resource in kept.items():
            entry = {"Type": resource["Type"], "Properties": resource.get("Properties", {})}
            depends_on = resource.get("DependsOn")
            # Ordering only: a dependency not in the stack (served by the lab, or left out) orders nothing.
            depends_on = [name for name in ([depends_on] if isinstance(depends_on, str) else depends_on or []) if name in kept]
            if depends_on:
                entry["DependsOn"] = depends_on
            resources[logical_id] = entry
        template = {
            "AWSTemplateFormatVersion": "2010-09-09",
            "Parameters": {name: p["definition"] for name, p in self.parameters.items()},
            "Conditions": self.conditions,
            "Mappings": self.mappings,
            "Resources": resources,
        }
        if outputs:
            template["Outputs"] = {key: {"Value": expression} for key, expression in outputs.items()}
        return template

    def parameter_values(self) -> dict:
        return {name: p["value"] for name, p in self.parameters.items()}

    def rehearse(self):
        """Makes the stack in this process, leaving out each resource moto fails on; the stack made (None: nothing left to make)."""
        while True:
            self.leave_out_what_needs_the_left_out()
            if not self.kept():
                return None
            # A fresh moto each time: what the failed attempt made would fail this one.
            BackendDict.reset()
            try:
                return cloudformation_backends[ACCOUNT_ID][self.region].create_stack(self.name, json.dumps(self.template()), self.parameter_values())
            except ResourceFailed as failure:
                self.left_out[failure.logical_id] = failure.reason
            except Exception as error:  # noqa: BLE001 - the template as a whole: moto's reason is the message
                raise StackError(f"moto's CloudFormation cannot create the stack: {reason_of(error)}") from error

    def outputs(self, rehearsed, wanted: dict) -> dict:
        """Output key → (logical id, "Ref" or attribute, expression): each value asked for that the rehearsed stack answers with a string."""
        models = parsing.get_model_map()
        outputs = {}
        for logical_id, resource in self.kept().items():
            asked = {"Ref", *wanted.get(logical_id, []), *(["Arn"] if models[resource["Type"]].has_cfn_attr("Arn") else [])}
            for name in sorted(asked):
                expression = rewrite({"Ref": logical_id} if name == "Ref" else {"Fn::GetAtt": [logical_id, name]}, {}, {logical_id: resource["Type"]})
                try:
                    value = parsing.clean_json(expression, rehearsed.resource_map)
                except Exception:  # noqa: BLE001 - an attribute moto cannot answer is left unanswered
                    continue
                if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                    outputs[f"Output{len(outputs)}"] = (logical_id, name, expression)
        return outputs

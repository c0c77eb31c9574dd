"""What `sam deploy` would hand CloudFormation, made offline from a template `sam build` wrote:
its artifacts as `sam package` points at them in S3, through the SAM transform of the samtranslator
SAM CLI ships, linted with cfn-lint.

usage: sam-translate.py JOBS
JOBS is a JSON list of {"template": a built template, "parameters": {name: value}, "output": file}.
Writes each job's CloudFormation template (JSON) to its output, and prints a JSON object with
each output's cfn-lint errors and warnings.
"""

import json
import sys

import boto3
import cfnlint.api
from samcli.yamlhelper import yaml_parse
from samtranslator.parser.parser import Parser
from samtranslator.translator.translator import Translator

# The region of the pseudo parameters, as the lab's (core/template.mts); naming it calls nothing.
REGION = "us-east-1"
# Nothing is uploaded, so any bucket name does.
ARTIFACT_BUCKET = "warpstart-artifacts"


def refuse_network(event, args):
    """An audit hook: the transform and the linter run offline, so any connection is a bug."""
    if event in ("socket.connect", "socket.getaddrinfo"):
        raise RuntimeError(f"{event}{args}: the deploy check must not reach the network")


def package(template):
    """Points each function's CodeUri and layer's ContentUri (sam build's artifact folders) at an S3 object, as `sam package` does."""
    for resource in template["Resources"].values():
        properties = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):
            if key in properties:
                properties[key] = f"s3://{ARTIFACT_BUCKET}/{properties[key]}.zip"
    return template


def transform(template, parameters):
    # A policy map ({}) and no get_managed_policy_map: managed policy names resolve from the map
    # samtranslator bundles, never through IAM's ListPolicies (the ManagedPolicyLoader's call).
    translator = Translator({}, Parser(), boto_session=boto3.session.Session(region_name=REGION))
    return translator.translate(template, parameter_values=parameters)


def finding(match):
    """A cfn-lint match as one line: rule, message, and where (its path in the template, else the output's line)."""
    return f"{match.rule.id} {match.message} ({getattr(match, 'path_string', f'line {match.linenumber}')})"


def main(jobs):
    sys.addaudithook(refuse_network)
    findings = {}
    for job in jobs:
        with open(job["template"], encoding="utf-8") as built:
            text = json.dumps(transform(package(yaml_parse(built.read())), job["parameters"]), indent=1)
        with open(job["output"], "w", encoding="utf-8") as output:
            output.write(text)
        findings[job["output"]] = [finding(match) for match in cfnlint.api.lint(text, regions=[REGION])]
    json.dump(findings, sys.stdout)


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))

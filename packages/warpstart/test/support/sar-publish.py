"""What `sam build`, `sam package` and `sam publish` would do with a template's
AWS::ServerlessRepo::Application metadata, offline, through SAM CLI's own code: sam build's
rewrite of the metadata's local paths (move_template), sam package's metadata exporter (Template,
with an S3 uploader that uploads nothing) and sam publish's command (do_cli, with a stubbed
Serverless Application Repository client), for a first publish (CreateApplication) and for a new
version of an application that exists (UpdateApplication, CreateApplicationVersion).

usage: sar-publish.py TEMPLATES
TEMPLATES is a JSON list of source templates. Prints a JSON object with, for each template:
  metadata: the section as sam publish's parser reads it (null without one),
  package: {error: sam package's message or null, uploads: {LicenseUrl|ReadmeUrl: {source, url}}}: the
    local file each names (resolved; null for an S3 URL, left as it is) and the S3 URL it becomes,
  publish: {create|update: {error: sam publish's message or null, requests: [[operation, params]]}},
    each request's params but its TemplateBody (the packaged template, stripped of the metadata).
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import types
from unittest import mock

import boto3
from botocore.stub import Stubber
from samcli.commands._utils.template import move_template
from samcli.commands.publish.command import do_cli
from samcli.lib.package.artifact_exporter import Template
from samcli.lib.package.code_signer import CodeSigner
from samcli.lib.package.s3_uploader import S3Uploader
from samcli.lib.package.uploaders import Uploaders
from samcli.lib.package.utils import is_s3_protocol_url, make_abs_path
from samcli.lib.utils.resources import AWS_SERVERLESSREPO_APPLICATION, METADATA_WITH_LOCAL_PATHS
from samcli.vendor.serverlessrepo import publish as serverlessrepo_publish
from samcli.vendor.serverlessrepo.exceptions import ServerlessRepoError
from samcli.vendor.serverlessrepo.parser import get_app_metadata, parse_template
from samcli.yamlhelper import yaml_dump, yaml_parse

REGION = "us-east-1"
BUCKET = "warpstart-artifacts"
APPLICATION_ID = f"arn:aws:serverlessrepo:{REGION}:123456789012:applications/warpstart"


def refuse_network(event, args):
    """An audit hook: nothing here may connect anywhere (no S3, no Serverless Application Repository)."""
    if event in ("socket.connect", "socket.getaddrinfo"):
        raise RuntimeError(f"{event}{args}: the publish check must not reach the network")


class StubS3Uploader(S3Uploader):
    """sam package's S3 uploader, its object naming (upload_with_dedup) included, minus the upload."""

    def __init__(self):  # no S3 client, no transfer manager
        self.bucket_name = BUCKET
        self.prefix = None
        self.force_upload = False
        self.no_progressbar = True
        self.kms_key_id = None
        self._artifact_metadata = None

    def upload(self, file_name, remote_path):
        return self.make_url(remote_path)


def build(source, build_dir):
    """The template as `sam build` writes it (.aws-sam/build/template.yaml): its local paths made relative to the build folder."""
    with open(source, encoding="utf-8") as text:
        template = yaml_parse(text.read())
    built = os.path.join(build_dir, "template.yaml")
    move_template(source, built, template)
    return built


def package(built, packaged):
    """sam package's export of the metadata's local files (the template's resources are left alone: nothing here builds code)."""
    with open(built, encoding="utf-8") as text:
        template_dict = yaml_parse(text.read())
    template = Template(
        built,
        os.path.dirname(built),
        Uploaders(StubS3Uploader(), None),
        CodeSigner(None, None),
        resources_to_export=frozenset(),
        normalize_template=True,
        normalize_parameters=True,
        template_dict=template_dict,
    )
    metadata = template_dict.get("Metadata", {}).get(AWS_SERVERLESSREPO_APPLICATION, {})
    local = {name: metadata.get(name) for name in METADATA_WITH_LOCAL_PATHS[AWS_SERVERLESSREPO_APPLICATION]}
    try:
        exported = template.export()
    except Exception as error:  # sam package prints its UserException's message and stops
        return {"error": str(error), "uploads": {}}
    with open(packaged, "w", encoding="utf-8") as output:
        output.write(yaml_dump(exported))
    exported_metadata = exported.get("Metadata", {}).get(AWS_SERVERLESSREPO_APPLICATION, {})
    uploads = {
        name: {"source": None if is_s3_protocol_url(path) else make_abs_path(os.path.dirname(built), path), "url": exported_metadata.get(name)}
        for name, path in local.items()
        if isinstance(path, str)
    }
    return {"error": None, "uploads": uploads}


def serverlessrepo_client(exists):
    """A Serverless Application Repository client that sends nothing: it records each request (validated against the API's model) and answers as if the application did not exist, or did."""
    session = boto3.session.Session(aws_access_key_id="stub", aws_secret_access_key="stub", region_name=REGION)
    client = session.client("serverlessrepo")
    requests = []
    client.meta.events.register(
        "before-parameter-build.serverlessrepo",
        lambda params, model, **_: requests.append([model.name, {k: v for k, v in params.items() if k != "TemplateBody"}]),
    )
    stubber = Stubber(client)
    if exists:
        stubber.add_client_error(
            "create_application",
            service_error_code="ConflictException",
            service_message=f"Application with id {APPLICATION_ID} already exists",
            http_status_code=409,
        )
        stubber.add_response("update_application", {"ApplicationId": APPLICATION_ID})
        stubber.add_response("create_application_version", {"ApplicationId": APPLICATION_ID})
    else:
        stubber.add_response("create_application", {"ApplicationId": APPLICATION_ID})
    stubber.activate()
    return client, requests


def publish(packaged, exists):
    """`sam publish --template packaged --region REGION`: SAM CLI's command itself, its client stubbed."""
    client, requests = serverlessrepo_client(exists)
    context = types.SimpleNamespace(region=REGION)
    error = None
    with (
        mock.patch.object(serverlessrepo_publish, "boto3", types.SimpleNamespace(client=lambda *_, **__: client)),
        contextlib.redirect_stdout(io.StringIO()),  # its "Publish Succeeded" and console link
    ):
        try:
            do_cli(context, packaged, None, False)
        except Exception as exception:  # UserException: what SAM CLI prints after "Error: "
            error = exception.format_message() if hasattr(exception, "format_message") else f"{type(exception).__name__}: {exception}"
    return {"error": error, "requests": requests}


def metadata_of(source):
    with open(source, encoding="utf-8") as text:
        try:
            return get_app_metadata(parse_template(text.read())).template_dict
        except ServerlessRepoError:
            return None


def check(source, workdir):
    build_dir = os.path.join(workdir, ".aws-sam", "build")
    packaged = os.path.join(workdir, "packaged.yaml")
    packaging = package(build(source, build_dir), packaged)
    published = {}
    if packaging["error"] is None:  # a failed sam package writes no packaged template to publish
        published = {"create": publish(packaged, exists=False), "update": publish(packaged, exists=True)}
    return {"metadata": metadata_of(source), "package": packaging, "publish": published}


def main(templates):
    sys.addaudithook(refuse_network)
    # The stubbed client's session reads none of the user's AWS configuration (a missing profile would fail it).
    os.environ.update(AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull)
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        os.environ.pop(name, None)
    results = {}
    for index, source in enumerate(templates):
        with tempfile.TemporaryDirectory(prefix=f"warpstart-sar-{index}-") as workdir:
            results[source] = check(os.path.abspath(source), workdir)
    json.dump(results, sys.stdout, default=str)


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))

"""The local AWS: every service moto implements, as one WSGI app for gunicorn (`gunicorn app:app`).

moto's dispatcher picks the service from the request's signature scope, so every client reaches
it at one endpoint (AWS_ENDPOINT_URL). moto's own dev server answers `Connection: close`, which
would hide keep-alive; gunicorn serves the same app with TLS and connection reuse.

Each call is also written to stdout as one JSON line (access key, service, operation, status,
error code and message): the lab gives every execution environment its own access key, so it
can tell which function made which call, and name the one that failed.

A call moto cannot answer (a service it does not implement, or an operation of one it does) gets
an error in the shape its client reads (501, NotServedByLocalAws, the service named), where moto
alone would answer an HTML 500 that the SDK retries and then reports as a JSON or XML parse error.
"""
import io
import json
import re
import sys
import time
from urllib.parse import parse_qs

from botocore.model import OperationNotFoundError
from flask import Response, request
from moto import __version__ as MOTO_VERSION
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.exceptions import NotFound

CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/\d+/([^/]+)/([^/]+)/aws4_request")
XML_CODE = re.compile(rb"<Code>([^<]+)</Code>")
XML_MESSAGE = re.compile(rb"<Message>([^<]*)</Message>")
# Query-protocol bodies (STS, SQS, SNS, ...) are small; a larger one is an upload, not a call to name.
MAX_BODY_TO_READ = 64 * 1024
# The error code of a call moto cannot answer (local-aws.mts reads it too).
NOT_SERVED = "NotServedByLocalAws"
NOT_SERVED_KEY = "warpstart.not_served"
OPERATION_KEY = "warpstart.operation"


def _operation(environ: dict, body: bytes) -> str:
    target = environ.get("HTTP_X_AMZ_TARGET")
    if target:
        return target.rsplit(".", 1)[-1]  # AmazonSSM.GetParameter, DynamoDB_20120810.PutItem
    if body and environ.get("CONTENT_TYPE", "").startswith("application/x-www-form-urlencoded"):
        action = parse_qs(body.decode("utf-8", "replace")).get("Action")
        if action:
            return action[0]
    # REST protocols (S3, Lambda, ...): the method and path say what it was.
    return f"{environ.get('REQUEST_METHOD')} {environ.get('PATH_INFO', '/')}"


def _error(body: bytes) -> tuple[str | None, str | None]:
    try:
        parsed = json.loads(body)
        code = parsed.get("__type") or parsed.get("code")
        message = parsed.get("message") or parsed.get("Message")
        return (code.rsplit("#", 1)[-1] if code else None), message
    except (ValueError, AttributeError):
        code, message = XML_CODE.search(body), XML_MESSAGE.search(body)
        return (code.group(1).decode() if code else None), (message.group(1).decode() if message else None)


def _cbor_text(text: str) -> bytes:
    data = text.encode("utf-8")
    if len(data) < 24:
        return bytes([0x60 | len(data)]) + data
    if len(data) < 256:
        return bytes([0x78, len(data)]) + data
    return bytes([0x79]) + len(data).to_bytes(2, "big") + data


def _not_served(environ, why: str) -> tuple[list[tuple[str, str]], bytes]:
    """The answer to a call moto cannot answer, in its protocol's error shape (Query's XML, RPC v2's CBOR, else JSON): headers and body."""
    service, operation = _signing_name(environ) or "this service", environ.get(OPERATION_KEY, "")
    message = f"the local AWS (moto {MOTO_VERSION}) does not serve {service} {operation}: {why}; on Lambda this call reaches AWS"
    environ[NOT_SERVED_KEY] = message
    content_type = environ.get("CONTENT_TYPE", "")
    headers = [("x-amzn-errortype", NOT_SERVED), ("x-amzn-query-error", f"{NOT_SERVED};Sender")]
    if content_type.startswith("application/x-www-form-urlencoded") or "xml" in content_type:
        escaped = message.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        body = f"<ErrorResponse><Error><Type>Sender</Type><Code>{NOT_SERVED}</Code><Message>{escaped}</Message></Error></ErrorResponse>".encode()
        headers.append(("Content-Type", "text/xml"))
    elif environ.get("HTTP_SMITHY_PROTOCOL") == "rpc-v2-cbor":
        body = bytes([0xA2]) + _cbor_text("__type") + _cbor_text(NOT_SERVED) + _cbor_text("message") + _cbor_text(message)
        headers += [("Content-Type", "application/cbor"), ("smithy-protocol", "rpc-v2-cbor")]
    else:
        body = json.dumps({"__type": NOT_SERVED, "message": message}).encode()
        headers.append(("Content-Type", "application/json"))
    return headers + [("Content-Length", str(len(body)))], body


def _signing_name(environ) -> str | None:
    match = CREDENTIAL.search(environ.get("HTTP_AUTHORIZATION", ""))
    return match.group(3) if match else None


def _unknown_service(environ, start_response):
    headers, body = _not_served(environ, f"moto implements no {_signing_name(environ) or 'such service'}")
    start_response("501 Not Implemented", headers)
    return [body]


def create_app(service):
    """moto's app for a service it implements, an operation it lacks answered as not served; for a service it does not, the answer that says so."""
    if service is None:
        return _unknown_service
    app = create_backend_app(service)

    def unimplemented_operation(_: Exception):
        headers, body = _not_served(request.environ, f"moto implements {_signing_name(request.environ) or service}, not this operation")
        return Response(body, 501, headers)

    # moto's own error for an operation it lacks, botocore's for one its service model lacks, and
    # Flask's for a path none of moto's routes for the service match (Lambda's GetAccountSettings).
    for error in (NotImplementedError, OperationNotFoundError, NotFound):
        app.register_error_handler(error, unimplemented_operation)
    return app


# Where a custom resource's function PUTs its response (emulation/events.mts RESPONSE_URL): answered
# here as S3 answers the URL CloudFormation presigns, the response recorded.
CUSTOM_RESOURCE_RESPONSE = "/cloudformation-custom-resource-response/"


def _custom_resource_response(environ, start_response, body: bytes, call: dict):
    try:
        call["response"] = json.loads(body)
    except ValueError:
        call["response"] = body.decode("utf-8", "replace")
    start_response("200 OK", [("Content-Length", "0")])
    return []


class RecordedCalls:
    """Wraps the dispatcher: passes every request through, and records it once answered."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        started = time.time()
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = b""
        if 0 < length <= MAX_BODY_TO_READ:
            body = environ["wsgi.input"].read(length)
            environ["wsgi.input"] = io.BytesIO(body)
        match = CREDENTIAL.search(environ.get("HTTP_AUTHORIZATION", ""))
        call = {
            "accessKeyId": match.group(1) if match else None,
            "region": match.group(2) if match else None,
            "service": match.group(3) if match else None,
            "operation": _operation(environ, body),
            "startedAt": started,
        }
        environ[OPERATION_KEY] = call["operation"]
        answer = {}

        def recording_start_response(status, headers, exc_info=None):
            answer["status"] = int(status.split(" ", 1)[0])
            return start_response(status, headers, exc_info)

        # The record is written before the answer leaves, so whoever got the answer can already read its record.
        if environ.get("PATH_INFO", "").startswith(CUSTOM_RESOURCE_RESPONSE) and environ.get("REQUEST_METHOD") == "PUT":
            call.update(service="cloudformation", operation="CustomResourceResponse")
            chunks = list(_custom_resource_response(environ, recording_start_response, body, call))
        else:
            chunks = list(self.app(environ, recording_start_response))
        call["status"] = answer.get("status")
        call["ms"] = round((time.time() - started) * 1000, 2)
        if NOT_SERVED_KEY in environ:
            call["errorCode"], call["errorMessage"] = NOT_SERVED, environ[NOT_SERVED_KEY]
        elif call["status"] is not None and call["status"] >= 400:
            call["errorCode"], call["errorMessage"] = _error(b"".join(chunks))
        sys.stdout.write(json.dumps(call) + "\n")
        sys.stdout.flush()
        return chunks


app = RecordedCalls(DomainDispatcherApplication(create_app))

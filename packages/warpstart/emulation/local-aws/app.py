"""The local AWS: every service moto implements, as one WSGI app for gunicorn (`gunicorn app:app`).

moto's dispatcher picks the service from the request's signature scope, so every client reaches
it at one endpoint (AWS_ENDPOINT_URL). moto's own dev server answers `Connection: close`, which
would hide keep-alive; gunicorn serves the same app with TLS and connection reuse.

Each call is also written to stdout as one JSON line (access key, service, operation, status,
error code and message): the lab gives every execution environment its own access key, so it
can tell which function made which call, and name the one that failed.
"""
import io
import json
import re
import sys
import time
from urllib.parse import parse_qs

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/\d+/([^/]+)/([^/]+)/aws4_request")
XML_CODE = re.compile(rb"<Code>([^<]+)</Code>")
XML_MESSAGE = re.compile(rb"<Message>([^<]*)</Message>")
# Query-protocol bodies (STS, SQS, SNS, ...) are small; a larger one is an upload, not a call to name.
MAX_BODY_TO_READ = 64 * 1024


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
        answer = {}

        def recording_start_response(status, headers, exc_info=None):
            answer["status"] = int(status.split(" ", 1)[0])
            return start_response(status, headers, exc_info)

        # The record is written before the answer leaves, so whoever got the answer can already read its record.
        chunks = list(self.app(environ, recording_start_response))
        call["status"] = answer.get("status")
        call["ms"] = round((time.time() - started) * 1000, 2)
        if call["status"] is not None and call["status"] >= 400:
            call["errorCode"], call["errorMessage"] = _error(b"".join(chunks))
        sys.stdout.write(json.dumps(call) + "\n")
        sys.stdout.flush()
        return chunks


app = RecordedCalls(DomainDispatcherApplication(create_backend_app))

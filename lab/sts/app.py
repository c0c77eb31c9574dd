"""moto's STS as a WSGI app, for gunicorn: `gunicorn app:app`.

moto's own dev server answers `Connection: close`, which would hide keep-alive; gunicorn
serves the same app with TLS and connection reuse.
"""
from moto.moto_server.werkzeug_app import create_backend_app

app = create_backend_app("sts")

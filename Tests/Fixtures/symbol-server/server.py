#!/usr/bin/env python3
"""A symbol server for the tests, on 127.0.0.1 only: Python's http.server serving a folder in
debuginfod's layout, or answering each request with one fault.

    server.py MODE FOLDER PORTFILE LOGFILE

MODE: serve (the folder as it is), 404, 500, truncated (a Content-Length past the bytes sent),
garbage (200 with bytes that are no debug file), other (200 with the folder's first file,
whatever UUID was asked), huge (200 with 3 MB), stall (accepts, reads, never answers), auth (serve,
but 401 without the Authorization header in FOLDER/../authorization). The port chosen is written to
PORTFILE once listening; every request is a line in LOGFILE: METHOD PATH STATUS.
"""
import http.server
import os
import socket
import sys
import threading
import time

mode, folder, port_file, log_file = sys.argv[1:5]
log_lock = threading.Lock()


def log(line):
    with log_lock, open(log_file, "a") as log:
        log.write(line + "\n")


def first_file():
    for top, _, names in sorted(os.walk(folder)):
        for name in sorted(names):
            return os.path.join(top, name)


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=folder, **kwargs)

    def log_request(self, code="-", size="-"):
        log(f"{self.command} {self.path} {code}")

    def log_message(self, *args):
        pass

    def answer(self, status, body, length=None):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def do_GET(self):
        if mode == "serve":
            return super().do_GET()
        if mode == "auth":
            expected = open(os.path.join(folder, "..", "authorization")).read().strip()
            if self.headers.get("Authorization") != expected:
                return self.answer(401, b"no")
            return super().do_GET()
        if mode == "404":
            return self.answer(404, b"not here")
        if mode == "500":
            return self.answer(503, b"busy")
        if mode == "truncated":
            body = open(first_file(), "rb").read()
            self.answer(200, body[: len(body) // 2], length=len(body))
            self.close_connection = True
            return
        if mode == "garbage":
            return self.answer(200, b"\x00garbage, not a debug file\n" * 100)
        if mode == "other":
            return self.answer(200, open(first_file(), "rb").read())
        if mode == "huge":
            return self.answer(200, b"\xcf\xfa\xed\xfe" + b"\x00" * (3 << 20))


def stall():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    open(port_file + ".tmp", "w").write(str(listener.getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    held = []
    while True:
        connection, _ = listener.accept()
        log("ACCEPT - -")
        held.append(connection)  # never answered, never closed


if mode == "stall":
    stall()
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
open(port_file + ".tmp", "w").write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()

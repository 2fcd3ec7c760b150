#!/usr/bin/env python3
"""A hostile sync peer for tests/it_failsync.sh: an HTTP server that answers
every GET with the next of its bad documents, in turn: garbage, a real
document (fetched from --real with --key) truncated, the real document with
another sm_guid, one of 17 MiB, one of version 2.  Serves until killed.
Usage: syncfake.py PORT REAL_URL KEY"""
import http.server, json, sys, urllib.request

port, real, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
n = 0

def real_doc():
    req = urllib.request.Request(real, headers={"X-Ibsmd-SM-Key": key})
    return urllib.request.urlopen(req, timeout=3).read()

class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        global n
        mode = n % 5
        n += 1
        try:
            body = real_doc()
        except Exception:
            body = b"{}"
        if mode == 0:
            body = b"\x00garbage\xff" * 10
        elif mode == 1:
            body = body[: len(body) // 2]
        elif mode == 2:
            j = json.loads(body)
            j["sm_guid"] = "0x00000000deadbeef"
            body = json.dumps(j).encode()
        elif mode == 3:
            body = b" " * (17 << 20)
        else:
            j = json.loads(body)
            j["version"] = 2
            body = json.dumps(j).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except Exception:
            pass

http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()

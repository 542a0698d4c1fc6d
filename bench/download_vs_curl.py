#!/usr/bin/env python3
"""flowrun's download beside `curl -fL --retry` on a misbehaving loopback server.

Each case runs curl and flowrun (one download task, retries 2) against the same server
behaviour, on 127.0.0.1 only, and prints: exit status, the sha256 of what is at `to` (or
'-' for nothing), what else is left in the folder, and the requests each made. Cases where
flowrun differs from curl are marked; a difference is not a bug by itself (curl leaves a
partial file at -o, which flowrun never does), so the table is read, not asserted.

usage: download_vs_curl.py FLOWRUN [CASE...]
"""
import gzip
import hashlib
import http.server
import os
import socket
import socketserver
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time

BODY = bytes((i * 31 + 7 + i // 251) & 0xFF for i in range(200_000))
NEW = bytes((i * 17 + 3) & 0xFF for i in range(200_000))
SHA = hashlib.sha256(BODY).hexdigest()
GZ = gzip.compress(BODY, mtime=0)  # fixed mtime: the same bytes on every request
STATE = {}  # (token, case) -> number of requests seen
LOG = {}  # token -> [request lines]
LOCK = threading.Lock()


def count(token, case):
    with LOCK:
        STATE[(token, case)] = STATE.get((token, case), 0) + 1
        return STATE[(token, case)]


class Handler(socketserver.StreamRequestHandler):
    def send(self, data):
        self.wfile.write(data)
        self.wfile.flush()

    def head(self, status, headers, reason="X"):
        lines = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in headers]
        self.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))

    def full(self, status, body, extra=()):
        self.head(status, [("Content-Length", str(len(body)))] + list(extra))
        self.send(body)

    def reset(self):
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()

    def handle(self):
        while True:
            line = self.rfile.readline()
            if not line:
                return
            headers = {}
            while True:
                h = self.rfile.readline()
                if h in (b"\r\n", b"\n", b""):
                    break
                k, _, v = h.decode("latin-1").partition(":")
                headers[k.strip().lower()] = v.strip()
            method, target, _ = line.decode("latin-1").split(" ", 2)
            parts = target.split("/", 3)  # '', token, case, rest
            token, case = parts[1], parts[2].split("?")[0]
            with LOCK:
                LOG.setdefault(token, []).append(f"{method} {target} range={headers.get('range', '')} if-range={headers.get('if-range', '')}")
            n = count(token, case)
            if not self.answer(case, n, headers, target, token) or headers.get("connection", "").lower() == "close":
                return

    def answer(self, case, n, h, target, token):
        rng = h.get("range", "")
        start = int(rng[6:].split("-")[0]) if rng.startswith("bytes=") else None
        base = f"/{token}"
        etag = ("ETag", '"v1"')
        if case == "ok":
            self.full(200, BODY, [etag])
        elif case in ("r301", "r302", "r303", "r307", "r308"):
            self.full(int(case[1:]), b"moved", [("Location", "ok")])
        elif case == "loop":
            self.full(302, b"", [("Location", f"{base}/loop2")])
        elif case == "loop2":
            self.full(302, b"", [("Location", f"{base}/loop")])
        elif case.startswith("chain"):
            left = int(case[5:])
            self.full(302, b"", [("Location", f"{base}/chain{left - 1}" if left > 0 else f"{base}/ok")])
        elif case == "toplain":
            self.full(302, b"", [("Location", f"http://127.0.0.1:{PLAIN_PORT}{base}/ok")])
        elif case == "clshort":  # Content-Length smaller than what is sent
            self.head(200, [("Content-Length", "50000")])
            self.send(BODY)
            return False
        elif case == "cllong":  # Content-Length larger than what is sent, every time
            self.head(200, [("Content-Length", str(len(BODY) + 1000)), etag])
            self.send(BODY)
            return False
        elif case == "cut1":  # first answer cut, later ones whole (resume)
            if start is not None:
                self.head(206, [("Content-Length", str(len(BODY) - start)), ("Content-Range", f"bytes {start}-{len(BODY) - 1}/{len(BODY)}"), etag])
                self.send(BODY[start:])
            else:
                self.head(200, [("Content-Length", str(len(BODY))), etag])
                self.send(BODY[: 80_000] if n == 1 else BODY)
                if n == 1:
                    return False
        elif case == "reset":
            self.head(200, [("Content-Length", str(len(BODY))), etag])
            self.send(BODY[:70_000])
            self.reset()
            return False
        elif case == "resetonce":
            if n == 1:
                self.head(200, [("Content-Length", str(len(BODY))), etag])
                self.send(BODY[:70_000])
                self.reset()
                return False
            return self.answer("cut1", 2, h, target, token)
        elif case == "chunkbad":
            self.head(200, [("Transfer-Encoding", "chunked")])
            self.send(b"10\r\n" + BODY[:16] + b"\r\nZZ\r\n" + BODY[16:40] + b"\r\n0\r\n\r\n")
            return False
        elif case == "chunktrunc":
            self.head(200, [("Transfer-Encoding", "chunked")])
            self.send(b"4000\r\n" + BODY[:0x4000] + b"\r\n" + b"4000\r\n" + BODY[0x4000:0x5000])
            return False
        elif case == "chunknoend":  # whole chunks, closed without the 0 chunk
            self.head(200, [("Transfer-Encoding", "chunked")])
            self.send(b"4000\r\n" + BODY[:0x4000] + b"\r\n")
            return False
        elif case == "gzip":
            self.full(200, GZ, [("Content-Encoding", "gzip")])
        elif case == "e404":
            self.full(404, b"<html>not here</html>")
        elif case == "e500":
            self.full(500, b"<html>broken</html>")
        elif case == "e403":
            self.full(403, b"<html>no</html>")
        elif case == "range200":  # cut, then ignores Range and sends 200 whole
            self.head(200, [("Content-Length", str(len(BODY))), etag])
            self.send(BODY[: 80_000] if n == 1 else BODY)
            if n == 1:
                return False
        elif case == "range206wrong":  # cut, then a 206 that starts elsewhere
            if start is not None:
                s = max(0, start - 1000)
                self.head(206, [("Content-Length", str(len(BODY) - s)), ("Content-Range", f"bytes {s}-{len(BODY) - 1}/{len(BODY)}"), etag])
                self.send(BODY[s:])
            else:
                return self.answer("cut1", n, h, target, token)
        elif case == "etagchange":  # cut with v1; then the file is NEW with v2 (If-Range honoured)
            tag = '"v1"' if n == 1 else '"v2"'
            body = BODY if n == 1 else NEW
            if start is not None and h.get("if-range") == tag:
                self.head(206, [("Content-Length", str(len(body) - start)), ("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}"), ("ETag", tag)])
                self.send(body[start:])
            else:
                self.head(200, [("Content-Length", str(len(body))), ("ETag", tag)])
                self.send(body[:80_000] if n == 1 else body)
                if n == 1:
                    return False
        elif case == "etagignored":  # cut with v1; then NEW with v2 as a 206 whatever If-Range says
            if n == 1:
                self.head(200, [("Content-Length", str(len(BODY))), etag])
                self.send(BODY[:80_000])
                return False
            if start is not None:
                self.head(206, [("Content-Length", str(len(NEW) - start)), ("Content-Range", f"bytes {start}-{len(NEW) - 1}/{len(NEW)}"), ("ETag", '"v2"')])
                self.send(NEW[start:])
            else:
                self.full(200, NEW, [("ETag", '"v2"')])
        elif case == "lmchange":
            lm = "Wed, 21 Oct 2015 07:28:00 GMT" if n == 1 else "Thu, 22 Oct 2015 07:28:00 GMT"
            body = BODY if n == 1 else NEW
            if start is not None and h.get("if-range") == lm:
                self.head(206, [("Content-Length", str(len(body) - start)), ("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}"), ("Last-Modified", lm)])
                self.send(body[start:])
            else:
                self.head(200, [("Content-Length", str(len(body))), ("Last-Modified", lm)])
                self.send(body[:80_000] if n == 1 else body)
                if n == 1:
                    return False
        elif case == "r416":
            if start is not None:
                self.full(416, b"", [("Content-Range", f"bytes */{len(BODY)}")])
            else:
                return self.answer("cut1", n, h, target, token)
        elif case == "stall":
            self.head(200, [("Content-Length", str(len(BODY)))])
            self.send(BODY[:1000])
            time.sleep(8)
            return False
        elif case == "stallhead":
            time.sleep(8)
            return False
        elif case == "drip":
            self.head(200, [("Content-Length", "40")])
            for i in range(40):
                self.send(BODY[i : i + 1])
                time.sleep(0.05)
        elif case == "r429":
            if n == 1:
                self.full(429, b"slow down", [("Retry-After", "2")])
            else:
                self.full(200, BODY)
        elif case == "r503":
            if n == 1:
                self.full(503, b"busy", [("Retry-After", "2")])
            else:
                self.full(200, BODY)
        elif case == "auth":
            if h.get("authorization") == "Basic dXNlcjpwQHNz":  # user:p@ss
                self.full(200, BODY)
            else:
                self.full(401, b"who", [("WWW-Authenticate", 'Basic realm="x"')])
        elif case == "echo":  # the request target as sent, as the body
            self.full(200, target.replace(token, "T", 1).encode("latin-1"))
        elif case == "empty":
            self.full(200, b"")
        elif case == "nolength":  # body until close, no length
            self.head(200, [("Connection", "close")])
            self.send(BODY)
            return False
        elif case == "r204":
            self.head(204, [])
        elif case == "locspace":
            self.head(302, [("Content-Length", "0"), ("Location", f"{base}/echo/a b")])
        elif case == "locutf8":
            self.send(f"HTTP/1.1 302 Found\r\nContent-Length: 0\r\nLocation: {base}/echo/\u00fc\u2713\r\n\r\n".encode("utf-8"))
        elif case == "locschemerel":
            self.head(302, [("Content-Length", "0"), ("Location", f"//127.0.0.1:{PLAIN_PORT}{base}/ok")])
        elif case == "locfragment":
            self.head(302, [("Content-Length", "0"), ("Location", f"{base}/echo/x#frag")])
        elif case == "locauth":  # to another port on the same host: Authorization must not follow
            self.head(302, [("Content-Length", "0"), ("Location", f"https://127.0.0.1:{TLS_PORT}{base}/hdrs")])
        elif case == "hdrs":
            self.full(200, ("auth=" + h.get("authorization", "")).encode())
        elif case == "tofile":
            self.full(302, b"", [("Location", "file:///etc/hostname")])
        elif case == "toftp":
            self.full(302, b"", [("Location", "ftp://127.0.0.1/x")])
        elif case == "dotdot":
            self.full(302, b"", [("Location", "../../" + token + "/ok")])
        elif case == "queryonly":
            self.full(302, b"", [("Location", "?a=b")]) if "?" not in target else self.full(200, target.replace(token, "T", 1).encode())
        elif case == "r300":
            self.full(300, b"choices", [("Location", "ok")])
        elif case == "r304":
            self.head(304, [("ETag", '"v1"')])
        elif case == "cont100":
            self.send(b"HTTP/1.1 100 Continue\r\n\r\n")
            self.full(200, BODY)
        elif case == "http10":
            self.send(b"HTTP/1.0 200 OK\r\n\r\n" + BODY)
            return False
        elif case == "clte":  # both framings: chunked wins (RFC 9112 6.3)
            self.head(200, [("Content-Length", "5"), ("Transfer-Encoding", "chunked")])
            self.send(b"a\r\n0123456789\r\n0\r\n\r\n")
            return False
        elif case == "cltwo":
            self.head(200, [("Content-Length", "100"), ("Content-Length", "200")])
            self.send(BODY[:200])
            return False
        elif case == "clbad":
            self.head(200, [("Content-Length", "abc")])
            self.send(BODY[:200])
            return False
        elif case == "trailer":
            self.head(200, [("Transfer-Encoding", "chunked"), ("Trailer", "X-Sum")])
            self.send(b"5;ext=1\r\nhello\r\n0\r\nX-Sum: 1\r\n\r\n")
        elif case == "badstatus":
            self.send(b"HTTP/1.1 abc Nope\r\nContent-Length: 2\r\n\r\nhi")
            return False
        elif case == "garbage":
            self.send(b"this is not http at all\r\n\r\n")
            return False
        elif case == "range200cr":  # a 200 that carries a Content-Range for part of the file
            self.head(200, [("Content-Length", "1000"), ("Content-Range", f"bytes 0-999/{len(BODY)}")])
            self.send(BODY[:1000])
        elif case == "partialplain":  # a 206 to a plain GET, for a part only
            self.head(206, [("Content-Length", "1000"), ("Content-Range", f"bytes 0-999/{len(BODY)}")])
            self.send(BODY[:1000])
        elif case == "noloc":
            self.full(302, b"no location here")
        # s40-dl2's shapes
        elif case == "http10reset":  # HTTP/1.0, no length, reset mid-body: never a whole file
            self.send(b"HTTP/1.0 200 OK\r\n\r\n" + BODY[:70_000])
            self.reset()
            return False
        elif case == "http10resetonce":
            if n == 1:
                return self.answer("http10reset", n, h, target, token)
            return self.answer("http10", n, h, target, token)
        elif case == "http10cllong":  # HTTP/1.0, Content-Length longer than the body, clean close
            self.send(f"HTTP/1.0 200 OK\r\nContent-Length: {len(BODY) + 10}\r\n\r\n".encode() + BODY)
            return False
        elif case == "chunkupper":  # upper-case hex sizes with leading zeros, extensions on every chunk
            self.head(200, [("Transfer-Encoding", "chunked")])
            self.send(b"".join(b"%08X;a=b;q=\"x;y\"\r\n" % len(BODY[i:i + 5000]) + BODY[i:i + 5000] + b"\r\n" for i in range(0, len(BODY), 5000)))
            self.send(b"0;end\r\nX-One: 1\r\nX-Two: 2\r\n\r\n")
        elif case == "chunkhuge":  # a chunk size past 64 bits
            self.head(200, [("Transfer-Encoding", "chunked")])
            self.send(b"FFFFFFFFFFFFFFFFFFFFFFFF\r\n" + BODY[:1000])
            return False
        elif case == "chunkneg":
            self.head(200, [("Transfer-Encoding", "chunked")])
            self.send(b"-10\r\n" + BODY[:16] + b"\r\n0\r\n\r\n")
            return False
        elif case == "chunklastnocrlf":  # the 0 chunk, then closed before the empty line
            self.head(200, [("Transfer-Encoding", "chunked")])
            self.send(b"10\r\n" + BODY[:16] + b"\r\n0\r\n")
            return False
        elif case == "gzipchunked":
            self.head(200, [("Transfer-Encoding", "chunked"), ("Content-Encoding", "gzip"), ("Content-Type", "application/gzip")])
            self.send(b"".join(b"%x\r\n" % len(GZ[i:i + 7000]) + GZ[i:i + 7000] + b"\r\n" for i in range(0, len(GZ), 7000)) + b"0\r\n\r\n")
        elif case == "tegzip":  # a gzip transfer coding (curl decodes it only with --tr-encoding)
            self.head(200, [("Transfer-Encoding", "gzip, chunked")])
            self.send(b"%x\r\n" % len(GZ) + GZ + b"\r\n0\r\n\r\n")
        elif case == "early103":
            self.send(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n")
            self.full(200, BODY)
        elif case == "multi1xx":
            self.send(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n")
            self.full(200, BODY)
        elif case == "r304cl":  # a 304 that says a length, with no body
            self.head(304, [("Content-Length", str(len(BODY))), etag])
        elif case == "r204cl":
            self.head(204, [("Content-Length", "0")])
        elif case == "todata":
            self.full(302, b"", [("Location", "data:,hello")])
        elif case == "tojs":
            self.full(302, b"", [("Location", "javascript:alert(1)")])
        elif case == "tonohost":
            self.full(302, b"", [("Location", "http:///x")])
        elif case == "selfloop":
            self.full(302, b"", [("Location", f"{base}/selfloop")])
        elif case == "locupper":
            self.full(302, b"", [("Location", f"HTTP://127.0.0.1:{PLAIN_PORT}{base}/ok")])
        elif case == "redirclose":  # a 302 on a kept-alive connection, which is then closed
            self.full(302, b"", [("Location", f"{base}/ok")])
            return False
        elif case == "longheader":  # one 60 KiB header line
            self.full(200, BODY, [("X-Long", "a" * 60_000)])
        elif case == "hugeheader":  # one 1 MiB header line
            self.full(200, BODY, [("X-Long", "a" * (1 << 20))])
        elif case == "manyheaders":  # 2,000 headers
            self.full(200, BODY, [(f"X-H{i}", "v") for i in range(2000)])
        elif case == "lfonly":
            self.send(f"HTTP/1.1 200 OK\nContent-Length: {len(BODY)}\n\n".encode() + BODY)
        elif case == "noreason":
            self.send(f"HTTP/1.1 200\r\nContent-Length: {len(BODY)}\r\n\r\n".encode() + BODY)
        elif case == "obsfold":
            self.send(f"HTTP/1.1 200 OK\r\nX-Fold: a\r\n  b\r\nContent-Length: {len(BODY)}\r\n\r\n".encode() + BODY)
        elif case == "cltwosame":
            self.head(200, [("Content-Length", str(len(BODY))), ("Content-Length", str(len(BODY)))])
            self.send(BODY)
        elif case == "clneg":
            self.head(200, [("Content-Length", "-1")])
            self.send(BODY[:200])
            return False
        elif case == "http09":
            self.send(BODY[:2000])
            return False
        elif case == "slowdrip":  # whole length said, 100 bytes every 0.2 s: outlives a 2 s timeout
            self.head(200, [("Content-Length", str(len(BODY)))])
            for i in range(0, 6000, 100):
                self.send(BODY[i:i + 100])
                time.sleep(0.2)
            return False
        elif case in ("r503date", "r503huge", "r503day"):
            if n == 1:
                after = {"r503date": time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 3)),
                         "r503huge": "99999999999999999999999", "r503day": "86400"}[case]
                self.full(503, b"busy", [("Retry-After", after)])
            else:
                self.full(200, BODY)
        elif case == "r416complete":  # cut at the very end (length said one byte long), then 416 */len
            if start is not None:
                self.full(416, b"", [("Content-Range", f"bytes */{len(BODY)}"), etag])
            else:
                self.head(200, [("Content-Length", str(len(BODY) + 1 if n == 1 else len(BODY))), etag])
                self.send(BODY)
                if n == 1:
                    return False
        else:
            self.full(404, b"no such case")
        return True


PROXY_LOG = []


class Proxy(socketserver.StreamRequestHandler):
    """Records each request line and Proxy-Authorization; forwards absolute-form GETs to the
    origin and tunnels CONNECTs, as a forward proxy does."""

    def handle(self):
        line = self.rfile.readline().decode("latin-1").strip()
        if not line:
            return
        headers = []
        while True:
            h = self.rfile.readline()
            if h in (b"\r\n", b"\n", b""):
                break
            headers.append(h.decode("latin-1").strip())
        auth = next((h.split(":", 1)[1].strip() for h in headers if h.lower().startswith("proxy-authorization:")), "")
        host = next((h.split(":", 1)[1].strip() for h in headers if h.lower().startswith("host:")), "")
        PROXY_LOG.append(f"{line} host={host} proxy-auth={auth}")
        method, target, _ = line.split(" ", 2)
        if method == "CONNECT":
            h, _, p = target.rpartition(":")
            upstream = socket.create_connection(("127.0.0.1", int(p)))
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.wfile.flush()
            pump(self.connection, upstream)
            return
        rest = target.split("://", 1)[1]
        hostport, _, path = rest.partition("/")
        port = int(hostport.rsplit(":", 1)[1]) if ":" in hostport else 80
        upstream = socket.create_connection(("127.0.0.1", port))
        kept = [h for h in headers if not h.lower().startswith(("proxy-", "connection"))]
        upstream.sendall((f"{method} /{path} HTTP/1.1\r\n" + "".join(k + "\r\n" for k in kept) + "Connection: close\r\n\r\n").encode("latin-1"))
        while True:
            data = upstream.recv(65536)
            if not data:
                break
            self.wfile.write(data)
        self.wfile.flush()


def pump(a, b):
    def one(x, y):
        try:
            while True:
                d = x.recv(65536)
                if not d:
                    break
                y.sendall(d)
        except OSError:
            pass
        for s in (x, y):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
    t = threading.Thread(target=one, args=(b, a), daemon=True)
    t.start()
    one(a, b)
    t.join()


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


class TLSServer(Server):
    def get_request(self):
        sock, addr = super().get_request()
        return CONTEXT.wrap_socket(sock, server_side=True), addr


def run(cmd, env=None, timeout=40, cwd=None):
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, (p.stdout + p.stderr).decode(errors="replace"), time.monotonic() - t
    except subprocess.TimeoutExpired as e:
        return "TIMEOUT", ((e.stdout or b"") + (e.stderr or b"")).decode(errors="replace"), time.monotonic() - t


def digest(path):
    if os.path.isdir(path):
        return "DIR"
    if not os.path.exists(path):
        return "-"
    data = open(path, "rb").read()
    h = hashlib.sha256(data).hexdigest()
    name = {SHA: "BODY", hashlib.sha256(NEW).hexdigest(): "NEW", hashlib.sha256(GZ).hexdigest(): "GZ"}.get(h)
    return f"{name or h[:10]}:{len(data)}"


def case_url(case, token, scheme="http"):
    port = TLS_PORT if scheme == "https" else PLAIN_PORT
    return f"{scheme}://127.0.0.1:{port}/{token}/{case}"


def compare(flowrun, name, url_of, flowrun_extra="", curl_extra=(), env_extra=None, sha=None, timeout=40, task_timeout=None):
    results = {}
    for tool in ("curl", "flowrun"):
        token = f"{tool}-{name}-{os.getpid()}"
        url = url_of(token)
        folder = tempfile.mkdtemp(prefix=f"dl-{tool}-")
        to = os.path.join(folder, "out", "file.bin")
        env = dict(os.environ, FLOWRUN_CACHE_DIR=os.path.join(folder, ".cache"), SSL_CERT_FILE=CERT, NO_COLOR="1")
        env.pop("http_proxy", None)
        env.update(env_extra or {})
        if tool == "curl":
            cmd = ["curl", "-fsSL", "--retry", "2", "--retry-delay", "0", "--retry-all-errors", "-C", "-",
                   "--create-dirs", "--cacert", CERT, "-o", to, *curl_extra]
            if task_timeout:
                cmd += ["--max-time", str(task_timeout)]
            cmd.append(url)
            code, out, secs = run(cmd, env=env, timeout=timeout)
        else:
            y = os.path.join(folder, "flowrun.yaml")
            fields = f"url: '{url}', to: out/file.bin" + (f", sha256: {sha}" if sha else "")
            extra = f", timeout: {task_timeout}s" if task_timeout else ""
            open(y, "w").write(f"version: 1\ntasks:\n  get: {{download: {{{fields}}}, retries: 2, retry_delay: 0s{extra}{flowrun_extra}}}\n")
            code, out, secs = run([flowrun, "run", y, "--events", "plain", "--no-record"], env=env, timeout=timeout)
        left = sorted(os.listdir(os.path.join(folder, "out"))) if os.path.isdir(os.path.join(folder, "out")) else []
        results[tool] = dict(code=code, at=digest(to), left=[x for x in left if x != "file.bin"], secs=secs,
                             out=" | ".join(l for l in out.splitlines() if l.strip())[-300:], requests=LOG.get(token, []))
    c, f = results["curl"], results["flowrun"]
    same = (c["code"] == 0) == (f["code"] == 0) and c["at"] == f["at"]
    mark = "same" if same else "DIFF"
    print(f"== {name}: {mark}")
    for tool in ("curl", "flowrun"):
        r = results[tool]
        print(f"   {tool:7} exit={r['code']} to={r['at']} left={r['left']} {r['secs']:.1f}s requests={len(r['requests'])}")
        for q in r["requests"][:6]:
            print(f"            {q}")
        print(f"            out: {r['out']}")
    sys.stdout.flush()
    return same


def main():
    global PLAIN_PORT, TLS_PORT, CONTEXT, CERT
    flowrun = sys.argv[1]
    only = set(sys.argv[2:])
    tmp = tempfile.mkdtemp(prefix="dl-cert-")
    CERT, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", CERT, "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"], check=True, capture_output=True)
    CONTEXT = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    CONTEXT.load_cert_chain(CERT, key)
    plain = Server(("127.0.0.1", 0), Handler)
    tls = TLSServer(("127.0.0.1", 0), Handler)
    PLAIN_PORT, TLS_PORT = plain.server_address[1], tls.server_address[1]
    for s in (plain, tls):
        threading.Thread(target=s.serve_forever, daemon=True).start()

    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    u = lambda case, scheme="http": (lambda t: case_url(case, t, scheme))
    cases = [
        ("ok", u("ok"), {}),
        ("ok-sha", u("ok"), dict(sha=SHA)),
        ("sha-mismatch", u("ok"), dict(sha="0" * 64)),
        *[(c, u(c), {}) for c in ("r301", "r302", "r303", "r307", "r308")],
        ("loop", u("loop"), {}),
        ("chain10", u("chain9"), {}),
        ("chain11", u("chain10"), {}),
        ("https-to-http", u("toplain", "https"), {}),
        ("clshort", u("clshort"), {}),
        ("cllong", u("cllong"), {}),
        ("cut-then-resume", u("cut1"), dict(sha=SHA)),
        ("reset-always", u("reset"), {}),
        ("reset-once", u("resetonce"), {}),
        ("chunk-bad", u("chunkbad"), {}),
        ("chunk-trunc", u("chunktrunc"), {}),
        ("chunk-noend", u("chunknoend"), {}),
        ("gzip", u("gzip"), {}),
        ("e404", u("e404"), {}),
        ("e403", u("e403"), {}),
        ("e500", u("e500"), {}),
        ("range200", u("range200"), {}),
        ("range206wrong", u("range206wrong"), {}),
        ("etag-changed", u("etagchange"), {}),
        ("etag-ignored", u("etagignored"), {}),
        ("lastmod-changed", u("lmchange"), {}),
        ("416", u("r416"), {}),
        ("stall-timeout", u("stall"), dict(task_timeout=2)),
        ("stall-head-timeout", u("stallhead"), dict(task_timeout=2)),
        ("drip", u("drip"), {}),
        ("429-retry-after", u("r429"), {}),
        ("503-retry-after", u("r503"), {}),
        ("userpass", lambda t: f"http://user:p%40ss@127.0.0.1:{PLAIN_PORT}/{t}/auth", {}),
        ("space", lambda t: f"http://127.0.0.1:{PLAIN_PORT}/{t}/echo/a%20b", {}),
        ("unicode", lambda t: f"http://127.0.0.1:{PLAIN_PORT}/{t}/echo/%E2%9C%93", {}),
        ("query", lambda t: f"http://127.0.0.1:{PLAIN_PORT}/{t}/echo?x=1&y=a%2Fb&z", {}),
        ("fragment", lambda t: f"http://127.0.0.1:{PLAIN_PORT}/{t}/echo/f#frag", {}),
        ("empty", u("empty"), {}),
        ("nolength", u("nolength"), {}),
        ("204", u("r204"), {}),
        ("302-no-location", u("noloc"), {}),
        ("redirect-to-file", u("tofile"), {}),
        ("location-with-space", u("locspace"), {}),
        ("location-utf8", u("locutf8"), {}),
        ("location-scheme-relative", u("locschemerel"), {}),
        ("location-fragment", u("locfragment"), {}),
        ("userpass-redirect-other-port", lambda t: f"http://user:p%40ss@127.0.0.1:{PLAIN_PORT}/{t}/locauth", {}),
        ("redirect-to-ftp", u("toftp"), {}),
        ("redirect-dotdot", u("dotdot"), {}),
        ("redirect-query-only", u("queryonly"), {}),
        ("300", u("r300"), {}),
        ("304", u("r304"), {}),
        ("100-continue", u("cont100"), {}),
        ("http1.0-until-close", u("http10"), {}),
        ("cl-and-chunked", u("clte"), {}),
        ("two-content-lengths", u("cltwo"), {}),
        ("bad-content-length", u("clbad"), {}),
        ("chunk-ext-trailer", u("trailer"), {}),
        ("bad-status", u("badstatus"), {}),
        ("not-http", u("garbage"), {}),
        ("200-with-content-range", u("range200cr"), {}),
        ("206-to-plain-get", u("partialplain"), {}),
        ("file-missing", lambda t: f"file://{tmp}/missing.bin", {}),
        ("file-dir", lambda t: f"file://{tmp}", {}),
        ("file-fifo", lambda t: f"file://{fifo}", dict(timeout=8)),
        ("file-ok", lambda t: f"file://{CERT}", {}),
        # s40-dl2's shapes
        ("sha-upper", u("ok"), dict(sha=SHA.upper())),
        ("gzip-sha-of-sent-bytes", u("gzip"), dict(sha=hashlib.sha256(GZ).hexdigest())),
        ("gzip-sha-of-decoded", u("gzip"), dict(sha=SHA)),
        ("gzip-chunked", u("gzipchunked"), {}),
        ("te-gzip-chunked", u("tegzip"), {}),
        ("http1.0-reset", u("http10reset"), {}),
        ("http1.0-reset-once", u("http10resetonce"), {}),
        ("http1.0-cl-long", u("http10cllong"), {}),
        ("chunk-upper-ext-trailers", u("chunkupper"), {}),
        ("chunk-size-overflow", u("chunkhuge"), {}),
        ("chunk-size-negative", u("chunkneg"), {}),
        ("chunk-last-no-crlf", u("chunklastnocrlf"), {}),
        ("103-early-hints", u("early103"), {}),
        ("100-then-102", u("multi1xx"), {}),
        ("304-with-length", u("r304cl"), {}),
        ("204-length-0", u("r204cl"), {}),
        ("redirect-to-data", u("todata"), {}),
        ("redirect-to-javascript", u("tojs"), {}),
        ("redirect-no-host", u("tonohost"), {}),
        ("redirect-self", u("selfloop"), {}),
        ("redirect-upper-scheme", u("locupper"), {}),
        ("redirect-then-close", u("redirclose"), {}),
        ("header-60k", u("longheader"), {}),
        ("header-1m", u("hugeheader"), {}),
        ("headers-2000", u("manyheaders"), {}),
        ("lf-only", u("lfonly"), {}),
        ("no-reason-phrase", u("noreason"), {}),
        ("obs-fold", u("obsfold"), {}),
        ("two-same-content-lengths", u("cltwosame"), {}),
        ("negative-content-length", u("clneg"), {}),
        ("http0.9", u("http09"), {}),
        ("slow-drip-timeout", u("slowdrip"), dict(task_timeout=2)),
        ("503-retry-after-date", u("r503date"), {}),
        ("503-retry-after-huge", u("r503huge"), dict(timeout=20)),
        ("503-retry-after-day-timeout", u("r503day"), dict(task_timeout=5, timeout=20)),
        ("416-when-complete", u("r416complete"), {}),
        ("raw-space", lambda t: f"http://127.0.0.1:{PLAIN_PORT}/{t}/echo/a b", {}),
        ("raw-unicode", lambda t: f"http://127.0.0.1:{PLAIN_PORT}/{t}/echo/\u00fc\u2713", {}),
        ("bad-percent", lambda t: f"http://127.0.0.1:{PLAIN_PORT}/{t}/echo/%zz", {}),
        ("user-no-password", lambda t: f"http://user@127.0.0.1:{PLAIN_PORT}/{t}/hdrs", {}),
        ("user-empty-password", lambda t: f"http://user:@127.0.0.1:{PLAIN_PORT}/{t}/hdrs", {}),
        ("password-with-colon", lambda t: f"http://user:a:b@127.0.0.1:{PLAIN_PORT}/{t}/hdrs", {}),
        ("empty-fragment", lambda t: f"http://127.0.0.1:{PLAIN_PORT}/{t}/echo/e#", {}),
    ]
    same = total = 0
    for name, url_of, kw in cases:
        if only and name not in only:
            continue
        total += 1
        same += compare(flowrun, name, url_of, **kw)
    proxy = Server(("127.0.0.1", 0), Proxy)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    pp = proxy.server_address[1]
    proxy_cases = [
        ("proxy-http", u("ok"), {"http_proxy": f"http://127.0.0.1:{pp}"}),
        ("proxy-HTTP_PROXY", u("ok"), {"HTTP_PROXY": f"http://127.0.0.1:{pp}"}),
        ("proxy-http-creds", u("ok"), {"http_proxy": f"http://me:s%40cret@127.0.0.1:{pp}"}),
        ("proxy-https-creds", u("ok", "https"), {"https_proxy": f"http://me:pw@127.0.0.1:{pp}"}),
        ("proxy-no_proxy-address", u("ok"), {"http_proxy": f"http://127.0.0.1:{pp}", "no_proxy": "127.0.0.1"}),
        ("proxy-NO_PROXY-star", u("ok"), {"http_proxy": f"http://127.0.0.1:{pp}", "NO_PROXY": "*"}),
        ("proxy-no_proxy-other", u("ok"), {"http_proxy": f"http://127.0.0.1:{pp}", "no_proxy": "example.com,localhost"}),
        ("proxy-no_proxy-block", u("ok"), {"http_proxy": f"http://127.0.0.1:{pp}", "no_proxy": "127.0.0.0/8"}),
        ("proxy-redirect", u("r302"), {"http_proxy": f"http://127.0.0.1:{pp}"}),
        ("proxy-cut-resume", u("cut1"), {"http_proxy": f"http://127.0.0.1:{pp}"}),
        ("proxy-userpass-url", lambda t: f"http://user:p%40ss@127.0.0.1:{PLAIN_PORT}/{t}/auth", {"http_proxy": f"http://127.0.0.1:{pp}"}),
        ("proxy-query", lambda t: f"http://127.0.0.1:{PLAIN_PORT}/{t}/echo/a%20b?x=1#f", {"http_proxy": f"http://127.0.0.1:{pp}"}),
    ]
    for name, url_of, env in proxy_cases:
        if only and name not in only:
            continue
        del PROXY_LOG[:]
        total += 1
        same += compare(flowrun, name, url_of, env_extra=env)
        connects = [l for l in PROXY_LOG if l.startswith("CONNECT")]
        print("   proxy saw:")
        for l in PROXY_LOG:
            print(f"            {l}")
        if connects:
            print(f"            ({len(connects)} CONNECT)")
    print(f"{total} cases, {same} same outcome (success and bytes at `to`), {total - same} differ")


if __name__ == "__main__":
    main()

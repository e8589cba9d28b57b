#!/usr/bin/env python3
"""A slow, Lorem-Picsum-like photo list server on loopback for the thumbs bench.

    slow_server.py IMAGE_DIR [--port 0] [--port-file FILE] [--delay 0.05]

Every response waits --delay seconds first (network latency stand-in).

    GET /v2/list?page=N&limit=M   JSON array of {id, author, width, height, url,
                                  download_url}; Link header with rel="prev" /
                                  rel="next" like picsum.photos (no "next" on
                                  the last page; a page past the end is []).
                                  limit defaults to 30, at most 100.
    GET /img/NAME.jpg             the image, with ETag and Last-Modified;
                                  If-None-Match / If-Modified-Since give 304.
    GET /stats[?reset=1]          request counters, image body bytes sent and
                                  the most requests seen in flight at once, as
                                  JSON (no delay); reset=1 zeroes them after
                                  answering.

--rate-mbit R paces every image body of every connection together through
one link of R Mbit/s (a home line), 16 KiB at a time; 0 (default) does not
pace. --ranges honours `Range: bytes=A-B` / `bytes=A-` (206 with
Content-Range, Accept-Ranges; If-Range with the ETag or Last-Modified), as
CDNs do; without it Range is ignored (200, the whole file).

With --port 0 the system picks a free port; it is written to --port-file.
HTTP/1.1 with keep-alive; one thread per connection.
"""
import argparse
import email.utils
import hashlib
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def jpeg_size(path):
    """(width, height) from the SOF marker, no decoding."""
    with open(path, "rb") as f:
        data = f.read(1 << 16)
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        seglen = int.from_bytes(data[i + 2:i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            h = int.from_bytes(data[i + 5:i + 7], "big")
            w = int.from_bytes(data[i + 7:i + 9], "big")
            return w, h
        i += 2 + seglen
    return 0, 0


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    allow_reuse_address = True

    def __init__(self, addr, handler, image_dir, delay, rate_mbit=0.0, ranges=False):
        super().__init__(addr, handler)
        self.delay = delay
        self.rate = rate_mbit * 1e6 / 8  # bytes per second, 0 = unpaced
        self.ranges = ranges
        self.link_free = 0.0  # when the shared link is next free (time.monotonic)
        self.lock = threading.Lock()
        self.counts = {"list": 0, "image": 0, "partial": 0, "notModified": 0, "notFound": 0, "bytes": 0}
        self.in_flight = 0
        self.max_in_flight = 0
        self.images = []
        for name in sorted(os.listdir(image_dir)):
            if not name.lower().endswith((".jpg", ".jpeg")):
                continue
            path = os.path.join(image_dir, name)
            st = os.stat(path)
            w, h = jpeg_size(path)
            etag = '"%s"' % hashlib.sha1(f"{name}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:16]
            self.images.append({"name": name, "path": path, "width": w, "height": h,
                                "etag": etag, "mtime": st.st_mtime, "size": st.st_size})
        self.by_name = {im["name"]: im for im in self.images}

    def count(self, key):
        with self.lock:
            self.counts[key] += 1

    def pace(self, n):
        """Waits for n bytes' turn on the shared link."""
        if self.rate <= 0:
            return
        with self.lock:
            now = time.monotonic()
            start = max(now, self.link_free)
            self.link_free = start + n / self.rate
            wait = self.link_free - now
        time.sleep(wait)

    def sent(self, n):
        with self.lock:
            self.counts["bytes"] += n

    def enter(self):
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self):
        with self.lock:
            self.in_flight -= 1


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "slow-picsum/1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.serve(True)

    def do_HEAD(self):
        self.serve(False)

    def send(self, code, body, ctype, extra=(), with_body=True):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if with_body and body:
            self.wfile.write(body)

    def serve(self, with_body):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/stats":
            with self.server.lock:
                body = json.dumps(dict(self.server.counts, maxInFlight=self.server.max_in_flight)).encode()
                if "reset=1" in url.query:
                    self.server.counts = dict.fromkeys(self.server.counts, 0)
                    self.server.max_in_flight = self.server.in_flight
            return self.send(200, body, "application/json", with_body=with_body)
        self.server.enter()
        try:
            self.route(url, with_body)
        finally:
            self.server.leave()

    def route(self, url, with_body):
        time.sleep(self.server.delay)
        host = self.headers.get("Host") or "%s:%d" % self.server.server_address[:2]
        base = f"http://{host}"
        if url.path in ("/v2/list", "/v2/list/"):
            return self.serve_list(base, url, with_body)
        if url.path.startswith("/img/"):
            return self.serve_image(urllib.parse.unquote(url.path[5:]), with_body)
        self.server.count("notFound")
        self.send(404, b'{"error":"not found"}', "application/json", with_body=with_body)

    def serve_list(self, base, url, with_body):
        self.server.count("list")
        q = urllib.parse.parse_qs(url.query)
        try:
            page = max(1, int(q.get("page", ["1"])[0]))
            limit = min(100, max(1, int(q.get("limit", ["30"])[0])))
        except ValueError:
            return self.send(400, b'{"error":"bad page or limit"}', "application/json", with_body=with_body)
        start = (page - 1) * limit
        items = []
        for im in self.server.images[start:start + limit]:
            ident = os.path.splitext(im["name"])[0]
            items.append({
                "id": ident,
                "author": f"Bench Author {sum(map(ord, ident)) % 17}",
                "width": im["width"],
                "height": im["height"],
                "url": f"{base}/photo/{ident}",
                "download_url": f"{base}/img/{urllib.parse.quote(im['name'])}",
            })
        links = []
        if page > 1:
            links.append(f'<{base}/v2/list?page={page - 1}&limit={limit}>; rel="prev"')
        if start + limit < len(self.server.images):
            links.append(f'<{base}/v2/list?page={page + 1}&limit={limit}>; rel="next"')
        extra = [("Link", ", ".join(links))] if links else []
        self.send(200, json.dumps(items).encode(), "application/json", extra, with_body)

    def serve_image(self, name, with_body):
        im = self.server.by_name.get(name)
        if im is None:
            self.server.count("notFound")
            return self.send(404, b"not found", "text/plain", with_body=with_body)
        lastmod = email.utils.formatdate(im["mtime"], usegmt=True)
        headers = [("ETag", im["etag"]), ("Last-Modified", lastmod), ("Cache-Control", "max-age=0")]
        inm = self.headers.get("If-None-Match")
        ims = self.headers.get("If-Modified-Since")
        fresh = False
        if inm is not None:
            fresh = im["etag"] in [t.strip() for t in inm.split(",")] or inm.strip() == "*"
        elif ims is not None:
            try:
                fresh = email.utils.parsedate_to_datetime(ims).timestamp() >= int(im["mtime"])
            except (TypeError, ValueError):
                fresh = False
        if fresh:
            self.server.count("notModified")
            self.send_response(304)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with open(im["path"], "rb") as f:
            body = f.read()
        code, first = 200, 0
        wanted = self.byte_range(len(body), im["etag"], lastmod) if self.server.ranges else None
        if self.server.ranges:
            headers.append(("Accept-Ranges", "bytes"))
        if wanted == "unsatisfiable":
            self.server.count("notFound")
            return self.send(416, b"", "text/plain", [("Content-Range", f"bytes */{len(body)}")], with_body)
        if wanted is not None:
            first, last = wanted
            headers.append(("Content-Range", f"bytes {first}-{last}/{len(body)}"))
            body = body[first:last + 1]
            code = 206
            self.server.count("partial")
        else:
            self.server.count("image")
        self.send_response(code)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if not with_body:
            return
        try:
            for at in range(0, len(body), 16384):
                piece = body[at:at + 16384]
                self.server.pace(len(piece))
                self.wfile.write(piece)
                self.server.sent(len(piece))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client ended the body early

    def byte_range(self, size, etag, lastmod):
        """(first, last) of a Range this server honours, "unsatisfiable", or
        None for the whole file (no Range, a stale If-Range, several ranges)."""
        spec = self.headers.get("Range")
        if not spec or not spec.startswith("bytes=") or "," in spec:
            return None
        if_range = self.headers.get("If-Range")
        if if_range is not None and if_range.strip() not in (etag, lastmod):
            return None
        a, _, b = spec[6:].strip().partition("-")
        try:
            if a == "":
                first, last = max(0, size - int(b)), size - 1
            else:
                first = int(a)
                last = min(size - 1, int(b)) if b else size - 1
        except ValueError:
            return None
        if first >= size or last < first:
            return "unsatisfiable"
        return first, last


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("image_dir")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--rate-mbit", type=float, default=0.0)
    ap.add_argument("--ranges", action="store_true")
    a = ap.parse_args()
    srv = Server((a.host, a.port), Handler, a.image_dir, a.delay, a.rate_mbit, a.ranges)
    port = srv.server_address[1]
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(f"{port}\n")
        os.replace(a.port_file + ".tmp", a.port_file)
    print(f"serving {len(srv.images)} images on http://{a.host}:{port} (delay {a.delay}s, "
          f"{'paced to %g Mbit/s' % a.rate_mbit if a.rate_mbit > 0 else 'unpaced'}, Range {'on' if a.ranges else 'off'})",
          file=sys.stderr)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

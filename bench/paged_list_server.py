#!/usr/bin/env python3
"""A paginated Picsum-like photo list on 127.0.0.1, for bench/paged_list_memory.sh.

    python3 bench/paged_list_server.py N PAGE_SIZE

serves /list?page=P (from 1): PAGE_SIZE entries a page, N in all, each page
with `Link: <…?page=P+1>; rel="next"` (the last one included, as Picsum
does; the page after it is `[]`). Prints its port on the first line of
standard output, then serves until killed.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

N, SIZE = int(sys.argv[1]), int(sys.argv[2])


class Pages(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urlparse(self.path)
        page = int(parse_qs(url.query).get("page", ["1"])[0])
        first, last = (page - 1) * SIZE, min(N, page * SIZE)
        entries = [
            {"id": str(i), "author": "Author %d" % (i % 997), "width": 1000 + i % 5000, "height": 1000 + i % 3000,
             "url": "https://unsplash.com/photos/%011x" % (i * 7919),
             "download_url": "https://picsum.photos/id/%d/%d/%d" % (i, 1000 + i % 5000, 1000 + i % 3000)}
            for i in range(first, last)
        ]
        body = json.dumps(entries, separators=(",", ":")).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Link", '<http://127.0.0.1:%d/list?page=%d>; rel="next"' % (self.server.server_port, page + 1))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
print(server.server_port, flush=True)
server.serve_forever()

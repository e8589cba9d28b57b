#!/usr/bin/env python3
"""Writes a thumbs manifest of N items in ManifestWriter's layout (one item a
line), for measuring `thumbs stats` and `thumbs verify` at scale:

    python3 scripts/make-manifest.py N OUT/manifest.json [--output-from RUN]

With --output-from, every item's output is RUN's first output (path, size,
bytes, SHA-256 copied, the file copied beside the new manifest), so that
`verify` finds each output on disk; otherwise the outputs are made up.
Ids are unique and in source order, as a run writes them.
"""
import json
import os
import shutil
import sys

n = int(sys.argv[1])
path = sys.argv[2]
folder = os.path.dirname(os.path.abspath(path))
output = {"size": "256", "path": "256/x.jpg", "width": 256, "height": 192, "bytes": 10233, "format": "jpeg",
          "sha256": "4005f249ce6de9610ff2e8f112d39a71879c93d4d1cfffdcb919aa8fd4bae9e0"}
if "--output-from" in sys.argv:
    run = sys.argv[sys.argv.index("--output-from") + 1]
    with open(os.path.join(run, "manifest.json")) as f:
        first = next(i for i in json.load(f)["items"] if i["outputs"])
    output = first["outputs"][0]
    os.makedirs(os.path.join(folder, os.path.dirname(output["path"])), exist_ok=True)
    shutil.copyfile(os.path.join(run, output["path"]), os.path.join(folder, output["path"]))
head = """{
  "schema": "thumbs.manifest/1",
  "tool": {"libvips":"8.14.1","name":"thumbs","version":"0.1.0"},
  "startedAt": "2026-11-27T09:55:46.038Z",
  "finishedAt": "2026-11-27T09:55:47.636Z",
  "settings": {"crop":"centre","enlarge":false,"fit":"inside","format":"jpeg","keepMetadata":false,"placeholders":true,"quality":80,"sizes":["256"]},
  "run": {"decoders":{"libjpeg":%d},"downloads":{"byStatus":{},"bytes":0,"bytesSaved":0,"failed":0,"notModified":0,"ok":0,"pages":0,"partial":0,"requests":0,"retries":0},"ignored":0,"similar":0,"unreadable":0,"wallSeconds":1.5},
  "items": [
""" % n
out_json = json.dumps(output, separators=(", ", ": "))
with open(path, "w") as f:
    f.write(head)
    for i in range(n):
        line = ('    {"id": "d%03d/p%07d.jpg", "source": "/photos/d%03d/p%07d.jpg", "status": "ok", '
                '"sha256": "%064x", "bytes": %d, "format": "jpeg", "width": 4000, "height": 3000, "orientation": 1, '
                '"outputs": [%s], "placeholder": {"thumbhash": "HwgCDYJMFplXmKtwem2EJviXh4+J", '
                '"blurhash": "L3FiPx^+@E*|t7m,jF#R9FP9GtB-"}, "color": "#878787", "phash": "%016x", "ms": %.1f, '
                '"modified": 1795773345.5}') % (i // 1000, i, i // 1000, i, i, 200000 + i % 5000, out_json, (i * 2654435761) % (1 << 64), 20 + i % 50)
        f.write(line + (",\n" if i + 1 < n else "\n"))
    f.write("  ]\n}\n")

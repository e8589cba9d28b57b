#!/usr/bin/env python3
"""Synthetic shard manifests for the merge part of bench.sh's scale section.

    python3 bench/merge_shards.py TEMPLATE_OUT DEST --items N --shards K

TEMPLATE_OUT is the OUT of a real `thumbs run --shard 0/1` over one image:
its manifest gives the tool and settings lines (as this thumbs writes
them) and its first thumbnail the bytes every output links to. DEST gets
DEST/shard-I/manifest.json for every shard I of K, in ManifestWriter's layout
(one item per line, the run's order in run.shardOrder unless --no-order), and
each item's output as a hard link to one of a few copies of that thumbnail
(ext4 allows 65,000 links to a file, so one copy per 50,000 outputs), all in
one folder per shard (DEST/shard-I/SIZE/d0000-img-00000000.jpg).

Items look like a run's over a folder of N photos: ids d0000/img-00000000.jpg
(1,000 per folder, in the walk's order), each in the shard its FNV-1a 64 hash
names (as ShardPartition), distinct SHA-256s except 0.5 % that repeat an
earlier item's bytes (duplicates across shards), random 64-bit pHashes except
5 % that are an earlier item's with 2 bits flipped (look-alikes), and 0.1 %
failed. Deterministic (seeded).
"""
import argparse
import json
import os
import sys

import numpy as np

FNV_BASIS = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)


def ids_for(start, count):
    n = np.arange(start, start + count, dtype=np.int64)
    return [f"d{i // 1000:04d}/img-{i:08d}.jpg" for i in n.tolist()]


def fnv_shards(ids, shards):
    raw = np.frombuffer("".join(ids).encode(), dtype=np.uint8).reshape(len(ids), -1)
    h = np.full(len(ids), FNV_BASIS, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in range(raw.shape[1]):
            h ^= raw[:, column].astype(np.uint64)
            h *= FNV_PRIME
    return (h % np.uint64(shards)).astype(np.int64)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("template")
    p.add_argument("dest")
    p.add_argument("--items", type=int, required=True)
    p.add_argument("--shards", type=int, required=True)
    p.add_argument("--no-order", action="store_true", help="leave run.shardOrder out (shards of an older version)")
    a = p.parse_args()

    lines = open(os.path.join(a.template, "manifest.json"), encoding="utf-8").read().split("\n")
    tool = next(l for l in lines if l.startswith('  "tool": '))
    settings = next(l for l in lines if l.startswith('  "settings": '))
    started = next(l for l in lines if l.startswith('  "startedAt": '))
    finished = next(l for l in lines if l.startswith('  "finishedAt": '))
    template = json.loads("\n".join(lines))
    first = template["items"][0]["outputs"][0]
    thumb = os.path.join(a.template, first["path"])
    size, thumb_bytes, thumb_sha = first["size"], first["bytes"], first["sha256"]

    rng = np.random.default_rng(23)
    n, k = a.items, a.shards
    if os.path.exists(a.dest):
        sys.exit(f"{a.dest} exists: give a new folder")
    os.makedirs(a.dest)
    copies = [os.path.join(a.dest, f"thumb-{c}.jpg") for c in range(n // 50_000 + 1)]
    for c in copies:
        if not os.path.exists(c):
            with open(thumb, "rb") as src, open(c, "wb") as dst:
                dst.write(src.read())

    # Per item: shard, source hash, pHash, status.
    block = 1_000_000
    shard_of = np.empty(n, dtype=np.int64)
    for s in range(0, n, block):
        shard_of[s:s + block] = fnv_shards(ids_for(s, min(block, n - s)), k)
    sha_src = np.arange(n, dtype=np.int64)
    dup = rng.random(n) < 0.005
    dup[0] = False
    sha_src[dup] = (rng.random(dup.sum()) * np.nonzero(dup)[0]).astype(np.int64)
    phash = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64) * np.uint64(2) + rng.integers(0, 2, n).astype(np.uint64)
    alike = rng.random(n) < 0.05
    alike[0] = False
    idx = np.nonzero(alike)[0]
    base = (rng.random(len(idx)) * idx).astype(np.int64)
    bits = rng.integers(0, 64, (len(idx), 2)).astype(np.uint64)
    phash[idx] = phash[base] ^ (np.uint64(1) << bits[:, 0]) ^ (np.uint64(1) << bits[:, 1])
    failed = rng.random(n) < 0.001
    width = rng.choice([4000, 6000, 3024, 4032, 1920], n)
    ms = np.round(rng.gamma(4, 8, n), 1)

    order = None if a.no_order else ",".join(map(str, shard_of.tolist()))
    run = {"decoders": {"libjpeg": int(n)}, "downloads": {"bytes": 0, "byStatus": {}, "failed": 0, "notModified": 0,
                                                           "ok": 0, "pages": 0, "requests": 0, "retries": 0},
           "ignored": 0, "similar": 6, "unreadable": 0, "wallSeconds": 100.0}
    outs = []
    for s in range(k):
        d = os.path.join(a.dest, f"shard-{s}")
        os.makedirs(d, exist_ok=True)
        f = open(os.path.join(d, "manifest.json"), "w", encoding="utf-8")
        f.write("{\n  \"schema\": \"thumbs.manifest/1\",\n" + tool + "\n" + started + "\n" + finished + "\n" + settings + "\n")
        f.write(f'  "shard": {{"count":{k},"index":{s}}},\n')
        r = dict(run)
        if order is not None:
            r["shardOrder"] = "\x00"
        text = json.dumps(r, sort_keys=True, separators=(",", ":"))
        if order is not None:
            before, after = text.split('"\\u0000"')
            f.write("  \"run\": " + before + '"' + order + '"' + after + ",\n")
        else:
            f.write("  \"run\": " + text + ",\n")
        f.write("  \"items\": [")
        outs.append(f)
    written = [0] * k
    made_dirs = set()
    for s in range(0, n, block):
        ids = ids_for(s, min(block, n - s))
        for j, id_ in enumerate(ids):
            i = s + j
            sh = int(shard_of[i])
            f = outs[sh]
            sha = f"{int(sha_src[i]):064x}"
            status = "failed" if failed[i] else "ok"
            w = int(width[i])
            h = w * 3 // 4
            line = (f'{{"id": "{id_}", "source": "p/{id_}", "status": "{status}", "sha256": "{sha}", "bytes": {w * 31}, '
                    f'"format": "jpeg", "width": {w}, "height": {h}, "orientation": 1, "outputs": [')
            if not failed[i]:
                # One folder per shard and size: a folder per shard and
                # source folder would be a million folders at 10M items
                # (4 GB of directory blocks).
                path = f"{size}/{id_.replace('/', '-')}"
                folder = os.path.join(a.dest, f"shard-{sh}", size)
                if folder not in made_dirs:
                    os.makedirs(folder, exist_ok=True)
                    made_dirs.add(folder)
                os.link(copies[i // 50_000], os.path.join(a.dest, f"shard-{sh}", path))
                line += (f'{{"size": "{size}", "path": "{path}", "width": 256, "height": 192, "bytes": {thumb_bytes}, '
                         f'"format": "jpeg", "sha256": "{thumb_sha}"}}], "color": "#808080", "phash": "{int(phash[i]):016x}", ')
            else:
                line += '], "error": {"code": "decode", "message": "synthetic failure"}, '
            line += f'"ms": {ms[i]}, "modified": 1795559246.344}}'
            f.write(("\n    " if written[sh] == 0 else ",\n    ") + line)
            written[sh] += 1
        print(f"  {min(s + block, n):,} of {n:,} items", file=sys.stderr)
    for sh, f in enumerate(outs):
        f.write("\n  ]\n}\n" if written[sh] else "]\n}\n")
        f.close()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Bytes read and thumbnail quality of thumbs on camera JPEGs (bench.sh camera).

    camera_quality.py SRC_DIR PREVIEW_OUT DC_OUT REF_DIR

SRC_DIR holds the camera JPEGs as the cameras wrote them. PREVIEW_OUT is a
thumbs run over SRC_DIR (its manifest.json and thumbnails), DC_OUT a thumbs
run over the same files with their previews removed (same names), so their
thumbnails are the photos' own decode.

For every file:
- bytes read: the manifest's `read.bytes` where thumbs read part of the file
  (a preview served), else the file's `bytes` (it was read whole);
- PSNR over R, G and B of each run's thumbnail against a reference: the
  file's full decode with Pillow (no draft: every pixel), turned upright by
  its EXIF orientation (ImageOps.exif_transpose), resized with LANCZOS
  (Lanczos3) to exactly the thumbnail's width and height. References are kept
  in REF_DIR as PNG (name, size), so later runs do not decode again.

Prints one Markdown table row per file, then `key value` lines:
files, served (read partly), bytes, bytes_read, share, and the minimum and
median PSNR of each run (preview_min, preview_median, dc_min, dc_median,
dc_max); then the share read and the PSNR over the files a preview served
alone (served_share, served_min, served_median); then one
`file_psnr NAME DB` line per file (the PSNR of the run with previews, as in
the table), which bench.sh reads to find the previews under a bound.
"""
import json
import math
import os
import statistics
import sys

import numpy as np
from PIL import Image, ImageOps

try:
    LANCZOS = Image.Resampling.LANCZOS
except AttributeError:  # Pillow < 9.1
    LANCZOS = Image.LANCZOS


def items(outdir):
    """The manifest's items of a run, by source file name."""
    with open(os.path.join(outdir, "manifest.json")) as f:
        manifest = json.load(f)
    return {os.path.basename(it["source"]): it for it in manifest["items"] if it.get("status") == "ok"}


def thumbnail(outdir, item):
    out = item["outputs"][0]
    return np.asarray(Image.open(os.path.join(outdir, out["path"])).convert("RGB"), dtype=np.float64)


def reference(src, refdir, name, w, h):
    path = os.path.join(refdir, f"{name}.{w}x{h}.png")
    if not os.path.exists(path):
        im = Image.open(src)
        im = ImageOps.exif_transpose(im).convert("RGB")
        im.resize((w, h), LANCZOS).save(path)
    return np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)


def psnr(a, b):
    if a.shape != b.shape:
        return float("nan")
    mse = float(np.mean((a - b) ** 2))
    return 99.0 if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def fmt(v):
    return "n/a" if v is None or math.isnan(v) else f"{v:.1f}"


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    src, pre_out, dc_out, refdir = argv[1:]
    os.makedirs(refdir, exist_ok=True)
    pre, dc = items(pre_out), items(dc_out)
    names = sorted(n for n in os.listdir(src) if n.lower().endswith(".jpg"))
    total = read = served = 0
    served_total = served_read = 0
    pre_db, dc_db, served_db = [], [], []
    per_file = []  # (name, PSNR of thumbs as run), printed as `file_psnr NAME DB` lines
    print("| file | photo | bytes | read | share | preview served | PSNR dB | PSNR dB, previews removed (DC decode) |")
    print("|---|---|---:|---:|---:|---|---:|---:|")
    for name in names:
        it = pre.get(name)
        if it is None:
            print(f"| {name} | failed | | | | | | |")
            continue
        size = it["bytes"]
        r = it.get("read")
        got = r["bytes"] if r and r.get("partial") else size
        served += bool(r and r.get("partial"))
        total += size
        read += got
        out = it["outputs"][0]
        ref = reference(os.path.join(src, name), refdir, name, out["width"], out["height"])
        p = psnr(thumbnail(pre_out, it), ref)
        pre_db.append(p)
        per_file.append((name, p))
        if r and r.get("partial"):
            served_total += size
            served_read += got
            served_db.append(p)
        d = float("nan")
        if name in dc:
            d = psnr(thumbnail(dc_out, dc[name]), ref)
            dc_db.append(d)
        print(
            f"| {name} | {it['width']}x{it['height']} | {size} | {got} | {100 * got / size:.1f}% "
            f"| {'yes' if r and r.get('partial') else 'no'} | {fmt(p)} | {fmt(d)} |"
        )
    def stat(f, v):
        v = [x for x in v if not math.isnan(x)]
        return f(v) if v else float("nan")
    figures = {
        "files": len(pre),
        "served": served,
        "bytes": total,
        "bytes_read": read,
        "share": f"{read / total:.4f}" if total else "n/a",
        "preview_min": fmt(stat(min, pre_db)),
        "preview_median": fmt(stat(statistics.median, pre_db)),
        "dc_min": fmt(stat(min, dc_db)),
        "dc_median": fmt(stat(statistics.median, dc_db)),
        "dc_max": fmt(stat(max, dc_db)),
        "served_share": f"{served_read / served_total:.4f}" if served_total else "n/a",
        "served_min": fmt(stat(min, served_db)),
        "served_median": fmt(stat(statistics.median, served_db)),
    }
    for k, v in figures.items():
        print(f"{k} {v}")
    for name, p in per_file:
        print(f"file_psnr {name} {fmt(p)}")


if __name__ == "__main__":
    main(sys.argv)

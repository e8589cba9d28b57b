#!/usr/bin/env python3
"""The `--similar` default measured on real, distinct photographs (issue 22).

    /tmp/la/bin/python bench/lookalikes_real.py --thumbs .build/release/thumbs \\
        [--mirrors /work/.mirror] [--dir bench-out/lookalikes-real] \\
        [--synthetic-log bench-out/lookalikes-600x400.log] [--out bench/lookalikes-results.md]

1. Reads the photos named in bench/lookalikes-real.txt (repository, commit,
   path) out of git repositories: MIRRORS/OWNER+NAME/repo (bare, as the
   fetch tool leaves them) or MIRRORS/NAME (a clone). Each is turned upright,
   flattened, converted to 8-bit sRGB and saved as a JPEG at Q95: the
   "original" (the files never go into git).
2. Makes edited copies of each original with lookalikes.py's recipes where they
   exist: re-encoded at Q60, resized to 50 %, 10 % brighter, WebP (libvips
   default, Q75); and, shown without a target, cropped by 5 % and rotated
   90 degrees with an EXIF orientation tag.
3. Runs thumbs over all of them (--size 256) and takes the `phash` of its
   manifest, as users get it.
4. Prints (Markdown) recall per kind of copy for D = 3..12, the false pairs
   among the distinct photos at each D, the distribution of distinct-pair
   distances (min, 1st percentile, median) with the nearest pairs by name, and
   the D chosen by the rule: the smallest D with recall >= 95 % on the four
   required kinds and no false pair among the distinct photos; when both
   cannot hold, no false pair comes first (the largest D without one).
   With --synthetic-log, the output of `lookalikes.py --thumbs` on the
   synthetic 600x400 set is appended, and its thumbs table counts in the
   choice too. With --out, the whole text is also written to that file.
"""
import argparse
import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pyvips

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lookalikes import pair_distances, popcount, thumbs_hashes, variant  # noqa: E402

REQUIRED = ["reencode_q60", "resize_50", "bright_10", "webp"]
SHOWN = ["crop_5", "exif_rot90"]
D_RANGE = range(3, 13)


def read_list(path):
    entries = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                repo, commit, p = line.split(None, 2)
                entries.append((repo, commit, p))
    return entries


def git_dir(mirrors, repo):
    owner, name = repo.split("/")
    for cand in (os.path.join(mirrors, f"{owner}+{name}", "repo"), os.path.join(mirrors, name)):
        if os.path.isdir(cand):
            return cand
    sys.exit(f"lookalikes_real: no copy of {repo} under {mirrors} (fetch it, or git clone it there)")


def blob(mirrors, repo, commit, path):
    g = git_dir(mirrors, repo)
    for rev in (commit, "HEAD"):
        out = subprocess.run(["git", "-C", g, "show", f"{rev}:{path}"], capture_output=True)
        if out.returncode == 0:
            return out.stdout
    sys.exit(f"lookalikes_real: {repo}:{path} not found at {commit[:10]} or HEAD")


def normalised(data):
    """The photo upright, without alpha, 8-bit sRGB, as JPEG Q95 bytes."""
    img = pyvips.Image.new_from_buffer(data, "").autorot()
    if img.hasalpha():
        img = img.flatten(background=[255] * (img.bands - 1))
    if img.get_typeof("icc-profile-data"):
        img = img.icc_transform("srgb", embedded=True)
    img = img.colourspace("srgb")
    if img.format != "uchar":
        img = img.cast("uchar")
    return img.jpegsave_buffer(Q=95, strip=True)


def copy_of(kind, jpeg):
    if kind == "reencode_q60":
        return pyvips.Image.new_from_buffer(jpeg, "").jpegsave_buffer(Q=60), "jpg"
    return variant(kind, jpeg)


def synthetic_tables(log):
    """{kind: {D: recall %}} and {D: false pairs} of the thumbs table in a
    lookalikes.py log (the last '## pHash way: thumbs' section)."""
    text = open(log).read()
    part = text.split("## pHash way: thumbs")[-1] if "## pHash way: thumbs" in text else ""
    recall, false_pairs = {}, {}
    head = None
    for line in part.splitlines():
        if line.startswith("| D |"):
            head = [c.strip() for c in line.strip("|").split("|")]
        elif head and re.match(r"\| \d+ \|", line):
            cells = [c.strip() for c in line.strip("|").split("|")]
            d = int(cells[0])
            for k, c in zip(head[1:-1], cells[1:-1]):
                recall.setdefault(k, {})[d] = float(c.rstrip("%"))
            false_pairs[d] = int(cells[-1])
    return recall, false_pairs


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--list", default=os.path.join(here, "lookalikes-real.txt"))
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--dir", default="bench-out/lookalikes-real")
    ap.add_argument("--thumbs", default=os.environ.get("THUMBS_BIN"), required=not os.environ.get("THUMBS_BIN"))
    ap.add_argument("--synthetic-log")
    ap.add_argument("--out")
    args = ap.parse_args()

    entries = read_list(args.list)
    photos_dir, copies_dir = os.path.join(args.dir, "photos"), os.path.join(args.dir, "copies")
    os.makedirs(photos_dir, exist_ok=True)
    os.makedirs(copies_dir, exist_ok=True)
    names, copies = [], {k: [] for k in REQUIRED + SHOWN}
    for n, (repo, commit, path) in enumerate(entries):
        name = f"{n:03d}_" + re.sub(r"[^A-Za-z0-9]+", "_", f"{repo.split('/')[1]}_{os.path.splitext(path)[0]}")
        p = os.path.join(photos_dir, name + ".jpg")
        if not os.path.exists(p):
            with open(p, "wb") as f:
                f.write(normalised(blob(args.mirrors, repo, commit, path)))
        names.append(name)
        original = open(p, "rb").read()
        for kind in copies:
            data, ext = copy_of(kind, original)
            q = os.path.join(copies_dir, f"{name}_{kind}.{ext}")
            with open(q, "wb") as f:
                f.write(data)
            copies[kind].append(os.path.relpath(q, args.dir))

    hashes = thumbs_hashes(args.thumbs, args.dir)
    missing = [n for n in names if f"photos/{n}.jpg" not in hashes]
    if missing:
        sys.exit(f"lookalikes_real: thumbs gave no phash for {missing}")
    orig = [hashes[f"photos/{n}.jpg"] for n in names]
    dist = {k: [popcount(hashes[q] ^ orig[i]) for i, q in enumerate(copies[k])] for k in copies}
    pairs = pair_distances(orig)
    idx = [(i, j) for i in range(len(orig) - 1) for j in range(i + 1, len(orig))]

    out = []
    say = out.append
    say(f"## Real photographs: {len(names)} distinct photos from public test suites, thumbs' own pHash")
    say("")
    say(f"Listed in `bench/lookalikes-real.txt`; each upright, 8-bit sRGB, JPEG Q95; copies made of each; "
        f"pHash = the `phash` of thumbs' manifest (`--size 256`). {len(pairs)} distinct pairs.")
    say("")
    kinds = REQUIRED + SHOWN
    say("| D | " + " | ".join(kinds) + " | false pairs among the distinct photos |")
    say("|---:|" + "---:|" * len(kinds) + "---:|")
    recall = {k: {} for k in kinds}
    false_pairs = {}
    for d in D_RANGE:
        for k in kinds:
            recall[k][d] = 100.0 * sum(1 for x in dist[k] if x <= d) / len(dist[k])
        false_pairs[d] = int((pairs <= d).sum())
        say(f"| {d} | " + " | ".join(f"{recall[k][d]:.0f}%" for k in kinds) + f" | {false_pairs[d]} |")
    say("")
    say("Distance from the original, per kind of copy: median / max, and every value:")
    say("")
    for k in kinds:
        v = sorted(dist[k])
        say(f"- {k}: {int(np.median(v))} / {max(v)}; {v}")
    say("")
    say(f"Distinct pairs: min {int(pairs.min())}, 1st percentile {np.percentile(pairs, 1):.0f}, "
        f"5th {np.percentile(pairs, 5):.0f}, median {np.median(pairs):.0f}. The nearest:")
    say("")
    for k in np.argsort(pairs, kind="stable")[:5]:
        i, j = idx[k]
        say(f"- {int(pairs[k])} bits: {names[i]} / {names[j]}")

    syn_recall, syn_false = ({}, {})
    if args.synthetic_log:
        syn_recall, syn_false = synthetic_tables(args.synthetic_log)
    # the rule: recall >= 95 % on the required kinds and no false pair, on the
    # real photos (and on the synthetic set when given)
    def ok_recall(d):
        real = all(recall[k][d] >= 95 for k in REQUIRED)
        syn = all(v.get(d, 100) >= 95 for k, v in syn_recall.items() if k in ("reencode_q50", "resize_50", "bright_10", "webp"))
        return real and syn

    def no_false(d):
        return false_pairs[d] == 0 and syn_false.get(d, 0) == 0

    both = [d for d in D_RANGE if ok_recall(d) and no_false(d)]
    say("")
    if both:
        chosen = both[0]
        say(f"**Chosen: D = {chosen}**, the smallest D with recall >= 95 % on re-encoded, resized, brighter and WebP "
            f"copies and no false pair among the distinct photos"
            + (" (real and synthetic)" if syn_recall else "") + f"; both hold for D = {both[0]}..{both[-1]}.")
    else:
        safe = [d for d in D_RANGE if no_false(d)]
        chosen = safe[-1] if safe else min(D_RANGE)
        say(f"**Chosen: D = {chosen}**: no D gives both recall >= 95 % and no false pair; no false pair comes first.")
    if args.synthetic_log:
        say("")
        say("## Synthetic set: `lookalikes.py --size 600x400 --thumbs` (1,000 distinct make-corpus photos, copies of 20)")
        say("")
        say("```")
        out.extend(open(args.synthetic_log).read().rstrip("\n").splitlines())
        say("```")
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(f"# Look-alike measurement for the `--similar` default (bench/lookalikes_real.py)\n\n{text}")
    print(f"chosen {chosen}", file=sys.stderr)


if __name__ == "__main__":
    main()

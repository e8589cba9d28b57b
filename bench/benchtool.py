#!/usr/bin/env python3
"""Helpers for bench/bench.sh (python3 stdlib + numpy + Pillow only).

    benchtool.py median FILE                  median of the numbers in FILE
                                              (one per line; "error" lines are
                                              ignored) or "error" if none
    benchtool.py calc EXPR                    evaluate a float expression,
                                              print it with 4 significant digits
    benchtool.py variants SRC DST COPIES [--per-dir N]
                                              write COPIES distinct copies of
                                              every JPEG in SRC to DST: same
                                              pixels, different bytes (a unique
                                              tag appended after the EOI marker)
    benchtool.py multiply FILE DST COUNT [--per-dir N]
                                              COUNT distinct copies of one JPEG
    benchtool.py genlist DST COUNT [WIDTH HEIGHT]
                                              COUNT distinct photo-like JPEGs
    benchtool.py psnr REFDIR SRCDIR NAMES LABEL=DIR... [--ext jpg|png]
                                              mean PSNR of each candidate folder
                                              against a Lanczos3 reference made
                                              from the full-resolution source;
                                              prints label, mean dB, min dB,
                                              images, sizes, mean KiB
    benchtool.py finish LOGFILE WALL          time spent writing manifest /
                                              stats / report, from thumbs'
                                              --log-format json finish event
    benchtool.py stat OUTDIR KEY              a count from OUT/stats.json
    benchtool.py embed-icc SRC DST ICC        DST = SRC with ICC embedded as APP2
                                              ICC_PROFILE segment(s) after the
                                              APPn markers; entropy data untouched
    benchtool.py orient SRC DST VALUE         DST = SRC with EXIF Orientation
                                              (IFD0 tag 0x0112) set to VALUE
    benchtool.py icc-extract IMAGE OUT        write IMAGE's embedded profile to OUT
    benchtool.py icc-name FILE                description of an ICC profile
                                              (a .icc file or an image's)
    benchtool.py mad DIR_A DIR_B              mean absolute difference (levels,
                                              RGB) between same-stem images:
                                              prints mean, max, count
    benchtool.py tojson TSV OUT               section/key/value lines -> JSON
    benchtool.py psnr-dirs DIR_A DIR_B        worst and median PSNR of same-named
                                              images, and their count
    benchtool.py downloads OUTDIR             received and whole bytes of a list
                                              run's images, partial items, image
                                              requests, items
    benchtool.py decoders OUTDIR              "path n, ..." of OUT/stats.json's
                                              decoders, and its non-zero
                                              failed / ignored counts
    benchtool.py dng SRC DST [ORIENTATION]    DST = a DNG made from the JPEG
                                              SRC: IFD0 a 256 px RGB preview,
                                              a raw CFA SubIFD (RGGB, 12-bit,
                                              lossless JPEG, the photo's
                                              size), a SubIFD with a 1620 px
                                              JPEG preview (Pillow, Q90, 4:2:2)
                                              and one with SRC itself as the
                                              full-size JPEG preview (APPn
                                              segments dropped)
    benchtool.py raw-previews OUTDIR SRCDIR DST
                                              the JPEG preview each RAW of a
                                              thumbs run read (from the
                                              manifest's read.bytes) into
                                              DST, with the JPEG scale thumbs
                                              decodes it at (DST/scales);
                                              prints files, bytes read, bytes,
                                              share, the previews, unmatched
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys


def die(msg):
    print(f"benchtool: {msg}", file=sys.stderr)
    sys.exit(2)


def cmd_median(path):
    vals = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    vals.append(float(line.strip()))
                except ValueError:
                    pass
    except FileNotFoundError:
        pass
    print(f"{statistics.median(vals):.4f}" if vals else "error")


def cmd_calc(expr):
    try:
        v = eval(expr, {"__builtins__": {}}, {"min": min, "max": max})
    except Exception:
        print("n/a")
        return
    print(f"{v:.0f}" if abs(v) >= 1000 else f"{v:.4g}")


def tagged_copies(data, count, start, tagfmt=b"\nthumbs-bench-%09d\n"):
    if not data.rstrip(b"\0").endswith(b"\xff\xd9"):
        die("source is not a JPEG ending with an EOI marker")
    for i in range(count):
        yield data + (tagfmt % (start + i))


def write_if_needed(path, data):
    try:
        if os.path.getsize(path) == len(data):
            return False
    except OSError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return True


def dest(dst, index, name, per_dir):
    if per_dir:
        d = os.path.join(dst, f"d{index // per_dir:04d}")
        os.makedirs(d, exist_ok=True)
        return os.path.join(d, name)
    return os.path.join(dst, name)


def cmd_variants(src, dst, copies, per_dir=0):
    os.makedirs(dst, exist_ok=True)
    names = sorted(n for n in os.listdir(src) if n.lower().endswith((".jpg", ".jpeg")))
    k = 0
    for n, name in enumerate(names):
        with open(os.path.join(src, name), "rb") as f:
            data = f.read()
        stem = os.path.splitext(name)[0]
        for c, blob in enumerate(tagged_copies(data, copies, n * copies)):
            write_if_needed(dest(dst, k, f"{stem}_c{c:02d}.jpg", per_dir), blob)
            k += 1
    print(k)


def cmd_multiply(src, dst, count, per_dir=0):
    os.makedirs(dst, exist_ok=True)
    with open(src, "rb") as f:
        data = f.read()
    for i, blob in enumerate(tagged_copies(data, count, 0)):
        path = dest(dst, i, f"img_{i:06d}.jpg", per_dir)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(blob)
    print(count)


def cmd_genlist(dst, count, width=640, height=480):
    import numpy as np
    from PIL import Image

    os.makedirs(dst, exist_ok=True)
    for i in range(count):
        path = os.path.join(dst, f"pic_{i:04d}.jpg")
        if os.path.exists(path) and os.path.getsize(path) > 0:
            continue
        rng = np.random.default_rng(1000 + i)
        low = rng.normal(128, 55, (height // 60 + 2, width // 60 + 2, 3)).clip(0, 255).astype(np.uint8)
        img = Image.fromarray(low, "RGB").resize((width, height), Image.Resampling.BICUBIC)
        arr = np.asarray(img, dtype=np.float32) + rng.normal(0, 6, (height, width, 3))
        Image.fromarray(arr.clip(0, 255).astype(np.uint8), "RGB").save(path + ".tmp", "JPEG", quality=90)
        os.replace(path + ".tmp", path)
    print(count)


def load_rgb(path):
    import numpy as np
    from PIL import Image

    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"), dtype=np.float64)


def psnr(a, b):
    import numpy as np

    mse = float(np.mean((a - b) ** 2))
    return float("inf") if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def header_field(path, field):
    out = subprocess.run(["vipsheader", "-f", field, path], capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else ""


def reference(refdir, src, w, h):
    """Full-resolution decode, Lanczos3 to exactly w x h, no reducing gap
    (gap 0: one true Lanczos3 reduction, no box pre-shrink), lossless PNG.
    A source with an EXIF orientation is turned upright first, and one with an
    embedded colour profile is transformed to sRGB first (thumbs' outputs are
    upright sRGB), both at full resolution."""
    os.makedirs(refdir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(src))[0]
    ref = os.path.join(refdir, f"{stem}_{w}x{h}.png")
    if not os.path.exists(ref):
        tmp = ref + ".src.v"
        if header_field(src, "orientation") not in ("", "1"):
            subprocess.run(["vips", "autorot", src, tmp], check=True, capture_output=True)
            src = tmp
        if header_field(src, "icc-profile-data"):
            tmp2 = ref + ".icc.v"
            subprocess.run(["vips", "icc_transform", src, tmp2, "srgb", "--embedded"], check=True, capture_output=True)
            if src == tmp:
                os.remove(tmp)
            os.replace(tmp2, tmp)
            src = tmp
        out = subprocess.run(["vipsheader", "-f", "width", src], capture_output=True, text=True, check=True)
        W = int(out.stdout)
        out = subprocess.run(["vipsheader", "-f", "height", src], capture_output=True, text=True, check=True)
        H = int(out.stdout)
        # vips rounds the output size to the nearest pixel, so w / W lands on w.
        subprocess.run(["vips", "resize", src, ref + ".tmp.png", repr(w / W),
                        "--vscale", repr(h / H), "--kernel", "lanczos3", "--gap", "0"],
                       check=True, capture_output=True)
        got = subprocess.run(["vipsheader", "-f", "width", ref + ".tmp.png"], capture_output=True, text=True)
        goth = subprocess.run(["vipsheader", "-f", "height", ref + ".tmp.png"], capture_output=True, text=True)
        if (got.stdout.strip(), goth.stdout.strip()) != (str(w), str(h)):
            die(f"reference for {src} came out {got.stdout.strip()}x{goth.stdout.strip()}, wanted {w}x{h}")
        os.replace(ref + ".tmp.png", ref)
        if os.path.exists(tmp):
            os.remove(tmp)
    return ref


def find_output(d, stem, exts):
    for ext in exts:
        p = os.path.join(d, stem + ext)
        if os.path.exists(p):
            return p
    return None


def cmd_psnr(refdir, srcdir, names_file, cands, exts=(".jpg", ".jpeg", ".png", ".webp")):
    from PIL import Image

    with open(names_file) as f:
        names = [l.strip() for l in f if l.strip()]
    for cand in cands:
        label, d = cand.split("=", 1)
        vals, dims, missing, nbytes = [], set(), 0, 0
        for name in names:
            stem = os.path.splitext(name)[0]
            out = find_output(d, stem, exts)
            if out is None:
                missing += 1
                continue
            with Image.open(out) as im:
                w, h = im.size
            dims.add(f"{w}x{h}")
            nbytes += os.path.getsize(out)
            ref = reference(refdir, os.path.join(srcdir, name), w, h)
            vals.append(psnr(load_rgb(out), load_rgb(ref)))
        if vals and not missing:
            mean = sum(vals) / len(vals)
            kib = nbytes / len(vals) / 1024
            print(f"{label}\t{mean:.3f}\t{min(vals):.3f}\t{len(vals)}\t{','.join(sorted(dims))}\t{kib:.1f}")
        else:
            print(f"{label}\tn/a\tn/a\t{len(vals)}\t{missing} missing\tn/a")


def jpeg_segments(data):
    """(marker, start, end) of every marker segment before the first SOS."""
    if data[:2] != b"\xff\xd8":
        die("not a JPEG")
    i, segs = 2, []
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            die("bad JPEG marker structure")
        m = data[i + 1]
        if m == 0xFF:
            i += 1
            continue
        n = (data[i + 2] << 8) | data[i + 3]
        segs.append((m, i, i + 2 + n))
        if m == 0xDA:
            break
        i += 2 + n
    return segs


def cmd_embed_icc(src, dst, icc_path):
    with open(src, "rb") as f:
        data = f.read()
    with open(icc_path, "rb") as f:
        icc = f.read()
    segs = jpeg_segments(data)
    if any(m == 0xE2 and data[a + 4:a + 16] == b"ICC_PROFILE\0" for m, a, _ in segs):
        die(f"{src} already has an ICC profile")
    at = 2
    for m, a, b in segs:
        if 0xE0 <= m <= 0xE1:
            at = b
        else:
            break
    chunk = 65519
    parts = [icc[k:k + chunk] for k in range(0, len(icc), chunk)]
    blob = b""
    for k, part in enumerate(parts):
        body = b"ICC_PROFILE\0" + bytes([k + 1, len(parts)]) + part
        blob += b"\xff\xe2" + (len(body) + 2).to_bytes(2, "big") + body
    write_if_needed(dst, data[:at] + blob + data[at:])


def cmd_orient(src, dst, value):
    """Rewrite the Orientation entry of IFD0 in place (the file must have an
    Exif APP1 with that tag, as vips-written JPEGs do)."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    for m, a, b in jpeg_segments(bytes(data)):
        if m != 0xE1 or data[a + 4:a + 10] != b"Exif\0\0":
            continue
        t = a + 10
        big = data[t:t + 2] == b"MM"
        u16 = lambda o: int.from_bytes(data[o:o + 2], "big" if big else "little")
        u32 = lambda o: int.from_bytes(data[o:o + 4], "big" if big else "little")
        ifd = t + u32(t + 4)
        for k in range(u16(ifd)):
            e = ifd + 2 + 12 * k
            if u16(e) == 0x0112:
                data[e + 8:e + 10] = int(value).to_bytes(2, "big" if big else "little")
                write_if_needed(dst, bytes(data))
                return
    die(f"{src}: no EXIF Orientation tag to rewrite")


def cmd_icc_extract(image, out):
    from PIL import Image

    with Image.open(image) as im:
        icc = im.info.get("icc_profile")
    if not icc:
        die(f"{image} has no embedded profile")
    with open(out, "wb") as f:
        f.write(icc)


def cmd_icc_name(path):
    import io
    from PIL import Image, ImageCms

    try:
        if path.lower().endswith((".icc", ".icm")):
            with open(path, "rb") as f:
                icc = f.read()
        else:
            with Image.open(path) as im:
                icc = im.info.get("icc_profile") or b""
        prof = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        print(f"{ImageCms.getProfileDescription(prof).strip()} ({len(icc)} bytes)")
    except Exception as e:
        print(f"unknown ({e})")


def image_files(d):
    found = {}
    for root, _, names in os.walk(d):
        for n in names:
            if n.lower().endswith((".jpg", ".jpeg", ".png", ".webp")):
                found.setdefault(os.path.splitext(n)[0], os.path.join(root, n))
    return found


def cmd_mad(da, db):
    import numpy as np

    a, b = image_files(da), image_files(db)
    vals = []
    for stem in sorted(set(a) & set(b)):
        x, y = load_rgb(a[stem]), load_rgb(b[stem])
        if x.shape != y.shape:
            print(f"n/a\tn/a\t0\t{stem}: {x.shape} vs {y.shape}")
            return
        vals.append(float(np.mean(np.abs(x - y))))
    if not vals or len(vals) != len(a) or len(vals) != len(b):
        print(f"n/a\tn/a\t{len(vals)}\tunmatched files ({len(a)} vs {len(b)})")
        return
    print(f"{sum(vals) / len(vals):.3f}\t{max(vals):.3f}\t{len(vals)}")


def cmd_psnr_dirs(da, db):
    """Worst and median PSNR (dB) of the images of DA against those of DB
    with the same name, and how many: "worst<TAB>median<TAB>n"."""
    a, b = image_files(da), image_files(db)
    vals = []
    for stem in sorted(set(a) & set(b)):
        x, y = load_rgb(a[stem]), load_rgb(b[stem])
        vals.append(psnr(x, y) if x.shape == y.shape else 0.0)
    if not vals or len(vals) != len(a) or len(vals) != len(b):
        print(f"n/a\tn/a\t{len(vals)}")
        return
    vals = sorted(min(v, 100.0) for v in vals)  # identical images: 100
    print(f"{vals[0]:.1f}\t{vals[len(vals) // 2]:.1f}\t{len(vals)}")


def cmd_downloads(outdir):
    """From OUT/manifest.json and OUT/stats.json: "received<TAB>whole<TAB>
    partial items<TAB>image requests<TAB>items" (received: the bytes of the
    images' downloads; whole: their whole sizes)."""
    with open(os.path.join(outdir, "manifest.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(outdir, "stats.json")) as f:
        stats = json.load(f)
    received = whole = partial = 0
    items = manifest.get("items", [])
    for it in items:
        d = it.get("download") or {}
        received += d.get("bytes", 0)
        whole += d.get("size", it.get("bytes", 0) or 0)
        partial += 1 if d.get("partial") else 0
    dl = stats.get("downloads", {})
    requests = dl.get("requests", 0) - dl.get("pages", 0)
    print(f"{received}\t{whole}\t{partial}\t{requests}\t{len(items)}")


def cmd_tojson(tsv, out):
    res = {}
    try:
        with open(tsv) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 3:
                    continue
                sec, key, val = parts
                try:
                    v = float(val)
                    v = int(v) if v.is_integer() and "." not in val else v
                except ValueError:
                    v = val
                res.setdefault(sec, {})[key] = v
    except FileNotFoundError:
        pass
    with open(out + ".tmp", "w") as f:
        json.dump(res, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(out + ".tmp", out)


NUM_KEY = re.compile(r"(manifest|stats|statistics|report|write|writing|finali[sz]e)", re.I)
MS_KEY = re.compile(r"(ms|millis|milliseconds)$", re.I)
S_KEY = re.compile(r"(s|sec|secs|seconds)$", re.I)


def walk_times(obj, prefix=""):
    """(key path, seconds) for numeric fields naming a write phase."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            path = f"{prefix}.{k}" if prefix else k
            if isinstance(v, (dict, list)):
                yield from walk_times(v, path)
            elif isinstance(v, (int, float)) and not isinstance(v, bool) and NUM_KEY.search(path):
                if MS_KEY.search(k):
                    yield path, v / 1000.0
                elif S_KEY.search(k) and not k.lower().endswith("bytes"):
                    yield path, float(v)


def json_events(logfile):
    """The JSON objects of a --log-format json log, one per line."""
    with open(logfile, errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                yield json.loads(line)
            except ValueError:
                continue


def cmd_field(logfile, key):
    """A numeric field of thumbs' last finish event in a --log-format json log."""
    value = "n/a"
    for ev in json_events(logfile):
        if ev.get("event") == "finish" and isinstance(ev.get(key), (int, float)):
            value = ev[key]
    print(value)


def cmd_finish(logfile, wall):
    """Look for thumbs' finish event in a --log-format json log."""
    finish = None
    for ev in json_events(logfile):
        kind = " ".join(str(ev.get(k, "")) for k in ("event", "type", "msg", "message", "kind", "phase"))
        if re.search(r"\b(finish|finished|done|summary|end)\b", kind, re.I):
            finish = ev
    if finish is None:
        print("n/a\tno finish event in the JSON log")
        return
    found = list(walk_times(finish))
    if not found:
        print("n/a\tfinish event has no manifest/stats/report timing fields: " + ",".join(sorted(finish)))
        return
    total = sum(s for _, s in found)
    wall = float(wall)
    print(f"{total:.3f}\t{100.0 * total / wall:.2f}\t" + ",".join(p for p, _ in found))


def cmd_stat(outdir, key):
    try:
        with open(os.path.join(outdir, "stats.json")) as f:
            st = json.load(f)
        print(st["counts"][key])
    except Exception:
        print("n/a")


def cmd_decoders(outdir):
    """Which decode paths a thumbs run took, from OUT/stats.json."""
    try:
        with open(os.path.join(outdir, "stats.json")) as f:
            st = json.load(f)
    except (OSError, ValueError):
        print("n/a")
        return
    parts = [f"{k} {v}" for k, v in st.get("decoders", {}).items() if v]
    counts = st.get("counts", {})
    parts += [f"{k} {counts[k]}" for k in ("failed", "ignored") if counts.get(k)]
    print(", ".join(parts) or "none")


# ---- the JPEG previews of a TIFF-based RAW, and the one thumbs read

def tiff_jpegs(data):
    """(offset, length, width, height) of every JPEG a TIFF file holds in one
    strip (IFD0's chain and the SubIFDs, compression 6 or 7) or as
    JPEGInterchangeFormat, its size from its own frame header (SOF0-2);
    lossless data (SOF3, a DNG's sensor data) is left out."""
    import struct

    if data[:4] not in (b"II*\0", b"MM\0*"):
        return []
    e = "<" if data[:2] == b"II" else ">"
    sizes = {1: 1, 3: 2, 4: 4, 13: 4}
    found, seen = [], set()

    def visit(off, depth=0):
        while off and off not in seen and off + 2 <= len(data) and depth < 8:
            seen.add(off)
            (n,) = struct.unpack_from(e + "H", data, off)
            tags = {}
            for k in range(n):
                tag, typ, count, raw = struct.unpack_from(e + "HHI4s", data, off + 2 + 12 * k)
                if typ not in sizes or count > 1 << 16:
                    continue
                size = sizes[typ] * count
                fmt = {1: "B", 3: "H", 4: "I", 13: "I"}[typ]
                src = raw if size <= 4 else data[struct.unpack(e + "I", raw)[0]:][:size]
                if len(src) < size:
                    continue
                tags[tag] = list(struct.unpack_from(e + fmt * count, src))
            pairs = []
            if tags.get(259, [0])[0] in (6, 7) and len(tags.get(273, [])) == 1 and len(tags.get(279, [])) == 1:
                pairs.append((tags[273][0], tags[279][0]))
            if 513 in tags and 514 in tags:
                pairs.append((tags[513][0], tags[514][0]))
            for start, length in pairs:
                sof = jpeg_frame(data[start:start + length])
                if sof and sof[0] in (0xC0, 0xC1, 0xC2):
                    found.append((start, length, sof[2], sof[1]))
            for sub in tags.get(330, []):
                visit(sub, depth + 1)
            (off,) = struct.unpack_from(e + "I", data, off + 2 + 12 * n)

    (first,) = struct.unpack_from(e + "I", data, 4)
    visit(first)
    return sorted(set(found))


def jpeg_frame(jpeg):
    """(marker, height, width) of a JPEG's frame header, or None."""
    if jpeg[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 <= len(jpeg) and jpeg[i] == 0xFF:
        m = jpeg[i + 1]
        if m == 0xFF:
            i += 1
            continue
        if 0xC0 <= m <= 0xCF and m not in (0xC4, 0xC8, 0xCC):
            return m, (jpeg[i + 5] << 8) | jpeg[i + 6], (jpeg[i + 7] << 8) | jpeg[i + 8]
        if m == 0xDA:
            return None
        i += 2 + ((jpeg[i + 2] << 8) | jpeg[i + 3])
    return None


def cmd_raw_previews(outdir, srcdir, dst):
    """For each item of a thumbs run over RAWs (OUT/manifest.json): the JPEG
    preview it read, taken from its bytes read (the largest of the file's
    JPEGs that fits in them: thumbs reads that preview, the file's first
    bytes and its directories), copied to DST/NAME.jpg; the scale thumbs
    decodes it at (the JPEG rule: the smallest 1/1, 1/2, 1/4 or 1/8 whose
    floor still covers the largest output, stored orientation), written to
    DST/scales as "S FILE" lines. Prints: files, bytes read, bytes, their
    share, the previews (e.g. "12 1620x1215 at 1/4"), and items whose read
    matched no preview (whole files: --whole-files, or LibRaw developed)."""
    from collections import Counter

    with open(os.path.join(outdir, "manifest.json")) as f:
        items = json.load(f)["items"]
    os.makedirs(dst, exist_ok=True)
    total = read = 0
    chosen, unmatched, lines = Counter(), 0, []
    for it in items:
        size = it.get("bytes") or 0
        r = it.get("read") or {}
        got = r["bytes"] if r.get("partial") else size
        total += size
        read += got
        name = os.path.basename(it["source"])
        path = os.path.join(srcdir, name)
        with open(path, "rb") as f:
            data = f.read()
        fits = [p for p in tiff_jpegs(data) if p[1] <= got] if r.get("partial") else []
        outs = it.get("outputs") or []
        if not fits or not outs:
            unmatched += 1
            continue
        start, length, w, h = max(fits, key=lambda p: p[1])
        big = max(outs, key=lambda o: o["width"] * o["height"])
        ow, oh = (big["height"], big["width"]) if it.get("orientation", 1) >= 5 else (big["width"], big["height"])
        scale = next(k for k in (8, 4, 2, 1) if (w // k >= ow and h // k >= oh) or k == 1)
        out = os.path.join(dst, os.path.splitext(name)[0] + ".jpg")
        with open(out, "wb") as f:
            f.write(data[start:start + length])
        lines.append(f"{scale} {out}")
        chosen[f"{w}x{h} at 1/{scale}"] += 1
    with open(os.path.join(dst, "scales"), "w") as f:
        f.write("".join(line + "\n" for line in lines))
    share = f"{read / total:.4g}" if total else "n/a"
    desc = ", ".join(f"{n} {k}" for k, n in sorted(chosen.items())) or "none"
    print(f"{len(items)}\t{read}\t{total}\t{share}\t{desc}\t{unmatched}")


# ---- DNG (TIFF/EP) writer for the RAW corpus

TIFF_TYPES = {"B": (1, 1), "A": (2, 1), "H": (3, 2), "L": (4, 4), "R": (5, 8), "r": (10, 8)}


def tiff_value(kind, values):
    """(type, count, bytes) of a little-endian TIFF entry value."""
    import struct

    t, size = TIFF_TYPES[kind]
    if kind == "A":
        data = values.encode() + b"\0"
        return t, len(data), data
    if kind in "Rr":
        fmt = "<II" if kind == "R" else "<ii"
        return t, len(values), b"".join(struct.pack(fmt, *v) for v in values)
    fmt = {"B": "<B", "H": "<H", "L": "<I"}[kind]
    return t, len(values), b"".join(struct.pack(fmt, v) for v in values)


class TiffRef(tuple):
    """("blob" | "ifd", index): an offset known only when laid out."""


class TiffWriter:
    """Lays out IFDs (lists of (tag, kind, values)) and blobs in one buffer;
    values longer than four bytes and image data are placed after the IFDs.
    An IFD's entries may name blobs or other IFDs by index: ("blob", i) and
    ("ifd", i) are resolved to offsets (TiffRef)."""

    def __init__(self):
        self.ifds, self.blobs = [], []

    def blob(self, data):
        self.blobs.append(data)
        return TiffRef(("blob", len(self.blobs) - 1))

    def ifd(self, entries):
        self.ifds.append(entries)
        return TiffRef(("ifd", len(self.ifds) - 1))

    def build(self):
        import struct

        # pass 1: sizes of the IFDs and their out-of-line values
        pos = 8
        ifd_at = []
        for entries in self.ifds:
            ifd_at.append(pos)
            pos += 2 + 12 * len(entries) + 4
            for tag, kind, values in entries:
                n = len(values) + 1 if kind == "A" else len(values) * TIFF_TYPES[kind][1]
                if n > 4:
                    pos += n + (n & 1)
        blob_at = []
        for b in self.blobs:
            pos += pos & 1
            blob_at.append(pos)
            pos += len(b)

        def resolve(v):
            if isinstance(v, TiffRef):
                return (blob_at if v[0] == "blob" else ifd_at)[v[1]]
            return v

        out = bytearray(b"II*\0" + struct.pack("<I", ifd_at[0]))
        for k, entries in enumerate(self.ifds):
            assert len(out) == ifd_at[k]
            extra_at = ifd_at[k] + 2 + 12 * len(entries) + 4
            extra = bytearray()
            head = bytearray(struct.pack("<H", len(entries)))
            for tag, kind, values in sorted(entries, key=lambda e: e[0]):
                vals = values if kind == "A" else [resolve(v) for v in values]
                t, count, data = tiff_value(kind, vals)
                if len(data) <= 4:
                    head += struct.pack("<HHI", tag, t, count) + data.ljust(4, b"\0")
                else:
                    head += struct.pack("<HHII", tag, t, count, extra_at + len(extra))
                    extra += data + (b"\0" if len(data) & 1 else b"")
            head += struct.pack("<I", 0)  # one chain: SubIFDs are reached through tag 330
            out += head + extra
        for k, b in enumerate(self.blobs):
            out += b"\0" * (blob_at[k] - len(out))
            out += b
        return bytes(out)


def strip_app_segments(jpeg):
    """The JPEG without APP1..APP15 segments (no EXIF orientation of its own)."""
    keep, last = [jpeg[:2]], 2
    for m, a, b in jpeg_segments(jpeg):
        keep.append(jpeg[last:a])
        if not (0xE1 <= m <= 0xEF):
            keep.append(jpeg[a:b])
        last = b
    keep.append(jpeg[last:])
    return b"".join(keep)


def huffman_lengths(counts, limit=16):
    """Code lengths (<= limit) for symbols with these counts (0 = unused)."""
    import heapq

    sym = [i for i, c in enumerate(counts) if c]
    if len(sym) == 1:
        return {sym[0]: 1}
    heap = [(counts[i], [i]) for i in sym]
    heapq.heapify(heap)
    depth = {i: 0 for i in sym}
    while len(heap) > 1:
        c1, s1 = heapq.heappop(heap)
        c2, s2 = heapq.heappop(heap)
        for i in s1 + s2:
            depth[i] += 1
        heapq.heappush(heap, (c1 + c2, s1 + s2))
    if max(depth.values()) > limit:  # rare: flatten the rarest symbols
        return huffman_lengths([max(c, max(counts) >> 8) if c else 0 for c in counts], limit)
    return depth


def lossless_jpeg(cfa, precision=12):
    """A lossless JPEG (ITU T.81 process 14, SOF3) of one 16-bit plane:
    predictor 1 (the left neighbour; the first column takes the one above),
    one Huffman table made for the data. What DNG calls compression 7."""
    import numpy as np

    h, w = cfa.shape
    x = cfa.astype(np.int32)
    pred = np.empty_like(x)
    pred[:, 1:] = x[:, :-1]
    pred[1:, 0] = x[:-1, 0]
    pred[0, 0] = 1 << (precision - 1)
    diff = (x - pred).ravel()
    mag = np.abs(diff)
    ssss = np.zeros(mag.shape, dtype=np.int64)
    nz = mag > 0
    ssss[nz] = np.floor(np.log2(mag[nz])).astype(np.int64) + 1
    extra = np.where(diff >= 0, diff, diff + (1 << ssss) - 1).astype(np.int64)
    counts = np.bincount(ssss, minlength=17).tolist()
    lengths = huffman_lengths(counts)
    # canonical codes: by length, then symbol
    order = sorted(lengths, key=lambda i: (lengths[i], i))
    code, codes, prev = 0, {}, lengths[order[0]]
    for i in order:
        code <<= lengths[i] - prev
        prev = lengths[i]
        codes[i] = code
        code += 1
    clen = np.zeros(17, dtype=np.int64)
    cval = np.zeros(17, dtype=np.int64)
    for i in lengths:
        clen[i], cval[i] = lengths[i], codes[i]
    nbits = clen[ssss] + ssss
    value = (cval[ssss] << ssss) | (extra & ((1 << ssss) - 1))
    ends = np.cumsum(nbits)
    total = int(ends[-1])
    starts = ends - nbits
    bits = np.ones(total + (-total) % 8, dtype=np.uint8)  # padded with 1 bits
    for k in range(int(nbits.max())):
        m = nbits > k
        bits[starts[m] + k] = (value[m] >> (nbits[m] - 1 - k)) & 1
    data = np.packbits(bits)
    ff = np.flatnonzero(data == 0xFF)
    data = np.insert(data, ff + 1, 0).tobytes()  # byte stuffing
    seg = lambda m, body: bytes([0xFF, m]) + (len(body) + 2).to_bytes(2, "big") + body
    by_len = [sum(1 for i in lengths if lengths[i] == n) for n in range(1, 17)]
    dht = bytes([0x00]) + bytes(by_len) + bytes(order)
    sof = bytes([precision]) + h.to_bytes(2, "big") + w.to_bytes(2, "big") + bytes([1, 1, 0x11, 0])
    sos = bytes([1, 1, 0x00, 1, 0, 0])  # one component, table 0; predictor 1; Pt 0
    return b"\xff\xd8" + seg(0xC4, dht) + seg(0xC3, sof) + seg(0xDA, sos) + data + b"\xff\xd9"


# The long side of the reduced JPEG preview cmd_dng writes: what Sony's
# cameras (1616 px) and Adobe's DNG Converter ("medium size", 1024 px and up)
# write beside the full-size one.
DNG_PREVIEW_LONG = 1620


def reduced_preview(im, w, h):
    """A JPEG of the photo at DNG_PREVIEW_LONG px on its long side, the
    photo's aspect ratio, as a camera writes its reduced preview: Lanczos,
    quality 90, 4:2:2 chroma, no APPn segments but JFIF's."""
    import io
    from PIL import Image

    pw, ph = (DNG_PREVIEW_LONG, round(DNG_PREVIEW_LONG * h / w)) if w >= h else (round(DNG_PREVIEW_LONG * w / h), DNG_PREVIEW_LONG)
    buf = io.BytesIO()
    im.resize((pw, ph), Image.LANCZOS).save(buf, "JPEG", quality=90, subsampling=1)
    return pw, ph, buf.getvalue()


def cmd_dng(src, dst, orientation=1):
    """A DNG as cameras write them from a JPEG photo: IFD0 a small RGB
    preview; SubIFDs for the raw data, a reduced JPEG preview (1620 px) and a
    full-size JPEG preview, each preview NewSubfileType 1. LibRaw develops the
    raw CFA data (a mosaic of the photo's pixels, linearised); the full-size
    preview is the photo's own JPEG data, the reduced one Pillow's resize of
    it. The small pictures come first in the file (the RGB preview, then the
    reduced one), the sensor data and the full-size preview after them."""
    import numpy as np
    from PIL import Image

    with open(src, "rb") as f:
        jpeg = f.read()
    with Image.open(src) as im:
        im = im.convert("RGB")
        rgb = np.asarray(im)
        small = im.copy()
        small.thumbnail((256, 256))
        small = np.asarray(small)
        mid_w, mid_h, mid = reduced_preview(im, im.width, im.height)
    h, w = rgb.shape[:2]
    h, w = h & ~1, w & ~1
    lut = np.round(((np.arange(256) / 255.0) ** 2.2) * 4095).astype("<u2")  # sRGB-ish -> linear 12-bit
    cfa = np.empty((h, w), dtype="<u2")
    cfa[0::2, 0::2] = lut[rgb[0:h:2, 0:w:2, 0]]  # R
    cfa[0::2, 1::2] = lut[rgb[0:h:2, 1:w:2, 1]]  # G
    cfa[1::2, 0::2] = lut[rgb[1:h:2, 0:w:2, 1]]  # G
    cfa[1::2, 1::2] = lut[rgb[1:h:2, 1:w:2, 2]]  # B
    preview = strip_app_segments(jpeg)
    # XYZ (D65) -> camera = linear sRGB: the camera "is" sRGB primaries
    xyz_to_srgb = [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570]
    tw = TiffWriter()
    sh, sw = small.shape[:2]
    thumb = tw.blob(small.tobytes())
    mid_blob = tw.blob(mid)
    raw_data = lossless_jpeg(cfa)
    raw = tw.blob(raw_data)
    prev = tw.blob(preview)
    ifd0 = tw.ifd([])  # filled below: it names the SubIFDs, which come after it
    raw_ifd = tw.ifd([
        (254, "L", [0]), (256, "L", [w]), (257, "L", [h]), (258, "H", [16]), (259, "H", [7]),
        (262, "H", [32803]), (273, "L", [raw]), (277, "H", [1]), (278, "L", [h]), (279, "L", [len(raw_data)]),
        (284, "H", [1]), (33421, "H", [2, 2]), (33422, "B", [0, 1, 1, 2]),
        (50714, "L", [0]), (50717, "L", [4095]),
    ])

    def jpeg_preview_ifd(pw, ph, blob, length):
        """A preview SubIFD: NewSubfileType 1, one JPEG (compression 7,
        YCbCr) in one strip."""
        return tw.ifd([
            (254, "L", [1]), (256, "L", [pw]), (257, "L", [ph]), (258, "H", [8, 8, 8]), (259, "H", [7]),
            (262, "H", [6]), (273, "L", [blob]), (277, "H", [3]), (278, "L", [ph]), (279, "L", [length]),
            (284, "H", [1]),
        ])

    mid_ifd = jpeg_preview_ifd(mid_w, mid_h, mid_blob, len(mid))
    prev_ifd = jpeg_preview_ifd(w, h, prev, len(preview))
    tw.ifds[0] = [
        (254, "L", [1]), (256, "L", [sw]), (257, "L", [sh]), (258, "H", [8, 8, 8]), (259, "H", [1]),
        (262, "H", [2]), (271, "A", "Thumbs"), (272, "A", "Bench DNG"), (273, "L", [thumb]),
        (274, "H", [int(orientation)]), (277, "H", [3]), (278, "L", [sh]), (279, "L", [sw * sh * 3]),
        (284, "H", [1]), (330, "L", [raw_ifd, mid_ifd, prev_ifd]),
        (50706, "B", [1, 4, 0, 0]), (50707, "B", [1, 1, 0, 0]), (50708, "A", "Thumbs Bench DNG"),
        (50721, "r", [(round(v * 10000), 10000) for v in xyz_to_srgb]),
        (50728, "R", [(1, 1), (1, 1), (1, 1)]), (50778, "H", [21]),
    ]
    assert ifd0 == ("ifd", 0)
    write_if_needed(dst, tw.build())


def main(argv):
    if len(argv) < 2:
        die(__doc__)
    cmd, args = argv[1], argv[2:]
    per_dir = 0
    if "--per-dir" in args:
        i = args.index("--per-dir")
        per_dir = int(args[i + 1])
        del args[i:i + 2]
    if cmd == "median":
        cmd_median(*args)
    elif cmd == "calc":
        cmd_calc(" ".join(args))
    elif cmd == "variants":
        cmd_variants(args[0], args[1], int(args[2]), per_dir)
    elif cmd == "multiply":
        cmd_multiply(args[0], args[1], int(args[2]), per_dir)
    elif cmd == "genlist":
        cmd_genlist(args[0], int(args[1]), *(int(a) for a in args[2:4]))
    elif cmd == "psnr":
        exts = (".jpg", ".jpeg", ".png", ".webp")
        if "--ext" in args:
            i = args.index("--ext")
            exts = {"jpg": (".jpg", ".jpeg"), "png": (".png",)}[args[i + 1]]
            del args[i:i + 2]
        cmd_psnr(args[0], args[1], args[2], args[3:], exts)
    elif cmd == "field":
        cmd_field(*args)
    elif cmd == "finish":
        cmd_finish(args[0], args[1])
    elif cmd == "stat":
        cmd_stat(args[0], args[1])
    elif cmd == "embed-icc":
        cmd_embed_icc(*args[:3])
    elif cmd == "orient":
        cmd_orient(*args[:3])
    elif cmd == "icc-extract":
        cmd_icc_extract(*args[:2])
    elif cmd == "icc-name":
        cmd_icc_name(args[0])
    elif cmd == "mad":
        cmd_mad(args[0], args[1])
    elif cmd == "psnr-dirs":
        cmd_psnr_dirs(args[0], args[1])
    elif cmd == "downloads":
        cmd_downloads(args[0])
    elif cmd == "tojson":
        cmd_tojson(args[0], args[1])
    elif cmd == "decoders":
        cmd_decoders(args[0])
    elif cmd == "dng":
        cmd_dng(args[0], args[1], *args[2:3])
    elif cmd == "raw-previews":
        cmd_raw_previews(args[0], args[1], args[2])
    else:
        die(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)

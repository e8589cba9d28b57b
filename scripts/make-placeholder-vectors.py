#!/usr/bin/env python3
"""Makes the placeholder test vectors: small generated images and the strings
the reference encoders give for them, written to
Tests/Fixtures/placeholders/vectors.json (outside the test target, so
SwiftPM sees no unhandled resource), which
PlaceholderVectorTests reads (the Swift tests need no Python).

    python3 -m venv /tmp/vec && /tmp/vec/bin/pip install \
        blurhash-python==1.2.2 thumbhash-python==1.0.1 imagehash==4.3.2 numpy scipy
    /tmp/vec/bin/python scripts/make-placeholder-vectors.py [--thumbhash-js PATH]

The encoders:
- BlurHash: `blurhash-python`, woltapp's own package, which wraps the
  reference C encoder (C/encode.c). The pure-Python PyPI `blurhash` is a port.
- ThumbHash: `thumbhash-python`. The PyPI package named `thumbhash` (0.1.2)
  raises TypeError on any image with transparency (an operator-precedence
  slip in its alpha branch), so it cannot make the alpha vectors. Both Python
  ports round halves to even, where the reference (JavaScript Math.round,
  Rust f32::round) rounds them up; with --thumbhash-js pointing at the
  reference thumbhash.js (evanw/thumbhash, js/thumbhash.js) and `node` on the
  PATH, the reference's own output is recorded too, as `thumbhash_js`.
- pHash: `imagehash.phash` on a 32x32 image, for which its LANCZOS resize to
  32x32 is the identity (Pillow returns a copy when the size does not change),
  so the vectors start where the Swift encoder starts: 32x32 grey levels. The
  RGB 32x32 vectors also check the Pillow convert("L") step.
- Average colour: no package defines it; the value here is the definition
  (mean in linear light, alpha-weighted, nearest sRGB code) computed
  independently with numpy.

Every image comes from a fixed seed, so re-running gives the same file.
"""
import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
from importlib.metadata import version

import blurhash
import imagehash
import numpy as np
import scipy
from PIL import Image
from thumbhash.encode import rgba_to_thumbhash

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "placeholders", "vectors.json")


def smooth_noise(rng, w, h, cells, channels):
    """Random values on a coarse grid, bilinearly enlarged: photo-like fields."""
    gw, gh = max(2, w // cells), max(2, h // cells)
    grid = rng.uniform(0, 255, (gh, gw, channels))
    ys = np.linspace(0, gh - 1, h)
    xs = np.linspace(0, gw - 1, w)
    y0 = np.floor(ys).astype(int).clip(0, gh - 2)
    x0 = np.floor(xs).astype(int).clip(0, gw - 2)
    fy = (ys - y0)[:, None, None]
    fx = (xs - x0)[None, :, None]
    a = grid[y0][:, x0]
    b = grid[y0][:, x0 + 1]
    c = grid[y0 + 1][:, x0]
    d = grid[y0 + 1][:, x0 + 1]
    return (a * (1 - fx) * (1 - fy) + b * fx * (1 - fy) + c * (1 - fx) * fy + d * fx * fy)


def images():
    """(name, layout, array uint8 HxWxC) for every vector image."""
    rng = np.random.default_rng(20261123)
    out = []

    def add(name, layout, arr):
        out.append((name, layout, np.ascontiguousarray(arr.astype(np.uint8))))

    # Gradients, odd sizes, both orientations.
    y, x = np.mgrid[0:23, 0:37]
    add("gradient-37x23", "rgb", np.stack([x * 255 / 36, y * 255 / 22, (x + y) * 255 / 58], -1).round())
    y, x = np.mgrid[0:37, 0:23]
    add("gradient-23x37", "rgb", np.stack([255 - x * 11, y * 7, 128 + 0 * x], -1))
    add("noise-100x75", "rgb", rng.integers(0, 256, (75, 100, 3)))
    add("smooth-64x64", "rgb", smooth_noise(rng, 64, 64, 8, 3).round())
    add("smooth-100x100", "rgb", smooth_noise(rng, 100, 100, 12, 3).round())
    add("strip-100x3", "rgb", rng.integers(0, 256, (3, 100, 3)))
    add("flat-1x1", "rgb", np.array([[[200, 30, 90]]]))
    add("flat-8x8", "rgb", np.full((8, 8, 3), [12, 140, 250]))
    # Alpha: a ramp, a disc on transparency, a fully transparent image.
    y, x = np.mgrid[0:48, 0:64]
    rgb = smooth_noise(rng, 64, 48, 8, 3).round()
    add("alpha-ramp-64x48", "rgba", np.concatenate([rgb, (x * 255 / 63).round()[..., None]], -1))
    y, x = np.mgrid[0:40, 0:30]
    disc = (((x - 14.5) ** 2 + (y - 19.5) ** 2) < 13 ** 2) * 255
    add("alpha-disc-30x40", "rgba", np.concatenate([rng.integers(0, 256, (40, 30, 3)), disc[..., None]], -1))
    add("alpha-clear-5x5", "rgba", np.concatenate([rng.integers(0, 256, (5, 5, 3)), np.zeros((5, 5, 1))], -1))
    # 32x32 for pHash: grey noise, smooth grey, a grey gradient with noise, colour.
    add("grey-noise-32", "grey", rng.integers(0, 256, (32, 32, 1)))
    add("grey-smooth-32", "grey", smooth_noise(rng, 32, 32, 6, 1).round())
    y, x = np.mgrid[0:32, 0:32]
    add("grey-ramp-32", "grey", (x * 5 + y * 3 + rng.integers(0, 40, (32, 32))).clip(0, 255)[..., None])
    add("rgb-smooth-32", "rgb", smooth_noise(rng, 32, 32, 5, 3).round())
    add("rgb-noise-32", "rgb", rng.integers(0, 256, (32, 32, 3)))
    return out


def rgba_list(arr, layout):
    h, w, _ = arr.shape
    if layout == "rgba":
        rgba = arr
    elif layout == "rgb":
        rgba = np.concatenate([arr, np.full((h, w, 1), 255, np.uint8)], -1)
    else:
        rgba = np.concatenate([arr, arr, arr, np.full((h, w, 1), 255, np.uint8)], -1)
    return [int(v) for v in rgba.reshape(-1)]


def pil_image(arr, layout):
    mode = {"grey": "L", "rgb": "RGB", "rgba": "RGBA"}[layout]
    return Image.fromarray(arr[..., 0] if layout == "grey" else arr, mode)


def average_colour(arr, layout):
    """Mean in linear light, alpha-weighted; nearest sRGB code."""
    v = arr.astype(np.float64) / 255
    rgb = np.repeat(v, 3, -1) if layout == "grey" else v[..., :3]
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4).reshape(-1, 3)
    weight = v[..., 3].reshape(-1) if layout == "rgba" else np.ones(lin.shape[0])
    mean = (lin * weight[:, None]).sum(0) / weight.sum() if weight.sum() > 0 else lin.mean(0)
    s = np.where(mean <= 0.0031308, mean * 12.92, 1.055 * mean ** (1 / 2.4) - 0.055)
    codes = np.floor(np.clip(s, 0, 1) * 255 + 0.5).astype(int)
    return "#" + "".join(f"{c:02x}" for c in codes)


def thumbhash_js(path, cases):
    """The reference encoder's output for each (w, h, rgba) case, via node."""
    script = (
        "import { rgbaToThumbHash } from %s;\n"
        "import { readFileSync } from 'fs';\n"
        "const cases = JSON.parse(readFileSync(0, 'utf8'));\n"
        "const out = cases.map(([w, h, px]) => Buffer.from(rgbaToThumbHash(w, h, px)).toString('base64'));\n"
        "console.log(JSON.stringify(out));\n" % json.dumps("file://" + os.path.abspath(path))
    )
    with tempfile.NamedTemporaryFile("w", suffix=".mjs", delete=False) as f:
        f.write(script)
    try:
        result = subprocess.run(["node", f.name], input=json.dumps(cases), capture_output=True, text=True, check=True)
    finally:
        os.unlink(f.name)
    return json.loads(result.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--thumbhash-js", help="path to evanw/thumbhash js/thumbhash.js, run with node")
    args = parser.parse_args()

    vectors = []
    for name, layout, arr in images():
        h, w, _ = arr.shape
        rgba = rgba_list(arr, layout)
        image = pil_image(arr, layout)
        v = {
            "name": name,
            "width": w,
            "height": h,
            "layout": layout,
            "pixels": base64.b64encode(arr.tobytes()).decode(),
            "thumbhash": base64.b64encode(rgba_to_thumbhash(w, h, rgba)).decode(),
            # blurhash-python converts to RGB itself (alpha dropped, grey replicated).
            "blurhash": blurhash.encode(image.copy(), 4, 3),
            "color": average_colour(arr, layout),
        }
        if (w, h) == (32, 32):
            # Resizing 32x32 to 32x32 is the identity in Pillow, so this is
            # imagehash's DCT, median and bit order on exactly these levels.
            assert (np.asarray(image.convert("L").resize((32, 32), imagehash.ANTIALIAS))
                    == np.asarray(image.convert("L"))).all()
            v["phash"] = str(imagehash.phash(image))
            v["grey"] = base64.b64encode(np.asarray(image.convert("L")).tobytes()).decode()
        vectors.append(v)

    if args.thumbhash_js:
        cases = [[v["width"], v["height"], rgba_list(arr, layout)] for v, (_, layout, arr) in zip(vectors, images())]
        for v, js in zip(vectors, thumbhash_js(args.thumbhash_js, cases)):
            v["thumbhash_js"] = js

    doc = {
        "generator": "scripts/make-placeholder-vectors.py",
        "packages": {p: version(p) for p in ["blurhash-python", "thumbhash-python", "imagehash", "pillow", "numpy"]}
        | {"scipy": scipy.__version__},
        "thumbhash_js": bool(args.thumbhash_js),
        "vectors": vectors,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{len(vectors)} vectors, {os.path.getsize(OUT)} bytes -> {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())

"""Makes the image pairs of this folder and their reference measures.

Run once by hand (python3 with scikit-image 0.2x, Pillow, numpy); the tests
only read the PNGs and reference.json, never Python. The reference is
scikit-image's own code, independent of image_compare.c:

- SSIM: structural_similarity(gaussian_weights=True, sigma=1.5,
  use_sample_covariance=False, data_range=255) on luma
  Y' = 0.299 R + 0.587 G + 0.114 B (float64, 0..255);
- colour: deltaE_ciede2000(rgb2lab(a), rgb2lab(b)), its mean and
  numpy.percentile(…, 99).

    python3 make-reference.py ../../../Samples/landscape.jpg
"""
import json
import sys

import numpy as np
import skimage
from PIL import Image
from skimage.color import deltaE_ciede2000, rgb2lab
from skimage.metrics import structural_similarity

source = Image.open(sys.argv[1]).convert("RGB")
base = source.resize((64, 48), Image.LANCZOS)
base.save("base.png")
pixels = np.asarray(base)

def save(name, array):
    Image.fromarray(np.clip(array, 0, 255).astype(np.uint8)).save(name + ".png")

# JPEG at quality 60, decoded again: a small, everywhere difference.
base.save("/tmp/compare-q60.jpg", quality=60)
save("jpeg-q60", np.asarray(Image.open("/tmp/compare-q60.jpg").convert("RGB")))
save("swapped", pixels[:, :, ::-1])
save("rotated", pixels[::-1, ::-1, :])
# A warm cast: red up, blue down.
cast = pixels.astype(np.int16) + np.array([12, 0, -12])
save("cast", cast)
# Noise of a level or two.
rng = np.random.default_rng(37)
save("noise", pixels.astype(np.int16) + rng.integers(-2, 3, size=pixels.shape))
# Another picture: the source's other corner, so both are photos.
other = source.crop((0, 0, source.width // 2, source.height // 2)).resize((64, 48), Image.LANCZOS)
other.save("other.png")

def luma(a):
    a = a.astype(np.float64)
    return 0.299 * a[:, :, 0] + 0.587 * a[:, :, 1] + 0.114 * a[:, :, 2]

reference = {"made-with": "scikit-image " + skimage.__version__ + ", numpy " + np.__version__, "pairs": []}
for name in ["base", "jpeg-q60", "swapped", "rotated", "cast", "noise", "other"]:
    a = pixels
    b = np.asarray(Image.open(name + ".png").convert("RGB"))
    ssim = structural_similarity(luma(a), luma(b), gaussian_weights=True, sigma=1.5,
                                 use_sample_covariance=False, data_range=255)
    de = deltaE_ciede2000(rgb2lab(a), rgb2lab(b))
    reference["pairs"].append({"a": "base.png", "b": name + ".png", "ssim": round(float(ssim), 6),
                               "meanDeltaE": round(float(de.mean()), 6),
                               "p99DeltaE": round(float(np.percentile(de, 99)), 6)})
with open("reference.json", "w") as f:
    json.dump(reference, f, indent=2)
    f.write("\n")

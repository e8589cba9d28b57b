#!/usr/bin/env python3
"""Copies a JPEG, inserting a minimal EXIF segment with the given orientation.

    set-exif-orientation.py IN.jpg OUT.jpg ORIENTATION
"""
import struct
import sys

src, dst, orientation = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
assert data[:2] == b"\xff\xd8", "not a JPEG"
# TIFF header (big endian), one IFD with one entry: 0x0112 SHORT 1 = orientation.
tiff = b"MM\x00\x2a" + struct.pack(">I", 8)
tiff += struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0)
payload = b"Exif\x00\x00" + tiff
segment = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
open(dst, "wb").write(data[:2] + segment + data[2:])

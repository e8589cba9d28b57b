#!/usr/bin/env python3
"""Off CI. Writes the seeds of embedded_fuzzer.c into the folder named (one
small crafted file per structure embedded_pictures.c reads): a JPEG with an
Exif IFD1 thumbnail and a maker note of each layout (Nikon type 3, Pentax
AOC, Olympus, Sony Ericsson, Nikon's headerless Coolpix, Minolta, Casio
type 2, Samsung STMN), one with an MPF index and its secondary image, one
with XMP, and TIFF RAWs (strips, SubIFD JpgFromRaw, an Exif IFD with a Nikon note).

    fuzz/make_embedded_seeds.py fuzz/out/embedded-seeds
"""
import os
import struct
import sys

# A 1x1 grey baseline JPEG's frame and scan are not needed by the parser:
# SOI, an SOF0 of the given size, SOS, EOI is a picture it can measure.
def tiny_jpeg(width, height, components=3):
    sof = struct.pack('>BHHB', 8, height, width, components)
    for c in range(components):
        sof += struct.pack('>BBB', c + 1, 0x11, 0)
    sos = struct.pack('>B', 1) + bytes([1, 0]) + bytes([0, 63, 0])
    return (b'\xff\xd8' + b'\xff\xc0' + struct.pack('>H', len(sof) + 2) + sof +
            b'\xff\xda' + struct.pack('>H', len(sos) + 2) + sos + b'\x00\x00' + b'\xff\xd9')


class IFD:
    """A TIFF directory, laid out at a given offset by `pack`."""

    def __init__(self, big):
        self.big = big
        self.entries = []  # (tag, type, count, bytes value or int)
        self.next = 0

    def add(self, tag, typ, count, value):
        self.entries.append((tag, typ, count, value))
        return self

    def pack(self, at):
        """The directory at offset `at` (its out-of-line values after it)."""
        e = '>' if self.big else '<'
        size = 2 + 12 * len(self.entries) + 4
        out, extra = struct.pack(e + 'H', len(self.entries)), b''
        for tag, typ, count, value in sorted(self.entries, key=lambda x: x[0]):
            if isinstance(value, int):
                field = struct.pack(e + ('H' if typ == 3 else 'I'), value)
                field = field.ljust(4, b'\0')
            elif len(value) <= 4:
                field = value.ljust(4, b'\0')
            else:
                field = struct.pack(e + 'I', at + size + len(extra))
                extra += value + (b'\0' if len(value) % 2 else b'')
            out += struct.pack(e + 'HHI', tag, typ, count) + field
        return out + struct.pack(e + 'I', self.next) + extra


def tiff_header(big, first):
    return (b'MM\x00\x2a' if big else b'II\x2a\x00') + struct.pack('>I' if big else '<I', first)


def ascii_entry(ifd, tag, text):
    value = text.encode() + b'\0'
    ifd.add(tag, 2, len(value), value)


def segment(marker, payload):
    return bytes([0xFF, marker]) + struct.pack('>H', len(payload) + 2) + payload


def exif_jpeg(make, note, big=False, width=64, height=48, software='Ver.1.00'):
    """A JPEG whose APP1 holds IFD0 (Make, Software, dates), an Exif IFD
    (PixelX/Y, MakerNote `note(base_in_tiff)`), IFD1 with a thumbnail."""
    thumb = tiny_jpeg(16, 12)
    # Layout inside TIFF: header 8, IFD0 at 8, Exif IFD at 512, IFD1 at 1024,
    # maker note at 1536, thumbnail at 3072.
    ifd0 = IFD(big)
    ascii_entry(ifd0, 0x010F, make)
    ascii_entry(ifd0, 0x0131, software)
    ascii_entry(ifd0, 0x0132, '2024:01:02 03:04:05')
    ifd0.add(0x0112, 3, 1, 1)
    ifd0.add(0x8769, 4, 1, 512)
    ifd0.next = 1024
    note_bytes = note(1536)
    exif = IFD(big)
    ascii_entry(exif, 0x9003, '2024:01:02 03:04:05')
    exif.add(0xA002, 4, 1, width).add(0xA003, 4, 1, height)
    exif.add(0x927C, 7, len(note_bytes), 1536)  # placed by hand below
    ifd1 = IFD(big)
    ifd1.add(0x0201, 4, 1, 3072).add(0x0202, 4, 1, len(thumb))
    tiff = bytearray(4096)
    tiff[0:8] = tiff_header(big, 8)
    for at, ifd in ((8, ifd0), (512, exif), (1024, ifd1)):
        packed = ifd.pack(at)
        tiff[at:at + len(packed)] = packed
    tiff[1536:1536 + len(note_bytes)] = note_bytes
    tiff[3072:3072 + len(thumb)] = thumb
    app1 = segment(0xE1, b'Exif\0\0' + bytes(tiff))
    return b'\xff\xd8' + app1 + tiny_jpeg(width, height)[2:]


def note_with_preview(preview_at, preview, *parts):
    """A maker note's bytes: each (offset, bytes) of `parts` laid at its
    offset, zeros between them, and `preview` at `preview_at`, last."""
    body = bytearray(preview_at + len(preview))
    for at, data in parts:
        body[at:at + len(data)] = data
    body[preview_at:] = preview
    return bytes(body)


def nikon_note(at):
    preview = tiny_jpeg(40, 30)
    # "Nikon\0" and its version, then a TIFF header (offsets from it).
    main = IFD(False).add(0x0011, 13, 1, 64)
    sub = IFD(False).add(0x0201, 4, 1, 128).add(0x0202, 4, 1, len(preview))
    return b'Nikon\0\x02\x10\0\0' + note_with_preview(
        128, preview, (0, tiff_header(False, 8)), (8, main.pack(8)), (64, sub.pack(64)))


def pentax_note(at):
    preview = tiny_jpeg(40, 30)
    # Offsets from the Exif header: the preview sits 256 bytes into the note.
    ifd = IFD(True).add(0x0003, 4, 1, len(preview)).add(0x0004, 4, 1, at + 256)
    return note_with_preview(256, preview, (0, b'AOC\0MM'), (6, ifd.pack(6)))


def olympus_note(at):
    preview = tiny_jpeg(40, 30)
    # "OLYMPUS\0II\3\0", directory at +12; CameraSettings at +128 of the note.
    main = IFD(False).add(0x2020, 13, 1, 128)
    settings = IFD(False).add(0x0100, 4, 1, 1).add(0x0101, 4, 1, 256).add(0x0102, 4, 1, len(preview))
    return note_with_preview(256, preview, (0, b'OLYMPUS\0II\x03\0'), (12, main.pack(12)), (128, settings.pack(128)))


def semc_note(at):
    preview = tiny_jpeg(40, 30)
    # "SEMC MS\0", four zero bytes, a big-endian TIFF header (offsets from
    # it), the directory 8 bytes past it; the preview 64 bytes past it.
    ifd = IFD(True).add(0x0201, 4, 1, 64).add(0x0202, 4, 1, len(preview))
    return note_with_preview(12 + 64, preview, (0, b'SEMC MS\0\0\0\0\0'), (12, tiff_header(True, 8)), (20, ifd.pack(8)))


def coolpix_note(at):
    preview = tiny_jpeg(40, 30)
    # Headerless (Nikon's Coolpix): a directory at the note's first byte,
    # offsets from the Exif header; PreviewIFD at +64, the preview at +128.
    main = IFD(False).add(0x0011, 4, 1, at + 64)
    sub = IFD(False).add(0x0201, 4, 1, at + 128).add(0x0202, 4, 1, len(preview))
    return note_with_preview(128, preview, (0, main.pack(at)), (64, sub.pack(at + 64)))


def minolta_note(at):
    preview = tiny_jpeg(40, 30)
    # Headerless (Minolta's DiMAGE): 0x0088 start, 0x0089 length, from the
    # Exif header; the preview at +128.
    ifd = IFD(True).add(0x0088, 4, 1, at + 128).add(0x0089, 4, 1, len(preview))
    return note_with_preview(128, preview, (0, ifd.pack(at)))


def casio_note(at):
    preview = tiny_jpeg(40, 30)
    # "QVC\0", 2 bytes, the directory at +6 (offsets from the Exif header):
    # 0x2000 PreviewImage, its count the length, at +128.
    ifd = IFD(False).add(0x2000, 7, len(preview), at + 128)
    return note_with_preview(128, preview, (0, b'QVC\0\0\0'), (6, ifd.pack(at + 6)))


def samsung_note(at):
    preview = tiny_jpeg(40, 30)
    # "STMN0100", the preview's start from the file's first byte (the TIFF
    # header is at 12 in exif_jpeg's file), its length; the preview at +64.
    return note_with_preview(64, preview, (0, b'STMN0100' + struct.pack('<II', 12 + at + 64, len(preview))))


def mpf_jpeg():
    main = tiny_jpeg(64, 48)
    second = tiny_jpeg(32, 24)
    # APP2 "MPF\0" + TIFF header + index IFD (NumberOfImages, MPEntry).
    def app2(first_size, second_offset):
        entries = struct.pack('>IIIHH', 0x030000 | 0x20000000, first_size, 0, 0, 0)
        entries += struct.pack('>IIIHH', 0x010001, len(second), second_offset, 0, 0)
        ifd = IFD(True).add(0xB000, 7, 4, b'0100').add(0xB001, 4, 1, 2).add(0xB002, 7, 32, entries)
        return segment(0xE2, b'MPF\0' + tiff_header(True, 8) + ifd.pack(8))
    probe = app2(0, 0)
    header_at = 2 + 4 + 4  # SOI, APP2 marker and length, "MPF\0"
    first_size = 2 + len(probe) + len(main) - 2
    app = app2(first_size, first_size - header_at)
    return b'\xff\xd8' + app + main[2:] + second


def xmp_jpeg():
    xmp = (b'http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:Description xmp:CreatorTool="Adobe Photoshop">'
           b'<xmpMM:History/></rdf:Description></x:xmpmeta>')
    return b'\xff\xd8' + segment(0xE1, xmp) + tiny_jpeg(8, 8)[2:]


def raw_tiff(big=False):
    jpeg = tiny_jpeg(48, 32)
    preview = tiny_jpeg(24, 16)
    ifd0 = IFD(big)
    ifd0.add(0x0100, 4, 1, 8).add(0x0101, 4, 1, 6).add(0x0103, 3, 1, 1)
    ifd0.add(0x0111, 4, 1, 1024).add(0x0117, 4, 1, 8 * 6 * 3)
    ascii_entry(ifd0, 0x010F, 'NIKON CORPORATION')
    ifd0.add(0x014A, 4, 1, 256).add(0x8769, 4, 1, 512)
    sub = IFD(big).add(0x0201, 4, 1, 2048).add(0x0202, 4, 1, len(jpeg))
    note = nikon_note(768)
    exif = IFD(big).add(0x927C, 7, len(note), 768)
    ifd0.next = 1536
    ifd1 = IFD(big).add(0x0201, 4, 1, 3072).add(0x0202, 4, 1, len(preview))
    out = bytearray(4096)
    out[0:8] = tiff_header(big, 8)
    for at, ifd in ((8, ifd0), (256, sub), (512, exif), (1536, ifd1)):
        packed = ifd.pack(at)
        out[at:at + len(packed)] = packed
    out[768:768 + len(note)] = note
    out[2048:2048 + len(jpeg)] = jpeg
    out[3072:3072 + len(preview)] = preview
    return bytes(out)


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    seeds = {
        'nikon.jpg': exif_jpeg('NIKON CORPORATION', nikon_note),
        'pentax.jpg': exif_jpeg('PENTAX Corporation', pentax_note, big=True),
        'olympus.jpg': exif_jpeg('OLYMPUS IMAGING CORP.', olympus_note),
        'sony-ericsson.jpg': exif_jpeg('Sony Ericsson', semc_note),
        'wrong-maker.jpg': exif_jpeg('Canon', nikon_note),
        'wrong-maker-semc.jpg': exif_jpeg('SONY', semc_note),
        'coolpix.jpg': exif_jpeg('NIKON', coolpix_note),
        'minolta.jpg': exif_jpeg('Minolta Co., Ltd.', minolta_note, big=True),
        'casio.jpg': exif_jpeg('CASIO COMPUTER CO.,LTD.', casio_note),
        'samsung.jpg': exif_jpeg('SAMSUNG', samsung_note),
        'wrong-maker-casio.jpg': exif_jpeg('NIKON', casio_note),
        'mpf.jpg': mpf_jpeg(),
        'xmp.jpg': xmp_jpeg(),
        'raw-ii.tif': raw_tiff(False),
        'raw-mm.tif': raw_tiff(True),
    }
    for name, data in seeds.items():
        with open(os.path.join(folder, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""combine `format: image` against Pillow, over a generated corpus of real PNG and JPEG shapes.

Usage:
  python3 scripts/imagepeer.py [--flowrun .build/debug/flowrun] [--seed 1] [--cases 200] [--keep]

Needs Pillow and numpy (`pip install pillow numpy`). Each case is one combine task; all cases
of a seed run in one workflow (`--keep-going`), the cases that must fail in another. Checked:
- exact pixels where nothing is scaled (one image at its own size, or a row of images of one
  height): PNGs against the samples the harness wrote (its own PNG writer covers every colour
  type, bit depth 1/2/4/8/16, tRNS, palette, Adam7), cross-checked with Pillow's decode where
  Pillow keeps the samples (8 bits and fewer); JPEGs against Pillow's decode (libjpeg-turbo
  too, maybe another version): the largest difference is printed;
- scaled cells against Pillow's LANCZOS resize (Pillow premultiplies RGBA itself), a JPEG
  shrunk at least 2x decoded with Pillow's `draft` (the same DCT reduction README describes),
  compared in premultiplied values within --tolerance;
- geometry: canvas size, placement (centred: floor((cell - fitted) / 2)), background, RGB
  over a colour and RGBA over none, grid order and empty cells;
- faults: a truncated PNG or JPEG, a CMYK JPEG, text named .png, an empty file, a bad IDAT
  CRC: the task fails naming the input and nothing is at `to`.
Prints counts per shape, and each mismatch with its case folder (kept with --keep).
"""

import argparse
import collections
import io
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np
from PIL import Image

# MARK: a PNG writer for every shape (Pillow cannot write 16-bit colour, low-bit grey with
# tRNS, or Adam7)

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def pack_rows(samples, depth, filt):
    """samples: (h, w, c) ints. Returns the filtered scanlines of this (sub)image."""
    h, w, c = samples.shape
    out = bytearray()
    bpp = max(1, c * depth // 8)
    prev = None
    for y in range(h):
        row = samples[y].reshape(-1)
        if depth == 16:
            raw = row.astype(">u2").tobytes()
        elif depth == 8:
            raw = row.astype(np.uint8).tobytes()
        else:
            per = 8 // depth
            padded = np.zeros(((len(row) + per - 1) // per) * per, dtype=np.uint8)
            padded[: len(row)] = row
            padded = padded.reshape(-1, per)
            raw = bytes(np.sum(padded << (np.arange(per)[::-1] * depth).astype(np.uint8), axis=1, dtype=np.uint16).astype(np.uint8))
        kind = filt(y)
        line = np.frombuffer(raw, dtype=np.uint8).astype(np.int32)
        up = np.frombuffer(prev, dtype=np.uint8).astype(np.int32) if prev is not None else np.zeros_like(line)
        if kind == 0:
            enc = line
        elif kind == 1:
            left = np.concatenate([np.zeros(bpp, np.int32), line[:-bpp]]) if len(line) > bpp else np.zeros_like(line)
            enc = line - left
        elif kind == 2:
            enc = line - up
        else:  # 4: Paeth, done byte by byte (rows are short)
            enc = np.zeros_like(line)
            for i in range(len(line)):
                a = line[i - bpp] if i >= bpp else 0
                b = up[i]
                cc = up[i - bpp] if i >= bpp else 0
                p = a + b - cc
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - cc)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
                enc[i] = line[i] - pred
        out.append(kind)
        out += bytes((enc & 0xFF).astype(np.uint8))
        prev = raw
    return bytes(out)


def write_png(path, samples, color_type, depth, interlace=False, palette=None, trns=None, rng=None, corrupt_crc=False):
    h, w, _ = samples.shape
    filt = (lambda y: rng.choice([0, 1, 2, 4])) if rng else (lambda y: 0)
    if interlace:
        data = b""
        for x0, y0, dx, dy in ADAM7:
            sub = samples[y0::dy, x0::dx]
            if sub.shape[0] and sub.shape[1]:
                data += pack_rows(sub, depth, filt)
    else:
        data = pack_rows(samples, depth, filt)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, int(interlace)))
    if palette is not None:
        png += chunk(b"PLTE", bytes(np.asarray(palette, dtype=np.uint8).reshape(-1)))
    if trns is not None:
        png += chunk(b"tRNS", trns)
    idat = chunk(b"IDAT", zlib.compress(data, 6))
    if corrupt_crc:
        idat = idat[:-1] + bytes([idat[-1] ^ 0x55])
    png += idat + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def scale_to_8(v, depth):
    if depth == 16:
        return np.floor(v.astype(np.float64) * 255 / 65535 + 0.5).astype(np.int64)
    return (v.astype(np.int64) * 255) // ((1 << depth) - 1)


def random_png(path, rng, shape, w, h, interlace, smooth=False):
    """Writes a PNG of `shape` and returns the 8-bit straight RGBA a correct decoder gives.
    `smooth`: a photo-like picture; otherwise noise (every sample random)."""
    kind, depth = shape
    npr = np.random.default_rng(rng.randrange(1 << 30))
    top = (1 << depth) - 1
    if smooth:
        picture = smooth_picture(npr, w, h, 4).astype(np.int64)
        real = npr

        class Smooth:
            @staticmethod
            def integers(low, high, size):
                if not isinstance(size, tuple):
                    return real.integers(low, high, size)
                c = size[2]
                return np.floor(picture[..., :c] * (high - 1) / 255 + 0.5).astype(np.int64)

            random = npr.random

        npr = Smooth
    trns = None
    palette = None
    if kind in ("gray", "gray+trns"):
        s = npr.integers(0, top + 1, (h, w, 1))
        g = scale_to_8(s[..., 0], depth)
        a = np.full((h, w), 255)
        if kind == "gray+trns":
            key = int(s[h // 2, w // 2, 0])
            trns = struct.pack(">H", key)
            a = np.where(s[..., 0] == key, 0, 255)
        rgba = np.stack([g, g, g, a], -1)
        write_png(path, s, 0, depth, interlace, trns=trns, rng=rng)
    elif kind in ("rgb", "rgb+trns"):
        s = npr.integers(0, top + 1, (h, w, 3))
        if kind == "rgb+trns":  # a few pixels share the key colour
            key = s[0, 0].copy()
            mask = npr.random((h, w)) < 0.3
            s[mask] = key
            trns = struct.pack(">HHH", *[int(x) for x in key])
            a = np.where(np.all(s == key, -1), 0, 255)
        else:
            a = np.full((h, w), 255)
        rgba = np.concatenate([scale_to_8(s, depth), a[..., None]], -1)
        write_png(path, s, 2, depth, interlace, trns=trns, rng=rng)
    elif kind in ("gray+alpha", "rgba"):
        c = 2 if kind == "gray+alpha" else 4
        s = npr.integers(0, top + 1, (h, w, c))
        if not smooth:
            s[..., -1][npr.random((h, w)) < 0.2] = 0  # fully transparent pixels with colour in them
            s[..., -1][npr.random((h, w)) < 0.2] = top
        e = scale_to_8(s, depth)
        rgba = np.stack([e[..., 0]] * 3 + [e[..., 1]], -1) if c == 2 else e
        write_png(path, s, 4 if c == 2 else 6, depth, interlace, rng=rng)
    else:  # palette, palette+trns
        n = 1 << depth
        palette = np.random.default_rng(rng.randrange(1 << 30)).integers(0, 256, (n, 3))
        if smooth:
            palette = np.sort(palette, axis=0)
        s = npr.integers(0, n, (h, w, 1))
        alpha = np.full(n, 255)
        if kind == "palette+trns":
            count = rng.randint(1, n)  # shorter than the palette: the rest are opaque
            alpha[:count] = npr.integers(0, 256, count)
            alpha[0] = 0
            trns = bytes(alpha[:count].astype(np.uint8))
        rgba = np.concatenate([palette[s[..., 0]], alpha[s[..., 0]][..., None]], -1)
        write_png(path, s, 3, depth, interlace, palette=palette, trns=trns, rng=rng)
    return rgba.astype(np.int64)


PNG_SHAPES = (
    [("gray", d) for d in (1, 2, 4, 8, 16)]
    + [("gray+trns", d) for d in (1, 2, 4, 8, 16)]
    + [("gray+alpha", d) for d in (8, 16)]
    + [("rgb", d) for d in (8, 16)]
    + [("rgb+trns", d) for d in (8, 16)]
    + [("rgba", d) for d in (8, 16)]
    + [("palette", d) for d in (1, 2, 4, 8)]
    + [("palette+trns", d) for d in (1, 2, 4, 8)]
)
JPEG_SHAPES = ["baseline-420", "baseline-444", "baseline-422", "progressive", "gray", "restart", "progressive-gray"]


def smooth_picture(npr, w, h, channels):
    """A photo-like picture (gradients and a few edges), so JPEG errors stay small."""
    y, x = np.mgrid[0:h, 0:w]
    planes = []
    for _ in range(channels):
        fx, fy, ph = npr.uniform(0.5, 4), npr.uniform(0.5, 4), npr.uniform(0, 6.28)
        p = 127 + 100 * np.sin(x / max(w, 1) * fx * 3.14 + ph) * np.cos(y / max(h, 1) * fy * 3.14)
        p[(x // max(1, w // 3) + y // max(1, h // 3)) % 2 == 0] += 20
        planes.append(np.clip(p, 0, 255))
    return np.stack(planes, -1).astype(np.uint8)


def random_jpeg(path, rng, shape, w, h):
    npr = np.random.default_rng(rng.randrange(1 << 30))
    gray = "gray" in shape
    pixels = smooth_picture(npr, w, h, 1 if gray else 3)
    im = Image.fromarray(pixels[..., 0] if gray else pixels, "L" if gray else "RGB")
    options = {"quality": rng.choice([75, 90, 95])}
    if "progressive" in shape:
        options["progressive"] = True
    if shape.startswith("baseline") or shape == "restart":
        options["subsampling"] = {"baseline-420": 2, "baseline-444": 0, "baseline-422": 1}.get(shape, 2)
    if shape == "restart":
        options["restart_marker_blocks"] = rng.choice([1, 3, 8])
    im.save(path, "JPEG", **options)
    if shape == "restart":
        assert b"\xff\xdd" in open(path, "rb").read(), "Pillow wrote no DRI marker"


def pillow_rgba(path):
    with Image.open(path) as im:
        im.load()
        return np.asarray(im.convert("RGBA")).astype(np.int64)


# MARK: the expected canvas


def placement(index, w, h, columns, cell):
    cw, ch = cell
    scale = min(cw / w, ch / h)
    fw = min(cw, max(1, int(math.floor(w * scale + 0.5))))
    fh = min(ch, max(1, int(math.floor(h * scale + 0.5))))
    cx, cy = index % columns * cw, index // columns * ch
    return cx + (cw - fw) // 2, cy + (ch - fh) // 2, fw, fh


def lanczos_matrix(source, target):
    """Rows of normalised Lanczos-3 weights (widened by the reduction factor), as README says."""
    scale = source / target
    widen = max(scale, 1.0)
    m = np.zeros((target, source))
    centres = (np.arange(target) + 0.5) * scale
    x = (np.arange(source)[None, :] + 0.5 - centres[:, None]) / widen
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(x == 0, 1.0, 3 * np.sin(np.pi * x) * np.sin(np.pi * x / 3) / (np.pi * x) ** 2)
    w[np.abs(x) >= 3] = 0
    m = w / w.sum(1, keepdims=True)
    return m


def float_resize(premultiplied, fw, fh):
    """Float Lanczos on premultiplied 0..1 RGBA, clamped only at the end."""
    h, w, _ = premultiplied.shape
    if (w, h) == (fw, fh):
        return premultiplied
    out = np.einsum("yh,hwc,xw->yxc", lanczos_matrix(h, fh), premultiplied, lanczos_matrix(w, fw))
    out[..., 3] = np.clip(out[..., 3], 0, 1)
    out[..., :3] = np.clip(out[..., :3], 0, out[..., 3:4])
    return out


def source_rgba(item, fw, fh):
    """The 8-bit straight RGBA the resampler starts from (a JPEG decoded reduced as README says)."""
    if item["kind"] == "jpeg":
        with Image.open(item["path"]) as im:
            if im.size != (fw, fh):
                im.draft("RGB", (fw, fh))
            return np.asarray(im.convert("RGBA")).astype(np.float64)
    return item["rgba"].astype(np.float64)


def reference_scaled(item, fw, fh):
    """README's filter in float, premultiplied RGBA 0..255."""
    a = source_rgba(item, fw, fh) / 255
    a[..., :3] *= a[..., 3:4]
    return float_resize(a, fw, fh) * 255


def premultiplied_scaled(item, fw, fh):
    """Pillow's premultiplied LANCZOS result, as float premultiplied RGBA 0..255."""
    if item["kind"] == "jpeg":
        with Image.open(item["path"]) as im:
            if im.size != (fw, fh):
                im.draft("RGB", (fw, fh))
            im = im.convert("RGBA")
            out = im if im.size == (fw, fh) else im.resize((fw, fh), Image.LANCZOS)
            a = np.asarray(out).astype(np.float64)
    else:
        truth = item["rgba"]
        if truth.shape[1] == fw and truth.shape[0] == fh:
            a = truth.astype(np.float64)
        else:
            im = Image.fromarray(truth.astype(np.uint8), "RGBA")
            a = np.asarray(im.resize((fw, fh), Image.LANCZOS)).astype(np.float64)
    a[..., :3] *= a[..., 3:4] / 255
    return a


def expected_canvas(items, layout, columns, size, background, scaler):
    n = len(items)
    if size:
        cell = size
    else:
        cell = (max(i["w"] for i in items), max(i["h"] for i in items))
    cols = {"row": n, "column": 1}.get(layout) or (columns or math.ceil(math.sqrt(n)))
    rows = (n + cols - 1) // cols
    canvas = np.zeros((rows * cell[1], cols * cell[0], 4))  # premultiplied
    scaled = np.zeros(canvas.shape[:2], dtype=bool)
    for index, item in enumerate(items):
        x, y, fw, fh = placement(index, item["w"], item["h"], cols, cell)
        canvas[y : y + fh, x : x + fw] = scaler(item, fw, fh)
        if (fw, fh) != (item["w"], item["h"]):
            scaled[y : y + fh, x : x + fw] = True
    if background:
        bg = np.array(background, dtype=np.float64)
        rgb = canvas[..., :3] + bg * (1 - canvas[..., 3:4] / 255)
        return rgb, scaled, cell, cols
    return canvas, scaled, cell, cols


# MARK: cases


def make_case(rng, index, folder):
    """One combine task: its inputs written, its options chosen. Returns the case's record."""
    count = rng.choice([1, 1, 1, 2, 3, 4, 5])
    layout = rng.choice(["row", "column", "grid"]) if count > 1 else "row"
    mode = rng.choice(["exact", "exact", "scaled", "scaled", "samerow"]) if count > 1 else rng.choice(["exact", "scaled"])
    size_kind = rng.choice(["normal", "normal", "odd", "one", "wide", "tall"])

    def dims():
        return {
            "normal": (rng.randint(8, 90), rng.randint(8, 90)),
            "odd": (rng.choice([3, 5, 7, 9, 15, 17, 33]), rng.choice([3, 5, 7, 11, 13, 31])),
            "one": rng.choice([(1, 1), (1, rng.randint(2, 40)), (rng.randint(2, 40), 1)]),
            "wide": (rng.randint(900, 2500), rng.randint(1, 6)),
            "tall": (rng.randint(1, 6), rng.randint(900, 2500)),
        }[size_kind]

    height = None
    items = []
    for k in range(count):
        w, h = dims()
        if mode == "samerow":
            height = height or h
            h = height
        if rng.random() < 0.3:
            shape = rng.choice(JPEG_SHAPES)
            path = os.path.join(folder, f"c{index}_{k}.jpg")
            random_jpeg(path, rng, shape, w, h)
            items.append({"kind": "jpeg", "shape": "jpeg " + shape, "path": path, "w": w, "h": h})
        else:
            shape = rng.choice(PNG_SHAPES)
            interlace = rng.random() < 0.3
            path = os.path.join(folder, f"c{index}_{k}.png")
            smooth = rng.random() < 0.6
            rgba = random_png(path, rng, shape, w, h, interlace, smooth)
            name = f"png {shape[0]} {shape[1]}-bit" + (" adam7" if interlace else "")
            items.append({"kind": "png", "shape": name, "path": path, "w": w, "h": h, "rgba": rgba, "smooth": smooth})
    if mode == "samerow":
        layout = "row"
    size = None
    if mode == "exact" and count == 1 and rng.random() < 0.5:
        size = (items[0]["w"], items[0]["h"])
    elif mode == "scaled":
        size = (rng.randint(1, 120), rng.randint(1, 120)) if rng.random() < 0.9 else (rng.randint(200, 400), rng.randint(1, 50))
    elif mode == "exact" and count > 1:  # every image the cell's size
        w, h = items[0]["w"], items[0]["h"]
        for k, item in enumerate(items[1:], 1):
            if item["kind"] == "png":
                shape = rng.choice(PNG_SHAPES)
                interlace = rng.random() < 0.3
                item["rgba"] = random_png(item["path"], rng, shape, w, h, interlace, item["smooth"])
                item["shape"] = f"png {shape[0]} {shape[1]}-bit" + (" adam7" if interlace else "")
            else:
                random_jpeg(item["path"], rng, item["shape"].split(" ")[1], w, h)
            item["w"], item["h"] = w, h
    columns = rng.choice([None, 1, 2, 3, count + 2]) if layout == "grid" else None
    background = None if rng.random() < 0.5 else tuple(rng.randrange(256) for _ in range(3))
    return {"index": index, "items": items, "layout": layout, "size": size, "columns": columns,
            "background": background, "mode": mode, "size_kind": size_kind}


def task_yaml(case, name):
    lines = [f"  {name}:", "    combine:",
             "      inputs: [" + ", ".join(json.dumps(os.path.basename(i["path"])) for i in case["items"]) + "]",
             f"      to: out/{name}.png", "      format: image", f"      layout: {case['layout']}"]
    if case["size"]:
        lines.append(f"      size: {case['size'][0]}x{case['size'][1]}")
    if case["columns"]:
        lines.append(f"      columns: {case['columns']}")
    if case["background"]:
        lines.append('      background: "#%02x%02x%02x"' % case["background"])
    return "\n".join(lines) + "\n"


def run_flowrun(flowrun, folder, tasks_yaml):
    path = os.path.join(folder, "w.yaml")
    with open(path, "w") as f:
        f.write("version: 1\nname: imagepeer\ntasks:\n" + tasks_yaml)
    proc = subprocess.run([flowrun, "run", "w.yaml", "--keep-going", "--events", "jsonl", "-j2"], cwd=folder,
                          capture_output=True, text=True)
    results = {}
    for line in proc.stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("event") in ("task.succeeded", "task.failed"):
            results[event["task"]] = event
    if not results:
        sys.exit(f"flowrun gave no task results:\n{proc.stdout}\n{proc.stderr}")
    return results


def check_case(case, folder, result, stats, tolerance):
    name = f"c{case['index']}"
    problems = []
    if result.get("event") != "task.succeeded":
        return [f"failed: {result.get('reason')}"]
    out = os.path.join(folder, "out", name + ".png")
    with Image.open(out) as im:
        im.load()
        mode, got = im.mode, np.asarray(im).astype(np.float64)
    want, scaled, cell, cols = expected_canvas(case["items"], case["layout"], case["columns"], case["size"], case["background"], reference_scaled)
    pillow, _, _, _ = expected_canvas(case["items"], case["layout"], case["columns"], case["size"], case["background"], premultiplied_scaled)
    expected_mode = "RGB" if case["background"] else "RGBA"
    if mode != expected_mode:
        problems.append(f"mode {mode}, expected {expected_mode}")
        return problems
    if got.shape[:2] != want.shape[:2]:
        problems.append(f"size {got.shape[1]}x{got.shape[0]}, expected {want.shape[1]}x{want.shape[0]}")
        return problems
    if mode == "RGBA":
        got = got.copy()
        got[..., :3] *= got[..., 3:4] / 255
    diff = np.abs(got - want).max(-1)
    exact = ~scaled
    jpeg_cells = np.zeros(diff.shape, dtype=bool)
    cell_w, cell_h = cell
    for index, item in enumerate(case["items"]):
        x, y, fw, fh = placement(index, item["w"], item["h"], cols, cell)
        if item["kind"] == "jpeg":
            jpeg_cells[y : y + fh, x : x + fw] = True
    lossless = exact & ~jpeg_cells
    if lossless.any():
        worst = diff[lossless].max()
        # Composited over a colour, the harness's float maths against flowrun's may round apart.
        limit = 1.0 if case["background"] else 0.5 + 255 / 255
        stats["max exact png"] = max(stats.get("max exact png", 0), worst)
        if worst > limit:
            ys, xs = np.nonzero(lossless & (diff > limit))
            problems.append(f"unscaled PNG pixels differ by up to {worst:.0f}, first at ({xs[0]},{ys[0]}): got {got[ys[0], xs[0]]} want {want[ys[0], xs[0]]}")
    if (exact & jpeg_cells).any():
        worst = diff[exact & jpeg_cells].max()
        stats["max exact jpeg"] = max(stats.get("max exact jpeg", 0), worst)
        if worst > 8:
            problems.append(f"unscaled JPEG pixels differ from Pillow's decode by up to {worst:.0f}")
    if scaled.any():
        # Against README's filter in float: only rounding may differ (a straight RGBA output
        # is rounded twice, before and after the harness premultiplies it again).
        worst = diff[scaled].max()
        stats["max scaled vs float Lanczos"] = max(stats.get("max scaled vs float Lanczos", 0), worst)
        if worst > 1.0:
            ys, xs = np.nonzero(scaled & (diff > 1.0))
            problems.append(f"scaled pixels differ from README's Lanczos by up to {worst:.1f}, first at ({xs[0]},{ys[0]}): got {got[ys[0], xs[0]]} want {want[ys[0], xs[0]]}")
        # Against Pillow (8-bit between passes, clamped after each): a peer, not the rule.
        peer = np.abs(got - pillow).max(-1)[scaled]
        # Hard edges (noise, a tRNS key, a palette, 1-4 bit grey) ring, and Pillow clamps the
        # ringing between its two passes: there the two filters part by design.
        hard = any(not i.get("smooth", True) or "trns" in i["shape"] or "palette" in i["shape"]
                   or any(f" {d}-bit" in i["shape"] for d in (1, 2, 4)) for i in case["items"])
        key = "hard edges" if hard else "smooth"
        stats[f"max scaled vs Pillow ({key})"] = max(stats.get(f"max scaled vs Pillow ({key})", 0), peer.max())
        stats[f"p99.9 scaled vs Pillow ({key})"] = max(stats.get(f"p99.9 scaled vs Pillow ({key})", 0), np.percentile(peer, 99.9))
        if key == "smooth" and peer.max() > tolerance:
            stats["cases over Pillow tolerance"] = stats.get("cases over Pillow tolerance", 0) + 1
            print(f"note c{case['index']}: scaled pixels differ from Pillow LANCZOS by up to {peer.max():.1f}")
    # Empty space (no image there) must be the background, or fully transparent.
    covered = np.zeros(diff.shape, dtype=bool)
    for index, item in enumerate(case["items"]):
        x, y, fw, fh = placement(index, item["w"], item["h"], cols, cell)
        covered[y : y + fh, x : x + fw] = True
    if (~covered).any() and diff[~covered].max() > 0:
        problems.append("background/empty cells wrong: max difference %.0f" % diff[~covered].max())
    return problems


# MARK: faults


def fault_cases(rng, folder):
    """(name, input file, what a user expects to read in the error)."""
    cases = []
    npr = np.random.default_rng(rng.randrange(1 << 30))

    def png(name, **kw):
        path = os.path.join(folder, name)
        s = npr.integers(0, 256, (40, 40, 3))
        write_png(path, s, 2, 8, **kw)
        return path

    full = png("ok.png")
    data = open(full, "rb").read()
    for cut in (40, len(data) // 2, len(data) - 12):
        path = os.path.join(folder, f"cut{cut}.png")
        open(path, "wb").write(data[:cut])
        cases.append(("truncated png", path))
    png("badcrc.png", corrupt_crc=True)
    cases.append(("bad IDAT CRC", os.path.join(folder, "badcrc.png")))
    jpeg = os.path.join(folder, "ok.jpg")
    random_jpeg(jpeg, rng, "baseline-420", 64, 64)
    jdata = open(jpeg, "rb").read()
    for cut in (len(jdata) // 2, len(jdata) - 2):
        path = os.path.join(folder, f"cut{cut}.jpg")
        open(path, "wb").write(jdata[:cut])
        cases.append(("truncated jpeg", path))
    progressive = os.path.join(folder, "prog.jpg")
    random_jpeg(progressive, rng, "progressive", 64, 64)
    pdata = open(progressive, "rb").read()
    path = os.path.join(folder, "cutprog.jpg")
    open(path, "wb").write(pdata[: len(pdata) * 2 // 3])
    cases.append(("truncated progressive jpeg", path))
    # Chunks all valid (CRCs right, IEND there) but the zlib stream holds too few rows.
    s = npr.integers(0, 256, (40, 40, 3))
    short = zlib.compress(pack_rows(s[:30], 8, lambda y: 0))
    path = os.path.join(folder, "shortidat.png")
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 40, 40, 8, 2, 0, 0, 0))
                           + chunk(b"IDAT", short) + chunk(b"IEND", b""))
    cases.append(("too few rows in IDAT", path))
    # Headers past the 100-megapixel ceiling, refused before decoding.
    path = os.path.join(folder, "huge.png")
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 20000, 20000, 8, 2, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(b"\0" * 100)) + chunk(b"IEND", b""))
    cases.append(("png header of 400 MP", path))
    big = bytearray(open(jpeg, "rb").read())
    sof = big.index(b"\xff\xc0")
    big[sof + 5 : sof + 9] = struct.pack(">HH", 60000, 60000)
    path = os.path.join(folder, "huge.jpg")
    open(path, "wb").write(bytes(big))
    cases.append(("jpeg header of 3600 MP", path))
    cmyk = os.path.join(folder, "cmyk.jpg")
    Image.new("CMYK", (16, 16), (10, 20, 30, 40)).save(cmyk, "JPEG")
    cases.append(("cmyk jpeg", cmyk))
    text = os.path.join(folder, "text.png")
    open(text, "w").write("not an image\n")
    cases.append(("text named .png", text))
    empty = os.path.join(folder, "empty.png")
    open(empty, "wb").close()
    cases.append(("empty file", empty))
    return cases


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--flowrun", default=".build/debug/flowrun")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--tolerance", type=float, default=4.0, help="largest premultiplied difference allowed where scaled")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    flowrun = os.path.abspath(args.flowrun)
    rng = random.Random(args.seed)
    folder = tempfile.mkdtemp(prefix="imagepeer.")
    shapes = collections.Counter()
    kinds = collections.Counter()
    cases = []
    for index in range(args.cases):
        case = make_case(rng, index, folder)
        cases.append(case)
        for item in case["items"]:
            shapes[item["shape"]] += 1
        kinds[f"{case['mode']} {case['layout']} {case['size_kind']} {'bg' if case['background'] else 'transparent'}"] += 1
    results = run_flowrun(flowrun, folder, "".join(task_yaml(c, f"c{c['index']}") for c in cases))
    stats = {}
    failures = 0
    for case in cases:
        problems = check_case(case, folder, results.get(f"c{case['index']}", {}), stats, args.tolerance)
        if problems:
            failures += 1
            desc = ", ".join(f"{i['shape']} {i['w']}x{i['h']}" for i in case["items"])
            print(f"MISMATCH c{case['index']} [{case['mode']} {case['layout']} size={case['size']} columns={case['columns']} bg={case['background']}] {desc}")
            for p in problems:
                print("   ", p)
    # Faults: each its own task; the task must fail naming the input, with nothing at `to`.
    fault_folder = os.path.join(folder, "faults")
    os.makedirs(fault_folder)
    faults = fault_cases(rng, fault_folder)
    tasks = "".join(
        f"  f{k}:\n    combine: {{inputs: [{json.dumps(os.path.basename(p))}], to: out/f{k}.png, format: image}}\n"
        for k, (_, p) in enumerate(faults))
    fault_results = run_flowrun(flowrun, fault_folder, tasks)
    fault_bad = 0
    for k, (what, path) in enumerate(faults):
        event = fault_results.get(f"f{k}", {})
        left = [n for n in os.listdir(os.path.join(fault_folder, "out"))] if os.path.isdir(os.path.join(fault_folder, "out")) else []
        problem = None
        if event.get("event") != "task.failed":
            problem = "task succeeded"
        elif os.path.basename(path) not in event.get("reason", ""):
            problem = "error does not name the input"
        elif any(n.startswith(f"f{k}.") or n.startswith(f".f{k}.") for n in left):
            problem = "something left at to"
        print(f"fault {what:28} {'ok' if not problem else 'DEFECT: ' + problem}: {event.get('reason')}")
        fault_bad += bool(problem)
    print("\nshapes (inputs):")
    for shape, n in sorted(shapes.items()):
        print(f"  {n:4}  {shape}")
    print("cases (mode layout size background):")
    for kind, n in sorted(kinds.items()):
        print(f"  {n:4}  {kind}")
    print("largest differences:", {k: round(float(v), 2) for k, v in stats.items()})
    print(f"{args.cases} cases, {failures} mismatched; {len(faults)} faults, {fault_bad} wrong; folder {folder}")
    if not args.keep and not failures:
        shutil.rmtree(folder)
    sys.exit(1 if failures or fault_bad else 0)


if __name__ == "__main__":
    main()

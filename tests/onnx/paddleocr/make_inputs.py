#!/usr/bin/python3
"""Renders a text line and preprocesses it exactly as PaddleOCR does for its two ONNX models, writing the
input tensors the PaddleOCR test (tests/onnx/paddleocr_test.cc) and make_reference.mjs use.

  /usr/bin/python3 tests/onnx/paddleocr/make_inputs.py     # rewrites tests/onnx/paddleocr/*_input.pb

Needs Debian's python3-pil, python3-numpy, python3-onnx (tools/setup.sh) and the DejaVu font. Noise would
give the detector an all-zero map, so the image is dark text on a light page:
  det: the page, resized to multiples of 32 (PaddleOCR's DetResizeForTest), /255, minus ImageNet mean
       [0.485, 0.456, 0.406], over std [0.229, 0.224, 0.225], HWC -> NCHW.
  cls: the cropped line, upright and turned 180 degrees (a batch of 2, so both classes appear), resized to
       height 48 keeping its aspect ratio (width capped at 192), (x/255 - 0.5)/0.5, zero-padded on the right
       to 3x48x192 (PaddleOCR's ClsResizeImg + its resize_norm_img).
"""
import math
import os

import numpy as np
from onnx import numpy_helper
from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
TEXT = "tinygrad-cc runs ONNX"
PAGE_W, PAGE_H = 300, 90  # resized to 288x96 for the detector


def render_page():
    page = Image.new("RGB", (PAGE_W, PAGE_H), (236, 232, 224))
    draw = ImageDraw.Draw(page)
    font = ImageFont.truetype(FONT, 30)
    draw.text((14, 26), TEXT, font=font, fill=(20, 24, 40))
    box = draw.textbbox((14, 26), TEXT, font=font)
    return page, box


def det_input(page):
    # DetResizeForTest (limit_type "max", limit_side_len 960): scale only when a side passes 960, then round
    # each side to a multiple of 32 (at least 32).
    w, h = page.size
    ratio = min(1.0, 960.0 / max(h, w))
    rh = max(int(round(h * ratio / 32) * 32), 32)
    rw = max(int(round(w * ratio / 32) * 32), 32)
    img = np.asarray(page.resize((rw, rh), Image.BILINEAR), dtype=np.float32) / 255.0
    mean = np.array([0.485, 0.456, 0.406], np.float32)
    std = np.array([0.229, 0.224, 0.225], np.float32)
    img = (img - mean) / std
    return img.transpose(2, 0, 1)[None].astype(np.float32)


def cls_one(crop):
    # ClsResizeImg / resize_norm_img with image_shape [3, 48, 192].
    c, h, w = 3, 48, 192
    ratio = crop.size[0] / float(crop.size[1])
    rw = min(w, int(math.ceil(h * ratio)))
    img = np.asarray(crop.resize((rw, h), Image.BILINEAR), dtype=np.float32)
    img = (img.transpose(2, 0, 1) / 255.0 - 0.5) / 0.5
    out = np.zeros((c, h, w), np.float32)
    out[:, :, :rw] = img
    return out


def main():
    page, (x0, y0, x1, y1) = render_page()
    crop = page.crop((x0 - 4, y0 - 4, x1 + 4, y1 + 4))
    tensors = {
        "det_input": det_input(page),
        "cls_input": np.stack([cls_one(crop), cls_one(crop.rotate(180))]),
    }
    for name, arr in tensors.items():
        proto = numpy_helper.from_array(arr, "x")
        with open(os.path.join(HERE, name + ".pb"), "wb") as f:
            f.write(proto.SerializeToString())
        print(name, arr.shape, arr.dtype, "min %.3f max %.3f" % (arr.min(), arr.max()))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the seed corpus of //tests/fuzzers:hostile_plugin_fuzzer: one script per hostile behaviour, in the byte
layout hostile_plugin_fuzzer.cc reads (GetApi, then Initialize, DeviceCount, DeviceOpen, DeviceProps in order).
  tests/fuzzers/make_plugin_seeds.py [OUT_DIR]   (default: tests/fuzzers/corpus/hostile_plugin_fuzzer)"""
import os
import sys

UNTERMINATED = 4  # Arena::String kind: kMaxPluginString bytes, no NUL
HOSTILE_NAME = 224 + UNTERMINATED  # Mostly(): >= 224 picks String(kind % 8)


def table(name=0, version=2, size_kind=0, gap=0):
    # null-api, struct_size kind, abi kind, abi_minor (4), name, version, has unavailable_reason, NULL gap
    return bytes([0, size_kind, 0, 0, 0, 0, 0, name, version, 0, gap])


def props(name=0, vendor=2, dialects=bytes([1, 200]), extra=0):
    # open ok, props ok, name, vendor, arch, fingerprint, global mem (U32 + shift), align, threads (U32),
    # vector width (U32), source_dialects list, binary_formats list (empty), device_type, bytes past struct_size
    return bytes([0, 0, name, vendor, 2, 2, 0, 0, 0, 1, 4, 1, 0, 0, 1, 0, 0, 0, 0, 4]) + dialects + \
        bytes([0, 2, extra])


ONE_DEVICE = bytes([0, 0, 1])  # initialize ok, device_count ok, kind 1 -> one device
SEEDS = {
    "one_device": table() + ONE_DEVICE + props(),
    "no_devices_unterminated_reason": table() + bytes([0, 0, 0, UNTERMINATED]),
    "unterminated_plugin_name": table(name=HOSTILE_NAME) + ONE_DEVICE,
    "unterminated_plugin_version": table(version=UNTERMINATED) + ONE_DEVICE,
    "short_table": table(size_kind=241),
    "null_required_function": table(gap=230),
    "initialize_fails_unterminated_message": table() + bytes([200, UNTERMINATED]),
    "initialize_fails_with_code_ok": table() + bytes([192, 2]),
    "huge_device_count": table() + bytes([0, 0, 255]),
    "props_unterminated_vendor": table() + ONE_DEVICE + props(vendor=UNTERMINATED),
    "props_huge_dialect_count": table() + ONE_DEVICE + props(dialects=bytes([130, 255, 255, 255, 255])),
    "props_null_dialects_with_count": table() + ONE_DEVICE + props(dialects=bytes([143, 0, 0, 0, 9])),
    "props_unterminated_dialect": table() + ONE_DEVICE + props(dialects=bytes([1, 0, UNTERMINATED])),
    "props_write_past_struct_size": table() + ONE_DEVICE + props(extra=255),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus",
                                                             "hostile_plugin_fuzzer")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

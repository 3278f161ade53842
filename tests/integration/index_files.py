"""A static copy's verifiable index as files (proto/PROTOCOL.md section 3.2,
"Index packs"), read from the directory with the Python standard library
alone: where the record of a key sits (its own file, or an item of a
pack), found by walking its route from the latest index note's root as a
reader does, for the tests that alter it.

    python3 index_files.py COPY KEY flip|cut34|show

flip: the record's last byte changed; cut34: its last 34 bytes dropped (a
selection page's last item); show: prints where it is; check: exits 1
unless the record read there hashes to its leaf's value hash (KEY may be
several, comma-separated). Exits 1 when the copy holds no such key."""
import base64
import glob
import hashlib
import os
import sys

LOC = 13


def tile_len(b):
    n = bin(b[0] << 8 | b[1]).count("1")
    t = 2 + 65 * n
    assert t <= len(b) and (len(b) - t) % LOC == 0, "not a tile with locators"
    return t


def locator(b, what):
    for i in range(tile_len(b), len(b), LOC):
        if b[i] == what:
            return "index/pack/%d.%d" % (int.from_bytes(b[i + 1:i + 9], "big"),
                                         int.from_bytes(b[i + 9:i + 13], "big"))
    return None


def pack_items(data):
    at = 0
    while at < len(data):
        n = int.from_bytes(data[at + 1:at + 5], "big")
        yield data[at], at, at + 5, n
        at += 5 + n


def slot_record(tile, slot):
    bits = tile[0] << 8 | tile[1]
    if not bits & (0x8000 >> slot):
        return None
    n = bin(bits >> (16 - slot)).count("1") if slot else 0
    return tile[2 + 65 * n:2 + 65 * (n + 1)]


def tile_slot(depth, path):
    s, l = depth >> 2, depth & 3
    if l == 0:
        return 0
    nib = path[s >> 1] & 15 if s % 2 else path[s >> 1] >> 4
    return (1 << l) - 1 + (nib >> (4 - l))


def tile_key(s, path):
    nb = (s + 1) >> 1
    k = bytearray([s]) + bytearray(path[:nb])
    if s % 2:
        k[nb] &= 0xF0
    return bytes(k)


def latest_root(copy):
    notes = glob.glob(copy + "/index/notes/*")
    size = max(int(os.path.basename(n)) for n in notes)
    text = open("%s/index/notes/%d" % (copy, size)).read()
    line = [l for l in text.splitlines() if l.startswith("index ")][0]
    return base64.b64decode(line[6:])


def unlean(b):
    """A lean tile (pack item kind 3) whole, its locators after it."""
    bits, at, recs = b[0] << 8 | b[1], 2, {}
    for i in range(15):
        if bits & (0x8000 >> i):
            n = 1 if i < 7 and b[at] == 3 else 65
            recs[i], at = b[at:at + n], at + n
    for i in range(6, -1, -1):
        if i in recs and len(recs[i]) == 1:
            recs[i] = b"\x03" + b"".join(hashlib.sha256(recs[c]).digest() if c in recs else bytes(32)
                                         for c in (2 * i + 1, 2 * i + 2))
    return b[:2] + b"".join(recs[i] for i in sorted(recs)) + b[at:]


def find_tile(copy, key, top, packed):
    if packed is None:
        return open("%s/index/tile/%s/%s" % (copy, key.hex(), top.hex()), "rb").read()
    data = open(copy + "/" + packed, "rb").read()
    for kind, _, body, n in pack_items(data):
        b = data[body:body + n]
        if kind in (1, 3) and b[0] == len(key) and b[1:1 + len(key)] == key:
            t = b[1 + len(key):] if kind == 1 else unlean(b[1 + len(key):])
            if hashlib.sha256(slot_record(t, 0)).digest() == top:
                return t
    raise SystemExit("the pack %s holds no tile %s" % (packed, key.hex()))


def locate(copy, key, vh_out=None):
    """(file, offset, length, item offset or None) of key's record."""
    path = hashlib.sha256(key.encode()).digest()
    want = latest_root(copy)
    tile = find_tile(copy, tile_key(0, path), want, None)
    depth = 0
    while True:
        rec = slot_record(tile, tile_slot(depth, path))
        if rec[0] == 2:
            break
        b = path[depth >> 3] >> (7 - (depth & 7)) & 1
        want = rec[1 + 32 * b:33 + 32 * b]
        if want == bytes(32):
            return None
        depth += 1
        if depth % 4 == 0:
            s = depth >> 2
            nib = path[(s - 1) >> 1] & 15 if (s - 1) % 2 else path[(s - 1) >> 1] >> 4
            tile = find_tile(copy, tile_key(s, path), want, locator(tile, nib))
    if rec[1:33] != path:
        return None
    vh = rec[33:65]
    if vh_out is not None:
        vh_out.append(vh)
    packed = locator(tile, 16 + tile_slot(depth, path))
    if packed is None:
        f = "%s/index/value/%s@%s" % (copy, key, vh.hex())
        return f, 0, os.path.getsize(f), None
    data = open(copy + "/" + packed, "rb").read()
    for kind, item, body, n in pack_items(data):
        if kind == 2 and data[body:body + 32] == vh:
            return copy + "/" + packed, body + 32, n - 32, item
    raise SystemExit("the pack %s holds no record of %s" % (packed, key))


def rewrite(copy, key, fn):
    f, off, n, item = locate(copy, key)
    data = bytearray(open(f, "rb").read())
    new = fn(bytes(data[off:off + n]))
    data[off:off + n] = new
    if item is not None:  # the pack item's length
        data[item + 1:item + 5] = (int.from_bytes(data[item + 1:item + 5], "big") - n +
                                   len(new)).to_bytes(4, "big")
    open(f, "wb").write(data)


def check(copy, key):
    vh = []
    at = locate(copy, key, vh)
    if at is None:
        sys.exit("the copy's index holds no %s" % key)
    f, off, n, _ = at
    if hashlib.sha256(open(f, "rb").read()[off:off + n]).digest() != vh[0]:
        sys.exit("the record of %s in %s does not hash to its leaf's value hash" % (key, f))


if __name__ == "__main__":
    copy, key, how = sys.argv[1:4]
    if how == "check":
        for k in key.split(","):
            check(copy, k)
        sys.exit(0)
    if locate(copy, key) is None:
        sys.exit("the copy's index holds no %s" % key)
    if how == "flip":
        rewrite(copy, key, lambda b: b[:-1] + bytes([b[-1] ^ 1]))
    elif how == "cut34":
        rewrite(copy, key, lambda b: b[:-34])
    else:
        print(locate(copy, key))

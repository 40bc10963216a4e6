#!/usr/bin/env python3
# Writes the seed corpus of the h2_worker harness (fuzz/corpus/h2_worker/, committed): a hostile
# HTTP/2 server's frames as fuzz/h2_worker_fuzz.cc reads them. Byte 0: how the server plays them
# (bits 0-4 piece size, 0: a frame a piece; bit 5 long gaps; bit 6 close after the last piece);
# byte 1: the load (bit 0 open loop, bit 1 two connections, bit 2 --stream sse); then the frames,
# from the server's SETTINGS on. The client's first requests are streams 1, 3, 5 and 7 (4 slots).
# Run it again after changing it: python3 fuzz/corpus/h2_worker.py
import os
import struct

DATA, HEADERS, RST_STREAM, SETTINGS, PUSH_PROMISE, GOAWAY, WINDOW_UPDATE, CONTINUATION = (
    0, 1, 3, 4, 5, 7, 8, 9)
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4
PROTOCOL_ERROR, INTERNAL_ERROR, REFUSED_STREAM, CANCEL = 1, 2, 7, 8
CLOSE, LONG_GAPS = 0x40, 0x20
OPEN_LOOP, TWO_CONNECTIONS, SSE = 1, 2, 4


def frame(kind, flags, stream, payload=b"", length=None):
    n = len(payload) if length is None else length
    return struct.pack(">I", n)[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def settings(**values):
    ids = {"max_concurrent_streams": 3, "initial_window_size": 4, "max_frame_size": 5}
    return frame(SETTINGS, 0, 0, b"".join(struct.pack(">HI", ids[k], v) for k, v in values.items()))


def literal(index, value):  # a literal header field without indexing, its name from the table
    name = bytes([index]) if index < 15 else bytes([15, index - 15])
    return name + bytes([len(value)]) + value


def status(code):  # :status (static index 8)
    return literal(8, str(code).encode()) if isinstance(code, int) else literal(8, code)


def content_length(n):  # content-length (static index 28)
    return literal(28, str(n).encode())


def response(stream, body=b"ok", code=200, length=True):
    block = status(code) + (content_length(len(body)) if length else b"")
    return frame(HEADERS, END_HEADERS, stream, block) + frame(DATA, END_STREAM, stream, body)


START = settings(max_concurrent_streams=100) + frame(SETTINGS, ACK, 0)
FIRST = (1, 3, 5, 7)
NEXT = (9, 11, 13, 15)
SEEDS = {}

SEEDS["ok"] = bytes([0, 0]) + START + b"".join(response(s) for s in FIRST + NEXT)
SEEDS["ok_close"] = bytes([CLOSE, 0]) + START + b"".join(response(s) for s in FIRST)
SEEDS["ok_in_7_byte_pieces"] = bytes([7, TWO_CONNECTIONS]) + START + b"".join(
    response(s) for s in FIRST)
SEEDS["ok_open_loop"] = bytes([LONG_GAPS, OPEN_LOOP]) + START + b"".join(
    response(s) for s in (1, 3, 5, 7, 9, 11, 13, 15, 17, 19))
SEEDS["ok_sse"] = bytes([0, SSE]) + START + b"".join(
    response(s, b"data: a\n\ndata: [DONE]\n\n", length=False) for s in FIRST)
SEEDS["sse_cut_short"] = bytes([LONG_GAPS | CLOSE, SSE]) + START + b"".join(
    frame(HEADERS, END_HEADERS, s, status(200)) + frame(DATA, 0, s, b"data: a\n\n") for s in FIRST)

# DATA beyond the content-length it announced (and short of it, on stream 3).
SEEDS["data_beyond_content_length"] = bytes([0, 0]) + START + (
    frame(HEADERS, END_HEADERS, 1, status(200) + content_length(2)) +
    frame(DATA, 0, 1, b"ok") + frame(DATA, END_STREAM, 1, b"and more") +
    frame(HEADERS, END_HEADERS, 3, status(200) + content_length(10)) +
    frame(DATA, END_STREAM, 3, b"ok") + response(5) + response(7))

# A :status that is not three digits, one out of range, none, and two.
SEEDS["bad_status"] = bytes([0, 0]) + START + (
    frame(HEADERS, END_HEADERS | END_STREAM, 1, status(b"abc")) +
    frame(HEADERS, END_HEADERS | END_STREAM, 3, status(b"99")) +
    frame(HEADERS, END_HEADERS | END_STREAM, 5, content_length(0)) +
    frame(HEADERS, END_HEADERS | END_STREAM, 7, status(200) + status(204)))

# An HPACK bomb: one 4,000-byte value in the dynamic table, then referred to 3,000 times
# (12 MB of header fields from 3 KB), across HEADERS and CONTINUATION frames.
value = b"v" * 4000
insert = bytes([0x40, 4]) + b"bomb" + bytes([0x7F]) + bytes(
    [((4000 - 127) & 0x7F) | 0x80, (4000 - 127) >> 7]) + value
refs = bytes([0x80 | 62]) * 3000
SEEDS["hpack_bomb"] = bytes([0, 0]) + START + (
    frame(HEADERS, 0, 1, status(200) + insert + refs[:1000]) +
    frame(CONTINUATION, 0, 1, refs[1000:2000]) +
    frame(CONTINUATION, END_HEADERS, 1, refs[2000:]) + response(3))

# Interim (1xx) responses without end on one stream, then its final response.
SEEDS["interim_flood"] = bytes([0, 0]) + START + b"".join(
    frame(HEADERS, END_HEADERS, 1, status(100 if i % 2 else 103)) for i in range(250)) + (
    response(1) + response(3))

# A frame past the client's SETTINGS_MAX_FRAME_SIZE (16,384), and one of the largest length.
SEEDS["oversized_frame"] = bytes([0, 0]) + START + response(1) + frame(
    DATA, 0, 3, b"x" * 64, length=16385)
SEEDS["oversized_header_frame"] = bytes([0, 0]) + START + frame(
    HEADERS, END_HEADERS, 1, status(200), length=0xFFFFFF)

# WINDOW_UPDATE past 2^31 - 1, on the connection and on a stream; and an increment of 0.
SEEDS["window_update_overflow"] = bytes([0, 0]) + START + (
    frame(WINDOW_UPDATE, 0, 1, struct.pack(">I", 0x7FFFFFFF)) + response(3) +
    frame(WINDOW_UPDATE, 0, 5, struct.pack(">I", 0)) + response(7) +
    frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 0x7FFFFFFF)) + response(9))

# A PUSH_PROMISE (the client said SETTINGS_ENABLE_PUSH 0).
SEEDS["push_promise"] = bytes([0, 0]) + START + (
    frame(HEADERS, END_HEADERS, 1, status(200)) +
    frame(PUSH_PROMISE, END_HEADERS, 1, struct.pack(">I", 2) + bytes([0x82, 0x84, 0x86])) +
    frame(DATA, END_STREAM, 1, b"ok") + response(3))

# A response on an even (server-initiated) stream id, and on one never opened.
SEEDS["even_stream_id"] = bytes([0, 0]) + START + response(2) + response(1)
SEEDS["unopened_stream_id"] = bytes([0, 0]) + START + response(1) + response(101)

# RST_STREAM: before the response, refused, after its headers, and on stream 0.
SEEDS["rst_stream"] = bytes([0, 0]) + START + (
    frame(RST_STREAM, 0, 1, struct.pack(">I", CANCEL)) +
    frame(RST_STREAM, 0, 3, struct.pack(">I", REFUSED_STREAM)) +
    frame(HEADERS, END_HEADERS, 5, status(200)) +
    frame(RST_STREAM, 0, 5, struct.pack(">I", INTERNAL_ERROR)) + response(7) +
    frame(RST_STREAM, 0, 9, struct.pack(">I", CANCEL)) + response(11) +
    frame(RST_STREAM, 0, 0, struct.pack(">I", PROTOCOL_ERROR)))

# GOAWAY: streams up to 3 processed (5 and 7 refused), then the server closes; and a GOAWAY
# that refuses every stream and leaves the connection open.
SEEDS["goaway"] = bytes([CLOSE, 0]) + START + (
    response(1) + frame(GOAWAY, 0, 0, struct.pack(">II", 3, 0)) + response(3))
SEEDS["goaway_refuses_all"] = bytes([0, TWO_CONNECTIONS]) + START + frame(
    GOAWAY, 0, 0, struct.pack(">II", 0, INTERNAL_ERROR) + b"bye")

# No SETTINGS at all: the link never becomes ready (the connect timeout ends it).
SEEDS["no_settings"] = bytes([CLOSE | LONG_GAPS, 0]) + response(1)
# SETTINGS that allow no stream, then one that allows one.
SEEDS["settings_no_streams"] = bytes([LONG_GAPS, 0]) + settings(max_concurrent_streams=0) + (
    settings(max_concurrent_streams=1) + response(1) + response(3))

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "h2_worker")
os.makedirs(here, exist_ok=True)
for name, seed in SEEDS.items():
    with open(os.path.join(here, name), "wb") as out:
        out.write(seed)

"""JSON-RPC framing on lintel's relay connections: reading and encoding Content-Length framed messages, and
writes coalesced per event-loop turn."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lintel.runtime.wire import BatchWriter, MessageReader, encode


def read_all(*chunks: bytes, eof: bool = True) -> tuple[list[bytes], MessageReader]:
    """The message bodies a MessageReader hands on for these chunks, fed as a pipe would."""
    bodies: list[bytes] = []
    reader = MessageReader(bodies.append, "test")
    for chunk in chunks:
        reader.data_received(chunk)
    if eof:
        reader.connection_lost(None)
    return bodies, reader


def frame(body: bytes, *headers: bytes) -> bytes:
    return b"".join(headers) + b"Content-Length: %d\r\n\r\n" % len(body) + body


async def next_turn() -> None:
    """Return once the callbacks scheduled so far (a BatchWriter's flush) have run."""
    loop = asyncio.get_running_loop()
    turned = loop.create_future()
    loop.call_soon(turned.set_result, None)
    await turned


# -- framing ----------------------------------------------------------------------------------------------


async def test_encoded_messages_read_back_in_order_non_ascii_included() -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {"text": "é🍰 名前"}},
        {"jsonrpc": "2.0", "id": "two", "result": None},
        {"jsonrpc": "2.0", "method": "x", "params": {"s": "a\r\nb\u2028c"}},
    ]
    encoded = [encode(m) for m in messages]
    for data in encoded:
        header, _, body = data.partition(b"\r\n\r\n")
        assert header == b"Content-Length: %d" % len(body)  # bytes, not characters
        body.decode("utf-8")  # UTF-8, LSP's content type
    # The whole stream arriving in pieces split inside a header and inside a body.
    whole = b"".join(encoded)
    bodies, reader = read_all(whole[:7], whole[7:40], whole[40:])
    assert [json.loads(b) for b in bodies] == messages
    assert reader.done.done()


async def test_other_headers_are_skipped_and_the_name_is_case_insensitive() -> None:
    bodies, _ = read_all(
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:  8 \r\n\r\n" + b'{"id":1}',
        b"Content-Length: 8\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n" + b'{"id":2}',
        b"Content-Length: 8\n\n" + b'{"id":3}',  # bare newlines, as some servers write them
    )
    assert bodies == [b'{"id":1}', b'{"id":2}', b'{"id":3}']


@pytest.mark.parametrize(
    "bad_headers",
    [
        pytest.param(b"Content-Length: twelve\r\n\r\n", id="not-a-number"),
        pytest.param(b"Content-Length: -3\r\n\r\n", id="negative"),
        pytest.param(b"Content-Type: application/json\r\n\r\n", id="missing"),
        pytest.param(b"garbage without a colon\r\n\r\n", id="garbage"),
    ],
)
async def test_a_header_block_without_a_valid_length_is_skipped_and_logged(
    bad_headers: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="lintel.runtime.wire"):
        bodies, _ = read_all(bad_headers, frame(b'{"id":"good"}'))
    assert bodies == [b'{"id":"good"}']
    assert any("Content-Length" in r.getMessage() for r in caplog.records), caplog.text


async def test_end_of_input_in_the_headers_or_the_body_is_the_end() -> None:
    assert read_all()[0] == []
    assert read_all(b"Content-Length: 10\r\n")[0] == []
    bodies, reader = read_all(frame(b'{"id":1}'), b"Content-Length: 100\r\n\r\n" + b'{"id":2, "trunc')
    assert bodies == [b'{"id":1}']
    assert reader.done.done()


async def test_a_body_arriving_later_is_waited_for() -> None:
    bodies, reader = read_all(b"Content-Length: 8\r\n\r\n" + b'{"id"', eof=False)
    assert bodies == []
    assert not reader.done.done()
    reader.data_received(b":1}")
    assert bodies == [b'{"id":1}']


async def test_a_failing_handler_is_logged_and_the_next_message_still_read(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[bytes] = []

    def handle(body: bytes) -> None:
        seen.append(body)
        if body == b'{"id":1}':
            raise ValueError("boom")

    reader = MessageReader(handle, "test")
    with caplog.at_level(logging.ERROR, logger="lintel.runtime.wire"):
        reader.data_received(frame(b'{"id":1}') + frame(b'{"id":2}'))
    assert seen == [b'{"id":1}', b'{"id":2}']
    assert "boom" in caplog.text


# -- BatchWriter ------------------------------------------------------------------------------------------


class Sink:
    def __init__(self, fail_with: type[OSError] | None = None) -> None:
        self.calls: list[bytes] = []
        self.fail_with = fail_with

    def __call__(self, data: bytes) -> None:
        self.calls.append(data)
        if self.fail_with is not None:
            raise self.fail_with("the other end is gone")


async def test_writes_in_one_turn_are_one_sink_call_in_order() -> None:
    sink = Sink()
    writer = BatchWriter(sink, "test")
    writer.write(b"one ")
    writer.write(b"two ")
    writer.write(b"three")
    assert sink.calls == []  # not before the end of the turn
    await next_turn()
    assert sink.calls == [b"one two three"]


async def test_writes_in_two_turns_are_two_sink_calls() -> None:
    sink = Sink()
    writer = BatchWriter(sink, "test")
    writer.write(b"a")
    writer.write(b"b")
    await next_turn()
    writer.write(b"c")
    await next_turn()
    assert sink.calls == [b"ab", b"c"]
    await next_turn()
    assert sink.calls == [b"ab", b"c"]  # nothing written twice, no empty write


def test_outside_an_event_loop_each_write_goes_at_once() -> None:
    sink = Sink()
    writer = BatchWriter(sink, "test")
    writer.write(b"first")
    assert sink.calls == [b"first"]
    writer.write(b"second")
    assert sink.calls == [b"first", b"second"]


@pytest.mark.parametrize("lost", [BrokenPipeError, ConnectionResetError])
async def test_a_lost_connection_closes_the_writer_and_later_writes_are_dropped(
    lost: type[OSError], caplog: pytest.LogCaptureFixture
) -> None:
    sink = Sink(fail_with=lost)
    writer = BatchWriter(sink, "the editor")
    writer.write(b"x")
    with caplog.at_level(logging.ERROR, logger="lintel.runtime.wire"):
        await next_turn()  # the flush meets the broken pipe: logged, not raised
    assert writer.closed
    assert "the editor" in caplog.text
    writer.write(b"y")
    await next_turn()
    writer.close()
    assert sink.calls == [b"x"]


async def test_another_os_error_is_logged_and_the_writer_stays_open() -> None:
    sink = Sink(fail_with=OSError)
    writer = BatchWriter(sink, "test")
    writer.write(b"x")
    await next_turn()
    assert not writer.closed
    sink.fail_with = None
    writer.write(b"y")
    await next_turn()
    assert sink.calls == [b"x", b"y"]


async def test_close_flushes_what_is_pending_then_drops_the_rest() -> None:
    sink = Sink()
    writer = BatchWriter(sink, "test")
    writer.write(b"pending ")
    writer.write(b"too")
    writer.close()
    assert sink.calls == [b"pending too"]
    assert writer.closed
    writer.write(b"late")
    await next_turn()
    assert sink.calls == [b"pending too"]


async def test_encoded_messages_through_a_writer_read_back() -> None:
    received: list[bytes] = []
    reader = MessageReader(received.append, "pipe")
    writer = BatchWriter(reader.data_received, "pipe")
    messages = [{"id": n, "text": "é" * n} for n in range(5)]
    for message in messages:
        writer.write(encode(message))
    await next_turn()
    assert [json.loads(body) for body in received] == messages


GOOD = [b'{"jsonrpc":"2.0","id":%d,"method":"lintel/ping"}' % n for n in range(8)]
BODY = b'{"jsonrpc":"2.0","id":"bad","method":"x"}'


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(b"Content-Length: -5\r\n\r\n" + BODY, id="negative"),
        pytest.param(b"Content-Length: abc\r\n\r\n" + BODY, id="not-a-number"),
        pytest.param(b"\r\n\r\n" + BODY, id="no-content-length"),
        pytest.param(b"Content-Length: 0\r\n\r\n" + BODY, id="zero-plus-a-body"),
        pytest.param(b"Content-Length: %d\r\n\r\n" % (len(BODY) + 40) + BODY, id="40-too-long"),
        pytest.param(b"Content-Length: %d\r\n\r\n" % (len(BODY) - 5) + BODY, id="5-too-short"),
        pytest.param(b"\x00\xff garbage " * 100, id="binary-garbage"),
    ],
)
@pytest.mark.parametrize("split", [None, 3, 17])
async def test_one_bad_frame_does_not_wedge_the_connection(bad: bytes, split: int | None) -> None:
    """After any of these frames the next 8 valid requests went unanswered (their bytes were glued
    onto the bad frame's leftovers). Every valid message after it is read, however the bytes arrive."""
    stream = bad + b"".join(frame(body) for body in GOOD)
    chunks = [stream] if split is None else [stream[i : i + split] for i in range(0, len(stream), split)]
    bodies, _ = read_all(*chunks)
    assert [b for b in bodies if b in GOOD] == GOOD


@given(
    st.lists(st.binary(max_size=60).filter(lambda b: b"ontent" not in b.lower()), min_size=1, max_size=6),
    st.integers(min_value=1, max_value=64),
)
def test_garbage_between_frames_never_costs_the_frames_after_it(garbage: list[bytes], split: int) -> None:
    async def run() -> list[bytes]:
        stream = b"".join(g + frame(body) for g, body in zip(garbage, GOOD, strict=False))
        return read_all(*(stream[i : i + split] for i in range(0, len(stream), split)))[0]

    bodies = asyncio.run(run())
    assert [b for b in bodies if b in GOOD] == GOOD[: len(garbage)]

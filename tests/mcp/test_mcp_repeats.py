"""The repeated-error filter of the HTTP server's logs: the first record whole, then one line per interval with a count."""

from __future__ import annotations

import errno
import io
import logging

from lackpy.mcp.repeats import LOGGERS, Repeats, install


class Clock:
    """A settable clock: the interval is the filter's logic under test, not the machine's speed."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _logger(name: str, repeats: Repeats) -> tuple[logging.Logger, io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger(name)
    logger.handlers, logger.propagate = [handler], False
    logger.filters = [repeats]
    return logger, stream


def _accept_failed(logger: logging.Logger) -> None:
    try:
        raise OSError(errno.EMFILE, "Too many open files")
    except OSError as exc:
        logger.error("socket.accept() out of system resource\nsocket: <listening>", exc_info=exc)


def test_one_traceback_then_one_line_per_interval_with_the_count():
    clock = Clock()
    logger, stream = _logger("lackpy.test.repeats", Repeats(10.0, clock))
    _accept_failed(logger)
    first = stream.getvalue()
    assert "Traceback" in first and "socket.accept() out of system resource" in first
    for _ in range(1234):
        clock.now += 0.005
        _accept_failed(logger)
    assert stream.getvalue() == first  # 6.17 s later: nothing more
    clock.now += 5
    _accept_failed(logger)
    later = stream.getvalue()[len(first):]
    assert later == "socket.accept() out of system resource: [Errno 24] Too many open files (repeated 1,234 times in the last 11 s)\n"
    clock.now += 10.5
    _accept_failed(logger)
    assert stream.getvalue()[len(first) + len(later):] == "socket.accept() out of system resource: [Errno 24] Too many open files\n"


def test_different_errors_are_counted_apart():
    clock = Clock()
    logger, stream = _logger("lackpy.test.repeats2", Repeats(10.0, clock))
    logger.warning("Invalid HTTP request received.")
    logger.warning("Invalid HTTP request received.")
    _accept_failed(logger)
    _accept_failed(logger)
    text = stream.getvalue()
    assert text.count("Invalid HTTP request received.") == 1 and text.count("socket.accept()") == 1


def test_install_puts_the_filter_on_the_server_loggers():
    repeats = install()
    try:
        assert all(repeats in logging.getLogger(name).filters for name in LOGGERS)
    finally:
        for name in LOGGERS:
            logging.getLogger(name).removeFilter(repeats)

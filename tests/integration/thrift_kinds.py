"""The transports and protocols a router port serves, as Python's Thrift
library makes them, for the integration clients (hbase_transports_client.py
and the every-method clients).

A router port (the Thrift2 one and the Thrift1 one alike) tells the kinds
apart per connection from its first bytes: the buffered and framed
transports and HTTP POST, each with the binary protocol (strict writes or
not) and the compact protocol.
"""

import http.client
import io
import sys

from thrift.protocol import TBinaryProtocol, TCompactProtocol
from thrift.transport import THttpClient, TSocket, TTransport

# (name, transport, protocol): transport "buffered", "framed" or "http";
# protocol "binary" (strict writes), "nonstrict" (TBinaryProtocol with
# strictWrite=False) or "compact".
KINDS = [(f"{t}+{p}", t, p)
         for t in ("buffered", "framed", "http")
         for p in ("binary", "nonstrict", "compact")]


class KeepAliveHttp(TTransport.TTransportBase):
    """THttpClient's wire format over one kept-alive HTTP connection (Python's
    THttpClient opens a connection per call; Java's and others keep one)."""

    def __init__(self, host, port, timeout_s):
        self._connection = http.client.HTTPConnection(host, port,
                                                      timeout=timeout_s)
        self._wbuf = io.BytesIO()
        self._rbuf = io.BytesIO()

    def isOpen(self):
        return True

    def open(self):
        pass

    def close(self):
        self._connection.close()

    def read(self, sz):
        return self._rbuf.read(sz)

    def write(self, buf):
        self._wbuf.write(buf)

    def flush(self):
        body = self._wbuf.getvalue()
        self._wbuf = io.BytesIO()
        self._connection.request("POST", "/", body, {
            "Content-Type": "application/x-thrift"})
        reply = self._connection.getresponse()
        data = reply.read()
        if reply.status != 200:
            raise TTransport.TTransportException(
                message=f"HTTP {reply.status} {reply.reason}")
        self._rbuf = io.BytesIO(data)


def open_protocol(address, transport_kind, protocol_kind, keep_alive=False,
                  timeout_s=20):
    """An open transport of `address` ("HOST:PORT") and its protocol."""
    host, port = address.rsplit(":", 1)
    if transport_kind == "http":
        transport = (KeepAliveHttp(host, int(port), timeout_s) if keep_alive
                     else THttpClient.THttpClient(f"http://{host}:{port}/"))
    else:
        socket = TSocket.TSocket(host, int(port))
        socket.setTimeout(timeout_s * 1000)
        transport = (TTransport.TFramedTransport(socket)
                     if transport_kind == "framed"
                     else TTransport.TBufferedTransport(socket))
    if protocol_kind == "compact":
        protocol = TCompactProtocol.TCompactProtocol(transport)
    else:
        protocol = TBinaryProtocol.TBinaryProtocol(
            transport, strictRead=False,
            strictWrite=protocol_kind == "binary")
    transport.open()
    return protocol, transport


def run_every_kind(address, run_kind, methods, failure_type):
    """Runs `run_kind(address, name, transport_kind, protocol_kind)` for each
    kind; it returns the set of methods it called or raises `failure_type`
    (with .method and .what). Prints "<kind>: ok" per kind and returns 0, or
    names the first failure (or a method of `methods` never called) on
    standard error and returns 1."""
    for name, transport_kind, protocol_kind in KINDS:
        try:
            called = run_kind(address, name, transport_kind, protocol_kind)
        except failure_type as e:
            print(f"{name}: {e.method} failed: {e.what}", file=sys.stderr)
            return 1
        missing = sorted(set(methods) - called)
        if missing:
            print(f"{name}: methods not called: {' '.join(missing)}",
                  file=sys.stderr)
            return 1
        print(f"{name}: ok")
    return 0

#!/usr/bin/python3
"""HBase Thrift2 calls over every transport and protocol a router serves.

HBase's own Thrift2 server takes the buffered transport by default, and
framed, compact and HTTP when configured; an HBase client is configured to
match. The router chooses per connection, from its first bytes, so each of
these clients must work against the same port unchanged: it asks the
server's type, checks that the table exists, puts a row and gets it back.

    PYTHONPATH=build/python /usr/bin/python3 \
        tests/integration/hbase_transports_client.py --router 127.0.0.1:9090

Prints one line per kind ("framed+binary: ok") and exits 0, or names the
first kind that failed and exits 1.
"""

import argparse
import sys

from bloomroute.rpc.hbase_service import THBaseService
from bloomroute.rpc.hbase_service.ttypes import (
    TColumnFamilyDescriptor, TColumnValue, TGet, TPut, TTableDescriptor,
    TTableName, TThriftServerType)
from thrift_kinds import KINDS, open_protocol

TABLE = b"transports"


def connect(address, transport_kind, protocol_kind):
    """An open THBaseService client and its transport."""
    protocol, transport = open_protocol(address, transport_kind,
                                        protocol_kind, timeout_s=10)
    return THBaseService.Client(protocol), transport


def exercise(client, name):
    """The calls each kind makes; raises AssertionError on a wrong answer."""
    assert client.getThriftServerType() == TThriftServerType.TWO
    assert client.tableExists(TTableName(qualifier=TABLE))
    row = name.encode()
    value = ("value of " + name).encode() * 50  # a few KB: several reads
    client.put(TABLE, TPut(row=row, columnValues=[
        TColumnValue(family=b"d", qualifier=b"q", value=value)]))
    result = client.get(TABLE, TGet(row=row))
    assert result.row == row, result
    assert [c.value for c in result.columnValues] == [value], result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--router", required=True, help="HOST:PORT")
    args = parser.parse_args()
    client, transport = connect(args.router, "framed", "binary")
    name = TTableName(qualifier=TABLE)
    if not client.tableExists(name):
        client.createTable(TTableDescriptor(
            tableName=name, columns=[TColumnFamilyDescriptor(name=b"d")]), [])
    transport.close()

    for name, transport_kind, protocol_kind in KINDS:
        try:
            client, transport = connect(args.router, transport_kind,
                                        protocol_kind)
            exercise(client, name)
            exercise(client, name)  # a second call on the same connection
            transport.close()
        except Exception as e:  # pylint: disable=broad-except
            print(f"{name}: failed: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
        print(f"{name}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

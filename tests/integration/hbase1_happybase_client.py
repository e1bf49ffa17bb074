#!/usr/bin/python3
"""A happybase-style session over HBase's Thrift1 API (service Hbase).

happybase speaks Thrift1 with the buffered transport and the binary protocol
by default, and framed and compact when configured. For each of those two
kinds this makes the calls a happybase program makes (Connection.create_table,
Table.batch, Table.scan with a filter, Table.rows, Table.counter_inc,
Table.delete) against the router's Thrift1 port, with the Python code
generated from thrift/hbase1_service.thrift. The table's country column is
indexed (addIndex on the router's own port), so the filtered scan pins an
indexed column.

    PYTHONPATH=build/python /usr/bin/python3 \\
        tests/integration/hbase1_happybase_client.py \\
        --thrift1 127.0.0.1:9095 --router 127.0.0.1:9090

Prints one line per kind ("buffered+binary: ok") and exits 0, or names the
first kind that failed and why and exits 1.
"""

import argparse
import sys
import time

from thrift.protocol import TBinaryProtocol, TCompactProtocol
from thrift.transport import TSocket, TTransport

from bloomroute.rpc.hbase1 import Hbase
from bloomroute.rpc.hbase1.ttypes import (
    BatchMutation, ColumnDescriptor, IllegalArgument, IOError as Hbase1IOError,
    Mutation, TScan, TThriftServerType)
from bloomroute.rpc.router_service import RouterService

KINDS = [("buffered+binary", "buffered", "binary"),
         ("framed+compact", "framed", "compact")]

CITIES = [(b"bergen", b"NO", b"Bergen"), (b"lyon", b"FR", b"Lyon"),
          (b"oslo", b"NO", b"Oslo"), (b"stockholm", b"SE", b"Stockholm"),
          (b"tromso", b"NO", b"Troms\xc3\xb8"), (b"umea", b"SE", b"Ume\xc3\xa5")]


def open_transport(address, transport_kind, protocol_kind):
    host, port = address.rsplit(":", 1)
    socket = TSocket.TSocket(host, int(port))
    socket.setTimeout(20000)
    transport = (TTransport.TFramedTransport(socket)
                 if transport_kind == "framed"
                 else TTransport.TBufferedTransport(socket))
    protocol = (TCompactProtocol.TCompactProtocol(transport)
                if protocol_kind == "compact"
                else TBinaryProtocol.TBinaryProtocol(transport))
    transport.open()
    return protocol, transport


def add_index(router, table, column):
    """addIndex on the router's port, then waits until it is ready."""
    protocol, transport = open_transport(router, "framed", "binary")
    try:
        admin = RouterService.Client(protocol)
        admin.addIndex(table.decode(), column)
        deadline = time.time() + 30
        while time.time() < deadline:
            states = [s.state for s in admin.getIndexStatus(table.decode())]
            if states == ["ready"]:
                return
            time.sleep(0.05)
        raise AssertionError(f"index {column} not ready: {states}")
    finally:
        transport.close()


def scan(client, table, tscan):
    """Every row of a scanner, as happybase's Table.scan reads them."""
    scanner = client.scannerOpenWithScan(table, tscan, {})
    rows = []
    try:
        while True:
            batch = client.scannerGetList(scanner, 2)
            if not batch:
                return rows
            rows.extend(batch)
    finally:
        client.scannerClose(scanner)


def session(client, table, router):
    """The calls; raises AssertionError on a wrong answer."""
    kind = client.getThriftServerType()
    assert kind == TThriftServerType.ONE, kind
    client.createTable(table, [ColumnDescriptor(name=b"d:", maxVersions=1)])
    names = client.getTableNames()
    assert table in names, names
    add_index(router, table, b"d:cc")
    # Table.batch(): one mutateRows of every row.
    client.mutateRows(table, [
        BatchMutation(row=key, mutations=[
            Mutation(column=b"d:cc", value=cc),
            Mutation(column=b"d:name", value=name)])
        for key, cc, name in CITIES], {})
    # Table.scan(filter=...) on the indexed column (the filtered column must
    # be read: as in HBase, a projection without it filters every row out).
    found = scan(client, table, TScan(
        columns=[b"d"], caching=100,
        filterString=b"SingleColumnValueFilter('d', 'cc', =, "
                     b"'binary:NO', true, true)"))
    got = [(r.row, r.columns[b"d:name"].value) for r in found]
    want = [(key, name) for key, cc, name in CITIES if cc == b"NO"]
    assert got == want, got
    # Table.rows(): the rows that exist, in the order asked.
    rows = client.getRows(table, [b"umea", b"nowhere", b"lyon"], {})
    assert [r.row for r in rows] == [b"umea", b"lyon"], rows
    assert rows[0].columns[b"d:cc"].value == b"SE", rows
    # Table.counter_inc().
    visits = client.atomicIncrement(table, b"oslo", b"d:visits", 1)
    assert visits == 1, visits
    visits = client.atomicIncrement(table, b"oslo", b"d:visits", 2)
    assert visits == 3, visits
    # Table.delete(row): the whole row. A delete covers the cells stamped up
    # to its own time, and two increments in one millisecond stamp the counter
    # a millisecond ahead (as HBase does): delete once that has passed.
    time.sleep(0.01)
    client.deleteAllRow(table, b"oslo", {})
    rows = client.getRow(table, b"oslo", {})
    assert rows == [], rows
    found = scan(client, table, TScan(filterString=(
        b"SingleColumnValueFilter('d', 'cc', =, 'binary:NO', true, true)")))
    assert [r.row for r in found] == [b"bergen", b"tromso"], found
    # What is not kept is refused by name, never answered differently: the
    # IDL's default family keeps 3 versions.
    try:
        client.createTable(table + b"_v", [ColumnDescriptor(name=b"d:")])
        raise AssertionError("maxVersions 3 was accepted")
    except IllegalArgument as e:
        assert "maxVersions 3" in e.message, e


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thrift1", required=True, help="HOST:PORT")
    parser.add_argument("--router", required=True, help="HOST:PORT")
    args = parser.parse_args()
    for name, transport_kind, protocol_kind in KINDS:
        table = ("happy_" + name.replace("+", "_")).encode()
        protocol, transport = open_transport(args.thrift1, transport_kind,
                                             protocol_kind)
        try:
            session(Hbase.Client(protocol), table, args.router)
        except (AssertionError, Hbase1IOError) as e:
            print(f"{name}: {e!r}", file=sys.stderr)
            return 1
        finally:
            transport.close()
        print(f"{name}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

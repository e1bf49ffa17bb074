#!/usr/bin/python3
"""Every method of HBase's Thrift1 API (service Hbase) over every transport.

The router's Thrift1 port serves what its Thrift2 port serves: the buffered
and framed transports and HTTP POST, each with the binary protocol (strict
or not) and the compact protocol, told apart per connection. For each of
those nine kinds this calls every method of thrift/hbase1_service.thrift
(and getRowOrBefore, which HBase 1.x had and 2.x dropped: refused as an
unknown method) with the Python code generated from the IDL, and checks
each answer: the cells, rows and regions returned, and the exception and
its message where a call is refused. Each kind has tables of its own, and
deletes them at its end. It also checks that it called every method of the
service, so a method added to the IDL fails it until it is driven here.

Over HTTP, Thrift's Python THttpClient opens a connection per call, and
without TLS a scanner belongs to the connection that opened it, so its
scanners cannot be read (HBase's are the server's; this is documented);
the HTTP kinds check that, and drive the scanner calls over one kept-alive
HTTP connection, as Java's THttpClient and other keep-alive clients do.

    PYTHONPATH=build/python /usr/bin/python3 \\
        tests/integration/hbase1_every_method_client.py --thrift1 127.0.0.1:9095

Prints one line per kind ("buffered+binary: ok") and exits 0, or names the
first method and kind that failed and why and exits 1.
"""

import argparse
import sys
import time

from thrift.Thrift import TApplicationException, TMessageType

from thrift_kinds import open_protocol, run_every_kind

from bloomroute.rpc.hbase1 import Hbase
from bloomroute.rpc.hbase1.ttypes import (
    AlreadyExists, BatchMutation, ColumnDescriptor, IllegalArgument,
    IOError as Hbase1IOError, Mutation, TAccessControlEntity, TAppend,
    TIncrement, TPermissionScope, TScan, TThriftServerType)

# HBase 1.x's call, gone from 2.x (and from the IDL): sent by hand.
REMOVED_METHODS = ["getRowOrBefore"]


def open_client(address, transport_kind, protocol_kind, keep_alive=False):
    """An open Hbase client, its protocol and its transport."""
    protocol, transport = open_protocol(address, transport_kind,
                                        protocol_kind, keep_alive)
    return Hbase.Client(protocol), protocol, transport


def service_methods():
    return sorted(m for m in dir(Hbase.Iface) if not m.startswith("_"))


class Failure(Exception):
    """A wrong answer of `method`."""

    def __init__(self, method, what):
        super().__init__(f"{method}: {what}")
        self.method = method
        self.what = what


class Caller:
    """Calls methods by name, remembering which were called and the last
    (with `like`'s memory, for a second connection of one run)."""

    def __init__(self, client, like=None):
        self.client = client
        self._memory = like._memory if like else {"called": set(),
                                                  "method": None}

    @property
    def called(self):
        return self._memory["called"]

    @property
    def method(self):
        return self._memory["method"]

    @method.setter
    def method(self, method):
        self._memory["method"] = method

    def __call__(self, method, *args):
        self.method = method
        self.called.add(method)
        return getattr(self.client, method)(*args)

    def check(self, condition, what):
        if not condition:
            raise Failure(self.method, what)

    def refused(self, exception_type, words, method, *args):
        """Calls `method`, which must raise `exception_type` whose message
        holds each of `words`."""
        try:
            answer = self(method, *args)
        except exception_type as e:
            message = getattr(e, "message", None) or str(e)
            for word in words:
                self.check(word in message,
                           f"{type(e).__name__} {message!r} lacks {word!r}")
            return e
        raise Failure(method, f"answered {answer!r}, not "
                              f"{exception_type.__name__} naming {words}")


def cells(result):
    return [c.value for c in result]


def row_map(rows):
    """{row: {column: value}} of TRowResults."""
    return {r.row: {k: v.value for k, v in r.columns.items()} for r in rows}


def tables(c, name, table, other):
    """The table calls; leaves `table` enabled with family d."""
    c.check(c("getThriftServerType") == TThriftServerType.ONE, "not ONE")
    cluster = c("getClusterId")
    c.check(len(cluster) == 36 and cluster.count("-") == 4,
            f"not a UUID: {cluster!r}")
    for t in (table, other):
        if t in c("getTableNames"):
            if c("isTableEnabled", t):
                c("disableTable", t)
            c("deleteTable", t)
    c("createTable", table, [ColumnDescriptor(name=b"d:", maxVersions=1),
                             ColumnDescriptor(name=b"e", maxVersions=1)])
    c.refused(AlreadyExists, [table.decode()], "createTable", table,
              [ColumnDescriptor(name=b"d:", maxVersions=1)])
    c.refused(IllegalArgument, ["maxVersions 3"], "createTable", other,
              [ColumnDescriptor(name=b"d:")])
    c.refused(IllegalArgument, ["family"], "createTable", other, [])
    c("createTable", other, [ColumnDescriptor(name=b"d:", maxVersions=1)])
    names = c("getTableNames")
    c.check(table in names and other in names, f"{names}")
    enabled = c("getTableNamesWithIsTableEnabled")
    c.check(enabled.get(table) is True and enabled.get(other) is True,
            f"{enabled}")
    families = c("getColumnDescriptors", table)
    c.check(sorted(families) == [b"d:", b"e:"], f"{sorted(families)}")
    c.check(families[b"d:"].maxVersions == 1 and
            families[b"d:"].name == b"d:", f"{families[b'd:']}")
    c.refused(Hbase1IOError, ["NotFound", "nope_" + name], "getColumnDescriptors",
              ("nope_" + name).encode())
    regions = c("getTableRegions", table)
    c.check(len(regions) >= 1 and regions[0].startKey == b"" and
            regions[-1].endKey == b"", f"{regions}")
    c.check(all(r.serverName and r.port > 0 for r in regions), f"{regions}")
    c.check(all(r.name.startswith(table + b",") for r in regions),
            f"{regions}")
    info = c("getRegionInfo", table + b",row,99999999999999")
    c.check(info.startKey <= b"row" and
            (info.endKey == b"" or b"row" < info.endKey) and
            info.name.startswith(table + b","), f"{info}")
    c.refused(Hbase1IOError, ["catalog key"], "getRegionInfo", b"nocomma")
    c.check(c("getTableRegions", ("nope_" + name).encode()) == [],
            "regions of a table that does not exist (HBase: none)")
    for call in ("compact", "majorCompact"):
        c(call, table)
        c(call, regions[0].name)  # a region's name, as HBase's take
        c.refused(Hbase1IOError, ["NotFound"], call,
                  ("nope_" + name).encode())
        c.refused(Hbase1IOError, ["NotFound", "region"], call,
                  table + b",nothere,1")
    # disable, enable; a disabled table is refused reads and not deleted
    # while enabled.
    c.refused(Hbase1IOError, ["not disabled"], "deleteTable", other)
    c("disableTable", other)
    c.check(c("isTableEnabled", other) is False, "still enabled")
    enabled = c("getTableNamesWithIsTableEnabled")
    c.check(enabled.get(other) is False, f"{enabled}")
    c("enableTable", other)
    c.check(c("isTableEnabled", other) is True, "not enabled again")
    c("disableTable", other)
    c("deleteTable", other)
    c.check(other not in c("getTableNames"), "deleted table listed")
    c.refused(Hbase1IOError, ["NotFound"], "isTableEnabled", other)


def writes_and_reads(c, table):
    """Every write and read call, each checked by a read."""
    c("mutateRow", table, b"r1", [Mutation(column=b"d:a", value=b"1"),
                                  Mutation(column=b"d:b", value=b"2"),
                                  Mutation(column=b"e:c", value=b"3")], {})
    c.check(cells(c("get", table, b"r1", b"d:a", {})) == [b"1"], "d:a")
    c.check(sorted(cells(c("get", table, b"r1", b"d", {}))) == [b"1", b"2"],
            "family d")
    c.check(c("get", table, b"nowhere", b"d:a", {}) == [], "missing row")
    blob = bytes(range(256)) * 40  # every byte, in a few reads
    c("mutateRow", table, b"\x00\xffbin",
      [Mutation(column=b"d:\x00q\xff", value=blob)], {})
    rows = c("getRow", table, b"\x00\xffbin", {})
    c.check(row_map(rows) == {b"\x00\xffbin": {b"d:\x00q\xff": blob}},
            "binary row and value")
    c("deleteAllRow", table, b"\x00\xffbin", {})
    c.check(c("getRow", table, b"\x00\xffbin", {}) == [], "deleted")
    c.refused(IllegalArgument, ["family"], "mutateRow", table, b"r1",
              [Mutation(column=b"d", value=b"x")], {})
    c.check(cells(c("getVer", table, b"r1", b"d:a", 3, {})) == [b"1"], "ver")
    # (getVer declares only IOError: the InvalidArgument comes in one.)
    c.refused(Hbase1IOError, ["InvalidArgument", "numVersions"], "getVer",
              table, b"r1", b"d:a", 0, {})
    # Explicit timestamps: 1000 then 2000 (the newer one kept).
    c("mutateRowTs", table, b"r2", [Mutation(column=b"d:a", value=b"old")],
      1000, {})
    c("mutateRowTs", table, b"r2", [Mutation(column=b"d:a", value=b"new")],
      2000, {})
    got = c("getVerTs", table, b"r2", b"d:a", 3000, 5, {})
    c.check([(x.value, x.timestamp) for x in got] == [(b"new", 2000)],
            f"{got}")
    rows = c("getRow", table, b"r1", {})
    c.check(row_map(rows) == {b"r1": {b"d:a": b"1", b"d:b": b"2",
                                      b"e:c": b"3"}}, f"{rows}")
    c.check(c("getRow", table, b"nowhere", {}) == [], "missing row")
    rows = c("getRowWithColumns", table, b"r1", [b"d:b", b"e"], {})
    c.check(row_map(rows) == {b"r1": {b"d:b": b"2", b"e:c": b"3"}},
            f"{rows}")
    # *Ts reads cells strictly older than the timestamp.
    c.check(c("getRowTs", table, b"r2", 2000, {}) == [], "ts 2000")
    rows = c("getRowTs", table, b"r2", 2001, {})
    c.check(row_map(rows) == {b"r2": {b"d:a": b"new"}}, f"{rows}")
    rows = c("getRowWithColumnsTs", table, b"r2", [b"d:a"], 2001, {})
    c.check(row_map(rows) == {b"r2": {b"d:a": b"new"}}, f"{rows}")
    c.check(c("getRowWithColumnsTs", table, b"r2", [b"d:a"], 1500, {}) == [],
            "ts 1500")
    c("mutateRows", table, [
        BatchMutation(row=b"r3", mutations=[Mutation(column=b"d:a",
                                                     value=b"30")]),
        BatchMutation(row=b"r4", mutations=[Mutation(column=b"d:a",
                                                     value=b"40")])], {})
    c("mutateRowsTs", table, [
        BatchMutation(row=b"r5", mutations=[Mutation(column=b"d:a",
                                                     value=b"50")]),
        BatchMutation(row=b"r6", mutations=[Mutation(column=b"d:a",
                                                     value=b"60")])], 5000, {})
    rows = c("getRows", table, [b"r4", b"nowhere", b"r3"], {})
    c.check([r.row for r in rows] == [b"r4", b"r3"], f"{rows}")
    c.check(row_map(rows)[b"r3"] == {b"d:a": b"30"}, f"{rows}")
    rows = c("getRowsWithColumns", table, [b"r1", b"r3"], [b"d:b"], {})
    c.check(row_map(rows) == {b"r1": {b"d:b": b"2"}}, f"{rows}")
    rows = c("getRowsTs", table, [b"r5", b"r6", b"r2"], 5001, {})
    c.check(row_map(rows) == {b"r5": {b"d:a": b"50"}, b"r6": {b"d:a": b"60"},
                              b"r2": {b"d:a": b"new"}}, f"{rows}")
    rows = c("getRowsWithColumnsTs", table, [b"r5", b"r2"], [b"d:a"], 5000,
             {})
    c.check(row_map(rows) == {b"r2": {b"d:a": b"new"}}, f"{rows}")
    # Counters.
    c.check(c("atomicIncrement", table, b"c", b"d:n", 5) == 5, "first")
    c.check(c("atomicIncrement", table, b"c", b"d:n", -2) == 3, "second")
    c.refused(IllegalArgument, ["not a long"], "atomicIncrement", table, b"r1",
              b"d:a", 1)
    c("increment", TIncrement(table=table, row=b"c", column=b"d:n",
                              ammount=10))
    c("incrementRows", [
        TIncrement(table=table, row=b"c", column=b"d:n", ammount=100),
        TIncrement(table=table, row=b"c2", column=b"d:n", ammount=7)])
    c.check(c("atomicIncrement", table, b"c", b"d:n", 0) == 113, "total")
    c.check(c("atomicIncrement", table, b"c2", b"d:n", 0) == 7, "c2")
    got = c("append", TAppend(table=table, row=b"r1", columns=[b"d:a"],
                              values=[b"+x"]))
    c.check(cells(got) == [b"1+x"], f"{got}")
    c.check(cells(c("get", table, b"r1", b"d:a", {})) == [b"1+x"], "append")
    # checkAndPut: on the value, then on absence.
    put = Mutation(column=b"d:b", value=b"22")
    c.check(c("checkAndPut", table, b"r1", b"d:b", b"wrong", put, {})
            is False, "put on a wrong value")
    c.check(c("checkAndPut", table, b"r1", b"d:b", b"2", put, {}) is True,
            "put on the value")
    c.check(c("checkAndPut", table, b"r1", b"d:zz", b"",
              Mutation(column=b"d:zz", value=b"z"), {}) is True,
            "put on absence")
    c.check(cells(c("get", table, b"r1", b"d:b", {})) == [b"22"], "d:b")
    c.refused(IllegalArgument, ["isDelete"], "checkAndPut", table, b"r1",
              b"d:b", b"22", Mutation(isDelete=True, column=b"d:b"), {})
    # Deletes: a column, at or below a timestamp, a row, a row up to a
    # timestamp.
    c("deleteAll", table, b"r1", b"d:zz", {})
    c.check(c("get", table, b"r1", b"d:zz", {}) == [], "deleteAll")
    c("deleteAllTs", table, b"r2", b"d:a", 1999, {})
    c.check(cells(c("get", table, b"r2", b"d:a", {})) == [b"new"],
            "deleteAllTs below the cell")
    c("deleteAllTs", table, b"r2", b"d:a", 2000, {})
    c.check(c("get", table, b"r2", b"d:a", {}) == [], "deleteAllTs")
    c("deleteAllRowTs", table, b"r5", 4999, {})
    c.check(len(c("getRow", table, b"r5", {})) == 1, "deleteAllRowTs below")
    c("deleteAllRowTs", table, b"r5", 5000, {})
    c.check(c("getRow", table, b"r5", {}) == [], "deleteAllRowTs")
    # A delete covers cells stamped up to its own time; increments within a
    # millisecond stamp ahead (as HBase's do): let that pass.
    time.sleep(0.01)
    c("deleteAllRow", table, b"c2", {})
    c.check(c("getRow", table, b"c2", {}) == [], "deleteAllRow")
    # mutateRow with a delete: a column and a family.
    c("mutateRow", table, b"r1", [Mutation(isDelete=True, column=b"e")], {})
    rows = c("getRow", table, b"r1", {})
    c.check(row_map(rows) == {b"r1": {b"d:a": b"1+x", b"d:b": b"22"}},
            f"{rows}")


def scan_all(c, scanner, by_list=True):
    rows = []
    while True:
        batch = (c("scannerGetList", scanner, 2) if by_list
                 else c("scannerGet", scanner))
        if not batch:
            c("scannerClose", scanner)
            return rows
        rows.extend(batch)


def scanners(c, table):
    """Every scanner call over the rows writes_and_reads left:
    c (d:n), r1, r3, r4, r6."""
    everything = [b"c", b"r1", b"r3", b"r4", b"r6"]
    rows = scan_all(c, c("scannerOpen", table, b"", [], {}))
    c.check([r.row for r in rows] == everything, f"{rows}")
    rows = scan_all(c, c("scannerOpen", table, b"r3", [b"d:a"], {}),
                    by_list=False)
    c.check([r.row for r in rows] == [b"r3", b"r4", b"r6"], f"{rows}")
    c.check(row_map(rows)[b"r3"] == {b"d:a": b"30"}, f"{rows}")
    rows = scan_all(c, c("scannerOpenWithStop", table, b"r1", b"r4", [],
                         {}))
    c.check([r.row for r in rows] == [b"r1", b"r3"], f"{rows}")
    rows = scan_all(c, c("scannerOpenWithPrefix", table, b"r", [b"d"], {}))
    c.check([r.row for r in rows] == [b"r1", b"r3", b"r4", b"r6"], f"{rows}")
    # r6 was written at 5000, the others now: *Ts reads strictly older.
    rows = scan_all(c, c("scannerOpenTs", table, b"", [b"d:a"], 5001, {}))
    c.check(row_map(rows) == {b"r6": {b"d:a": b"60"}}, f"{rows}")
    rows = scan_all(c, c("scannerOpenWithStopTs", table, b"r", b"r7", [],
                         5001, {}))
    c.check([r.row for r in rows] == [b"r6"], f"{rows}")
    rows = scan_all(c, c("scannerOpenWithScan", table, TScan(
        startRow=b"r9", reversed=True, sortColumns=True, caching=10,
        filterString=b"ValueFilter(=, 'binary:40')"), {}))
    c.check([r.row for r in rows] == [b"r4"] and rows[0].sortedColumns and
            [(x.columnName, x.cell.value) for x in rows[0].sortedColumns] ==
            [(b"d:a", b"40")], f"{rows}")
    scanner = c("scannerOpenWithScan", table, TScan(), {})
    c("scannerClose", scanner)
    c.refused(IllegalArgument, ["NotFound", str(scanner)], "scannerGetList",
              scanner, 1)
    c.refused(IllegalArgument, ["NotFound"], "scannerGet", scanner)
    c.refused(IllegalArgument, ["NotFound"], "scannerClose", scanner)


def grants(c, table):
    entity = TAccessControlEntity(
        username="everymethod", scope=TPermissionScope.TABLE, actions="R",
        tableName=table)
    c.check(c("grant", entity) is True, "grant")
    c.check(c("revoke", entity) is True, "revoke")
    c.refused(Hbase1IOError, ["action"], "grant", TAccessControlEntity(
        username="everymethod", scope=TPermissionScope.TABLE, actions="Q",
        tableName=table))


def removed_method(c, protocol, method):
    """A call of a method the service does not have: Thrift's unknown-method
    error, and the connection still serves."""
    c.method = method
    protocol.writeMessageBegin(method, TMessageType.CALL, 77)
    protocol.writeStructBegin("args")
    protocol.writeFieldStop()
    protocol.writeStructEnd()
    protocol.writeMessageEnd()
    protocol.trans.flush()
    name, kind, seq = protocol.readMessageBegin()
    c.check(kind == TMessageType.EXCEPTION and name == method and seq == 77,
            f"reply {name} {kind} {seq}")
    error = TApplicationException()
    error.read(protocol)
    protocol.readMessageEnd()
    c.check(error.type == TApplicationException.UNKNOWN_METHOD and
            method in (error.message or ""), f"{error.type} {error.message}")


def cleanup(c, table):
    c("disableTable", table)
    c("deleteTable", table)
    c.check(table not in c("getTableNames"), "deleted table listed")


def run_kind(address, name, transport_kind, protocol_kind):
    """Returns the methods called; raises Failure."""
    table = ("every1_" + name.replace("+", "_")).encode()
    other = table + b"_other"
    try:
        client, protocol, transport = open_client(address, transport_kind,
                                                  protocol_kind)
    except Exception as e:  # pylint: disable=broad-except
        raise Failure("connect", f"{type(e).__name__}: {e}") from e
    c = Caller(client)
    try:
        tables(c, name, table, other)
        writes_and_reads(c, table)
        grants(c, table)
        removed_method(c, protocol, REMOVED_METHODS[0])
        if transport_kind == "http":
            per_call_http_scanner(c, table)
            keep_alive, _, keep_alive_transport = open_client(
                address, transport_kind, protocol_kind, keep_alive=True)
            try:
                scanners(Caller(keep_alive, like=c), table)
            finally:
                keep_alive_transport.close()
        else:
            scanners(c, table)
        cleanup(c, table)
    except Failure:
        raise
    except Exception as e:  # a Thrift error or a broken connection
        raise Failure(c.method, f"{type(e).__name__}: {e}") from e
    finally:
        transport.close()
    return c.called


def per_call_http_scanner(c, table):
    """Over THttpClient (a connection per call) without TLS a scanner ends
    with the call that opened it, as documented (docs/hbase-compatibility.md,
    scanners): the next call finds it closed. HBase's Thrift server keeps
    scanners server-wide; over TLS any connection of the same user reads
    it."""
    scanner = c("scannerOpen", table, b"", [], {})
    c.refused(IllegalArgument, ["is not open"], "scannerGetList", scanner, 10)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thrift1", required=True, help="HOST:PORT")
    args = parser.parse_args()
    return run_every_kind(args.thrift1, run_kind, service_methods(), Failure)


if __name__ == "__main__":
    sys.exit(main())

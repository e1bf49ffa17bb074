#!/usr/bin/python3
"""A bloomroute client in Python: create a table, put rows, look them up.

Uses the code Thrift generates from thrift/router_service.thrift at build time
(into build/python) and Debian's python3-thrift. From the source tree, with a
cluster running (e.g. `build/tools/bloomroute local --data /tmp/br --servers 2`):

    PYTHONPATH=build/python /usr/bin/python3 examples/python/geo_client.py \
        --router 127.0.0.1:9090
"""
import argparse
import sys

from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from bloomroute.rpc.errors.ttypes import TIllegalArgument, TIOError
from bloomroute.rpc.router_service import RouterService
from bloomroute.rpc.router_service.ttypes import (
    TColumnValue, TEqualityPredicate, TIndexQuery, TPut, TTableSpec)

TABLE = "geo_example"
CITIES = [  # row key, country code, feature code, name
    ("oslo", "NO", "PPLC", "Oslo"),
    ("bergen", "NO", "PPLA", "Bergen"),
    ("tromso", "NO", "PPLA", "Tromsø"),
    ("stockholm", "SE", "PPLC", "Stockholm"),
    ("gothenburg", "SE", "PPLA2", "Göteborg"),
    ("lyon", "FR", "PPLA", "Lyon"),
]


def connect(address):
    """A RouterService client over framed binary Thrift, as the router speaks."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--router {address!r}: expected HOST:PORT")
    socket = TSocket.TSocket(host.strip("[]"), int(port))
    socket.setTimeout(30000)  # milliseconds
    transport = TTransport.TFramedTransport(socket)
    client = RouterService.Client(TBinaryProtocol.TBinaryProtocol(transport))
    transport.open()
    return client, transport


def create_table(client):
    """Creates the table with two indexed columns, or reuses it."""
    existing = [t.name for t in client.listTables()]
    if TABLE in existing:
        print(f"table {TABLE} exists; reusing it")
        return
    spec = TTableSpec(name=TABLE, indexedColumns=[b"d:cc", b"d:feature"],
                      splitKeys=[b"h", b"p"])
    info = client.createTable(spec)
    print(f"created table {TABLE} (id {info.descriptor.tableId}) with "
          f"{len(info.regions)} regions")


def put_cities(client):
    puts = [TPut(row=key.encode(),
                 columnValues=[TColumnValue(b"d:cc", cc.encode()),
                               TColumnValue(b"d:feature", feature.encode()),
                               TColumnValue(b"d:name", name.encode())])
            for key, cc, feature, name in CITIES]
    client.putMultiple(TABLE, puts)
    print(f"put {len(puts)} rows")


def lookup(client, **where):
    """getByIndex for the AND of column = value; prints rows and routing."""
    query = TIndexQuery(predicates=[
        TEqualityPredicate(f"d:{column}".encode(), value.encode())
        for column, value in where.items()])
    result = client.getByIndex(TABLE, query)
    shown = " AND ".join(f"d:{c} = {v}" for c, v in where.items())
    print(f"getByIndex {shown}: {len(result.rows)} rows")
    for row in result.rows:
        cells = {c.column.decode(): c.value.decode() for c in row.columnValues}
        print(f"  {row.row.decode()}: {cells}")
    r = result.routing
    print(f"  routing: {len(r.serversAsked)} of {r.serversInCluster} servers "
          f"asked {[s.address for s in r.serversAsked]}, "
          f"{len(r.serversWithRows)} had rows")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--router", default="127.0.0.1:9090",
                        help="HOST:PORT of the bloomroute router")
    args = parser.parse_args()
    try:
        client, transport = connect(args.router)
    except (ValueError, TTransport.TTransportException) as e:
        print(f"geo_client: cannot reach the router: {e}", file=sys.stderr)
        return 1
    try:
        create_table(client)
        put_cities(client)
        lookup(client, cc="NO")
        lookup(client, cc="SE", feature="PPLC")
    except TIllegalArgument as e:
        print(f"geo_client: rejected: {e.message}", file=sys.stderr)
        return 1
    except TIOError as e:
        print(f"geo_client: failed: {e.message}", file=sys.stderr)
        return 1
    except TTransport.TTransportException as e:
        print(f"geo_client: connection lost: {e}", file=sys.stderr)
        return 1
    finally:
        transport.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

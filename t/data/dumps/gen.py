#!/usr/bin/env python3
"""Regenerate the hand-built dump sets of the deadlock unit tests.

Each case is a directory of rank-<N>.json files in the format of
doc/dump-format.md.  The cases are written out here, one function per case,
so that what each file says is easy to read and change; the generated files
are committed.  Run: t/data/dumps/gen.py (from the top of the tree).
"""
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))


def world(size, rank):
    return {"id": 0, "gid": "world", "name": "MPI_COMM_WORLD", "size": size, "rank": rank,
            "world_ranks": list(range(size)), "parent": None, "how": "world", "inter": False}


def comm(cid, gid, name, members, rank, how="split", parent=0):
    return {"id": cid, "gid": gid, "name": name, "size": len(members),
            "rank": members.index(rank), "world_ranks": members, "parent": parent,
            "how": how, "inter": False}


def site(fn, line, sym="main"):
    return {"addr": "0x401%03x" % line, "symbol": sym, "file": fn, "line": line}


def call(name, kind, comm_id=0, peer=-1, peer_world=-1, tag=None, root=-1, root_world=-1,
         mode=None, requests=None, any_=False, file="prog.c", line=10, bytes_=4, **kw):
    c = {"name": name, "kind": kind, "lang": "c", "comm": comm_id, "peer": peer,
         "peer_world": peer_world, "tag": tag, "root": root, "root_world": root_world,
         "op": None, "count": 1, "datatype": "MPI_INT", "bytes": bytes_, "mode": mode,
         "requests": requests or [], "any": any_, "site": site(file, line)}
    c.update(kw)
    return c


def req(rid, op, peer, peer_world, tag, comm_id=0, mode=None, persistent=False, active=False,
        bytes_=4):
    return {"req": rid, "op": op, "comm": comm_id, "peer": peer, "peer_world": peer_world,
            "tag": tag, "count": 1, "datatype": "MPI_INT", "bytes": bytes_, "mode": mode,
            "persistent": persistent, "active": active}


def dump(rank, size, c, comms=None, state="in_mpi", psend=(), precv=(), recent=(),
         unexp_count=0, job="77", stack=None):
    st = stack if stack is not None else ([site(c["site"]["file"], c["site"]["line"])] if c else [])
    if stack is None and c:
        st.append({"addr": "0x401000", "symbol": "main", "file": c["site"]["file"], "line": 99})
    return {
        "mpiwatch_dump": 1, "job": {"id": job, "step": "0"}, "rank": rank, "size": size,
        "host": "n%d" % (rank // 2 + 1), "pid": 1000 + rank, "mpi": "openmpi 4.1.4",
        "state": state, "reason": "stuck",
        "time": {"dump_unix": 1795000002.0, "enter_unix": 1795000000.0, "in_call_s": 2.0,
                 "timeout_s": 2.0},
        "counters": {"a": 5, "b": 4, "completions": 4, "calls": 9},
        "call": c, "stack": st, "stack_method": "scan",
        "pending_sends": list(psend), "pending_recvs": list(precv),
        "recent_sends": list(recent),
        "unexpected": {"source": "mpi_t", "count": unexp_count, "messages": []},
        "comms": comms if comms is not None else [world(size, rank)],
    }


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def recv(src, tag=0, comm_id=0, src_world=None, line=10, name="MPI_Recv", kind="recv"):
    return call(name, kind, comm_id, src, src if src_world is None else src_world, tag, line=line)


@case
def recv_cycle():
    return {0: dump(0, 2, recv(1, line=12)), 1: dump(1, 2, recv(0, line=12))}


@case
def ring4():
    return {r: dump(r, 4, recv((r - 1) % 4, line=20)) for r in range(4)}


@case
def any_source_idle():
    # The master idles in MPI_Recv(ANY_SOURCE) while the workers compute: no dump from them.
    return {0: dump(0, 4, recv(-2, tag=-1, line=30))}


@case
def any_source_knot():
    # Rank 0 takes a message from anyone, but everyone waits for rank 0.
    return {0: dump(0, 3, recv(-2, tag=-1, line=30)), 1: dump(1, 3, recv(0, line=31)),
            2: dump(2, 3, recv(0, line=31))}


@case
def waitany_ok():
    # Rank 0 waits for either of two receives; rank 2 computes and will send.
    c0 = call("MPI_Waitany", "wait", requests=[1, 2], any_=True, line=40)
    return {0: dump(0, 3, c0, precv=[req(1, "MPI_Irecv", 1, 1, 5), req(2, "MPI_Irecv", 2, 2, 5)]),
            1: dump(1, 3, recv(0, tag=6, line=41))}


@case
def waitany_knot():
    c0 = call("MPI_Waitany", "wait", requests=[1, 2], any_=True, line=40)
    return {0: dump(0, 3, c0, precv=[req(1, "MPI_Irecv", 1, 1, 5), req(2, "MPI_Irecv", 2, 2, 5)]),
            1: dump(1, 3, recv(0, tag=6, line=41)), 2: dump(2, 3, recv(0, tag=6, line=41))}


@case
def split_cycle():
    # Odd ranks {1,3} in a split comm deadlock on each other (comm ranks 0,1);
    # even ranks compute.
    odd = [1, 3]
    d = {}
    for r in odd:
        cm = [world(4, r), comm(3, "world/1:9f3a", "odd_comm", odd, r)]
        me = odd.index(r)
        d[r] = dump(r, 4, recv(1 - me, tag=4, comm_id=3, src_world=odd[1 - me], line=50), comms=cm)
    return d


@case
def split_ok():
    # Same comm, but rank 3 is blocked sending what rank 1 waits for: not a deadlock.
    odd = [1, 3]
    cm1 = [world(4, 1), comm(3, "world/1:9f3a", "odd_comm", odd, 1)]
    cm3 = [world(4, 3), comm(5, "world/1:9f3a", "odd_comm", odd, 3)]
    return {1: dump(1, 4, recv(1, tag=4, comm_id=3, src_world=3, line=50), comms=cm1),
            3: dump(3, 4, call("MPI_Send", "send", 5, 0, 1, 4, mode="standard", bytes_=1 << 20,
                                line=51), comms=cm3)}


@case
def dup_wrong_comm():
    # Rank 0 receives on a dup of world, rank 1 sends on world itself.
    cm = lambda r: [world(2, r), comm(1, "world/1:c0ffee", "dup_comm", [0, 1], r, how="dup")]
    return {0: dump(0, 2, recv(1, tag=5, comm_id=1, line=60), comms=cm(0)),
            1: dump(1, 2, call("MPI_Ssend", "send", 0, 0, 0, 5, mode="sync", line=61), comms=cm(1))}


@case
def persistent_cycle():
    # Both wait on an active persistent receive; their persistent sends were never started.
    d = {}
    for r in (0, 1):
        p = 1 - r
        c = call("MPI_Waitall", "wait", requests=[10, 11], line=70)
        d[r] = dump(r, 2, c, precv=[req(10, "MPI_Recv_init", p, p, 2, persistent=True, active=True)],
                    psend=[req(11, "MPI_Send_init", p, p, 2, mode="standard", persistent=True,
                               active=False)])
    return d


@case
def persistent_ok():
    # The same, but rank 1's persistent send is active: rank 0's receive is satisfied.
    d = persistent_cycle()
    d[1]["pending_sends"][0]["active"] = True
    d[1]["call"]["requests"] = [10]
    return d


@case
def nonblocking_ok():
    # Irecv + Isend + Waitall on both sides, matching: slow, not deadlocked.
    d = {}
    for r in (0, 1):
        p = 1 - r
        c = call("MPI_Waitall", "wait", requests=[1, 2], line=80)
        d[r] = dump(r, 2, c, precv=[req(1, "MPI_Irecv", p, p, 9)],
                    psend=[req(2, "MPI_Isend", p, p, 9, mode="standard", bytes_=1 << 20)])
    return d


@case
def waitall_irecv():
    # Rank 0 waits for an Irecv that rank 1 never matches; rank 1 is in MPI_Barrier.
    c0 = call("MPI_Waitall", "wait", requests=[1], line=90)
    return {0: dump(0, 2, c0, precv=[req(1, "MPI_Irecv", 1, 1, 5)]),
            1: dump(1, 2, call("MPI_Barrier", "collective", line=91))}


@case
def wrong_tag():
    return {0: dump(0, 2, recv(1, tag=8, line=17), unexp_count=1),
            1: dump(1, 2, call("MPI_Barrier", "collective", line=19),
                    recent=[req(-1, "MPI_Send", 0, 0, 7, mode="standard")])}


@case
def wrong_tag_consumed():
    # The same recent send, but MPI_T says rank 0 has no unexpected message:
    # the tag-7 message was received earlier, so no wrong-tag diagnosis.
    d = wrong_tag()
    d[0]["unexpected"]["count"] = 0
    return d


@case
def root_mismatch():
    return {r: dump(r, 4, call("MPI_Bcast", "collective", root=0 if r < 2 else 1,
                               root_world=0 if r < 2 else 1, line=100 if r < 2 else 102))
            for r in range(4)}


def ireduce(rid, root, op="MPI_Ireduce", reduce_op="MPI_SUM"):
    r = req(rid, op, -1, -1, None, bytes_=1 << 22)
    r["count"] = 1 << 20
    if root is not None:
        r["root"] = root
        r["root_world"] = root
    if reduce_op:
        r["reduce_op"] = reduce_op
    return r


@case
def iroot_mismatch():
    # MPI_Ireduce to root 0 on rank 0, to root 1 on rank 1; both in MPI_Wait.
    return {r: dump(r, 2, call("MPI_Wait", "wait", requests=[1], line=140 + r),
                    precv=[ireduce(1, 0 if r == 0 else 1)])
            for r in (0, 1)}


@case
def iroot_ok():
    # The same MPI_Ireduce (root 0) on both ranks, waiting: it can complete.
    return {r: dump(r, 2, call("MPI_Wait", "wait", requests=[1], line=150),
                    precv=[ireduce(1, 0)])
            for r in (0, 1)}


@case
def barrier_bcast():
    d = {r: dump(r, 4, call("MPI_Barrier", "collective", line=110)) for r in (0, 1)}
    d.update({r: dump(r, 4, call("MPI_Bcast", "collective", root=0, root_world=0, line=112))
              for r in (2, 3)})
    return d


@case
def collective_slow():
    # Three ranks wait in a barrier for the fourth, which computes.
    return {r: dump(r, 4, call("MPI_Barrier", "collective", line=120)) for r in range(3)}


@case
def ssend_cycle():
    return {r: dump(r, 2, call("MPI_Ssend", "send", 0, 1 - r, 1 - r, 3, mode="sync", line=130))
            for r in (0, 1)}


@case
def sendrecv_ring_ok():
    # A ring of MPI_Sendrecv: each send matches the next rank's receive.
    return {r: dump(r, 4, call("MPI_Sendrecv", "sendrecv", 0, (r - 1) % 4, (r - 1) % 4, 1,
                               send_peer=(r + 1) % 4, send_peer_world=(r + 1) % 4, send_tag=1,
                               bytes_=1 << 20, line=140)) for r in range(4)}


@case
def finalized_peer():
    d = {0: dump(0, 2, recv(1, tag=3, line=150))}
    d[1] = dump(1, 2, None, state="finalized")
    d[1]["reason"] = "request"
    return d


@case
def missing_ranks():
    # Size 8, only ranks 0-3 dumped (in a barrier): 4-7 are missing, no deadlock.
    return {r: dump(r, 8, call("MPI_Barrier", "collective", line=160)) for r in range(4)}


@case
def outlier():
    # 7 ranks in a barrier, rank 5 in MPI_Recv from rank 2 (in the barrier).
    d = {r: dump(r, 8, call("MPI_Barrier", "collective", line=170)) for r in range(8) if r != 5}
    d[5] = dump(5, 8, recv(2, tag=1, line=175), stack=[site("io.c", 55, "read_input"),
                                                      site("prog.c", 30, "main")])
    return d


@case
def stale_pingpong():
    # A correct ping-pong with compute phases: rank 1 was stuck waiting for
    # rank 0 at t=100 (dumped at 101, then it got the message); rank 0 was
    # stuck waiting for rank 1 from t=105.  The dumps are from different
    # moments: no confirmed deadlock.
    d = recv_cycle()
    for r, (enter, dumped) in {1: (100.0, 101.0), 0: (105.0, 106.0)}.items():
        d[r]["time"].update({"enter_unix": 1795000000.0 + enter, "dump_unix": 1795000000.0 + dumped,
                             "in_call_s": 1.0})
    return d


@case
def untracked_waitany():
    # Rank 0 waits for any of two requests, but the monitor tracked only one
    # ("nrequests": 2): the other may complete, so this is not a knot.
    c0 = call("MPI_Waitany", "wait", requests=[1], any_=True, line=40, nrequests=2)
    return {0: dump(0, 2, c0, precv=[req(1, "MPI_Irecv", 1, 1, 5)]),
            1: dump(1, 2, recv(0, tag=6, line=41))}


@case
def schema_invalid():
    # Rank 1 lacks "counters": the built-in checks do not need it, the
    # monitor's dump schema requires it, so the file is invalid.
    d = recv_cycle()
    del d[1]["counters"]
    return d


@case
def finalize_bsend():
    # Issue 35 item 11: both ranks in MPI_Finalize, rank 0 with a buffered
    # send (MPI_Bsend at line 18, to rank 1, tag 5) since its last
    # MPI_Buffer_detach, which MPI_Finalize waits to deliver: no deadlock,
    # and the classes say what MPI_Finalize still waits for.
    d = {r: dump(r, 2, call("MPI_Finalize", "collective", line=22)) for r in (0, 1)}
    b = req(-1, "MPI_Bsend", 1, 1, 5, mode="buffered")
    b["site"] = site("prog.c", 18)
    d[0]["buffered_sends"] = [b]
    d[0]["buffered_sends_total"] = 1
    return d


def write_case(name, files):
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for r, content in files.items():
        path = os.path.join(d, "rank-%d.json" % r if isinstance(r, int) else r)
        with open(path, "w") as f:
            if isinstance(content, (bytes, str)):
                f.write(content if isinstance(content, str) else content.decode())
            else:
                json.dump(content, f, indent=1)
                f.write("\n")


def broken():
    good = dump(0, 4, recv(1, tag=2, line=10))
    trunc = json.dumps(dump(1, 4, recv(0, line=10)))[:150]
    foreign = {"name": "not a dump", "rank": 2}
    badtype = dump(3, 4, recv(0, line=10))
    badtype["call"]["peer"] = "zero"
    other_job = dump(2, 4, recv(0, line=10), job="999")
    return {0: good, 1: trunc, 2: foreign, 3: badtype, "rank-x.json": "{}",
            "rank-3.json.tmp": "ignored"}, other_job


def main():
    for name, fn in CASES.items():
        write_case(name, fn())
    files, other_job = broken()
    write_case("broken", files)
    # A dump of another job among good ones.
    write_case("foreign_job", {0: dump(0, 2, recv(1, line=10)), 1: other_job | {"size": 2, "rank": 1}})
    write_case("empty", {})
    with open(os.path.join(HERE, "empty", ".keep"), "w"):
        pass


if __name__ == "__main__":
    main()

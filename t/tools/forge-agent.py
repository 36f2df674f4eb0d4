#!/usr/bin/env python3
"""forge-agent.py HOST PORT JOB NODE MODE [MUNGE_SOCKET]: play a forged agent
against a collector (t/0410).  MODE: "nocred" (a HELLO without a
credential), "mycred" (a MUNGE credential of the caller's own uid, correct
payload), "replay" (a credential made for one connection's nonce, shown on a
second connection; with FORGE_CRED_USER=USER, run as root, the credential is
USER's, as if captured from the job's own agent), "multi" (five HELLOs
with a MUNGE credential of the caller's own uid in one write: prints
"welcomes N", the WELCOMEs that came before the collector closed the link,
then "closed" or "still open"; nothing else is sent).  After the HELLO it sends a forged "exited" heartbeat for
rank 0 anyway.  Prints the collector's WELCOME as "welcome ok" or
"welcome refused: REASON", then "closed" if the collector closed the link."""
import json, os, socket, struct, subprocess, sys

MAGIC = 0x4D574842


def frame(t, obj):
    p = json.dumps(obj).encode()
    return struct.pack(">IBBHI", MAGIC, 1, t, 0, len(p)) + p


def read_frame(s):
    hdr = b""
    while len(hdr) < 12:
        b = s.recv(12 - len(hdr))
        if not b:
            return None, None
        hdr += b
    magic, ver, t, flags, n = struct.unpack(">IBBHI", hdr)
    body = b""
    while len(body) < n:
        b = s.recv(n - len(body))
        if not b:
            return None, None
        body += b
    return t, json.loads(body)


def cred(payload, sock):
    cmd = ["munge", "-s", payload] + (["-S", sock] if sock else [])
    if os.environ.get("FORGE_CRED_USER"):  # a credential captured from that user
        cmd = ["runuser", "-u", os.environ["FORGE_CRED_USER"], "--"] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()


def connect(host, port):
    s = socket.create_connection((host, port), timeout=10)
    t, ch = read_frame(s)
    assert t == 8, "no challenge"
    return s, ch["nonce"]


def main():
    host, port, job, node, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    sock = sys.argv[6] if len(sys.argv) > 6 else ""
    s, nonce = connect(host, port)
    c = ""
    if mode == "mycred":
        c = cred("mpiwatch-hello 1 job=%s node=%s nonce=%s" % (job, node, nonce), sock)
    elif mode == "replay":
        other, n2 = connect(host, port)
        c = cred("mpiwatch-hello 1 job=%s node=%s nonce=%s" % (job, node, n2), sock)
        other.close()
    if mode == "multi":
        c = cred("mpiwatch-hello 1 job=%s node=%s nonce=%s" % (job, node, nonce), sock)
        s.sendall(frame(1, {"job": job, "node": node, "pid": 1, "ranks": 1, "cred": c}) * 5)
        s.settimeout(5)
        n, end = 0, "closed"
        try:
            while True:
                t, w = read_frame(s)
                if t is None:
                    break
                n += t == 2
        except socket.timeout:
            end = "still open"
        except (ConnectionError, OSError):
            pass
        print("welcomes %d" % n)
        print(end)
        return
    s.sendall(frame(1, {"job": job, "node": node, "pid": 1, "ranks": 1, "cred": c}))
    t, w = read_frame(s)
    if t == 2 and w.get("ok"):
        print("welcome ok")
    else:
        print("welcome refused: %s" % (w or {}).get("error", "?"))
    beat = {"rank": 0, "size": 2, "pid": 1, "state": "exited", "call": "MPI_Recv", "kind": "recv",
            "comm": "world", "peer_world": 1, "root_world": -1, "tag": 0, "a": 1, "b": 0,
            "completions": 0, "calls": 1, "idle_s": 5.0, "exit_code": 9, "exit_signal": 0}
    try:
        s.sendall(frame(4, beat))
        s.settimeout(3)
        if s.recv(1) == b"":
            print("closed")
    except (ConnectionError, socket.timeout, OSError):
        print("closed")


main()

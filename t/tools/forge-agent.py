#!/usr/bin/env python3
"""forge-agent.py HOST PORT JOB NODE MODE [MUNGE_SOCKET]: play a forged agent
against a collector (t/0410).  MODE: "nocred" (a HELLO without a
credential), "mycred" (a MUNGE credential of the caller's own uid, correct
payload), "replay" (a credential made for one connection's nonce, shown on a
second connection; with FORGE_TOKEN_FILE=FILE, the proofs are made with
that token instead of MUNGE; with FORGE_CRED_USER=USER, run as root, the credential is
USER's, as if captured from the job's own agent), "multi" (five HELLOs
with a MUNGE credential of the caller's own uid in one write: prints
"welcomes N", the WELCOMEs that came before the collector closed the link,
then "closed" or "still open"; nothing else is sent).  After the HELLO it sends a forged "exited" heartbeat for
rank 0 anyway.  Prints the collector's WELCOME as "welcome ok" or
"welcome refused: REASON", then how the link ended within 3 s of the
heartbeat: "closed" only if the collector closed it (end of file, or a
reset), "still open" if it stayed open (a timeout, or data came back)."""
import hashlib, hmac, json, os, secrets, socket, struct, subprocess, sys

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
    if os.environ.get("FORGE_TOKEN_FILE"):  # mpiwatch run: a token proof, with that token
        tok = open(os.environ["FORGE_TOKEN_FILE"]).read().strip().encode()
        return "hmac:" + hmac.new(tok, payload.encode(), hashlib.sha256).hexdigest()
    cmd = ["munge", "-s", payload] + (["-S", sock] if sock else [])
    if os.environ.get("FORGE_CRED_USER"):  # a credential captured from that user
        cmd = ["runuser", "-u", os.environ["FORGE_CRED_USER"], "--"] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()


def connect(host, port):
    """The handshake as an agent opens it (VERIFY, our nonce; the collector's
    CHALLENGE): the forger does not care whether the collector proved
    itself.  Returns the socket and the collector's nonce."""
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(frame(15, {"nonce": secrets.token_hex(16)}))
    t, ch = read_frame(s)
    assert t == 8, "no challenge"
    return s, ch["nonce"]


def hello_payload(job, node, host, port, nonce):
    return "mpiwatch-hello 2 job=%s node=%s at=%s:%d nonce=%s" % (job, node, host, port, nonce)


def main():
    host, port, job, node, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    sock = sys.argv[6] if len(sys.argv) > 6 else ""
    s, nonce = connect(host, port)
    c = ""
    if mode == "mycred":
        c = cred(hello_payload(job, node, host, port, nonce), sock)
    elif mode == "replay":
        other, n2 = connect(host, port)
        c = cred(hello_payload(job, node, host, port, n2), sock)
        other.close()
    if mode == "multi":
        c = cred(hello_payload(job, node, host, port, nonce), sock)
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
        print("closed" if s.recv(1) == b"" else "still open")  # EOF, or data: open
    except socket.timeout:  # no end within 3 s: the link stays open
        print("still open")
    except (ConnectionError, OSError):  # a reset: closed
        print("closed")


main()

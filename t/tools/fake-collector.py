#!/usr/bin/env python3
"""fake-collector.py PORT MODE LOG [MUNGE_SOCKET]: another user plays the
collector of a job that has not started yet, on the predictable port
(issue 30 item 3; t/0910, t/0911).  It binds 0.0.0.0:PORT (so the real
collector moves to a later port), writes "listening" to LOG, and serves
every agent that connects, until LOG.stop exists or 300 s have passed.

MODE "relay": a man in the middle.  For each agent it connects to the real
collector (the first of PORT+1..PORT+4 that answers on this host) and
passes every frame both ways, unchanged, logging each: "agent -> collector:
TYPE" and "collector -> agent: TYPE".  A WELCOME ok from the collector is
logged as "AUTHENTICATED LINK to the real collector"; after the first
heartbeat it relayed it injects a BYE "forged bye" of its own.

MODE "impostor": it speaks first, without a valid credential: a CHALLENGE
with a nonce and a MUNGE credential of its own uid (MUNGE_SOCKET), then
answers any HELLO with WELCOME ok, logging every frame it gets.

Either way "agent closed the link" is logged when the agent hangs up."""
import json, os, secrets, socket, struct, subprocess, sys, threading, time

MAGIC = 0x4D574842
NAMES = {1: "hello", 2: "welcome", 3: "rank", 4: "heartbeat", 5: "dump", 6: "bye", 7: "dumpreq",
         8: "challenge", 9: "agg", 10: "role", 11: "listen", 12: "child", 13: "probereq",
         14: "probesum", 15: "verify", 20: "apreq", 21: "apout"}
lock = threading.Lock()


def log(path, line):
    with lock, open(path, "a") as f:
        f.write("%.3f %s\n" % (time.time(), line))


def frame(t, obj):
    p = json.dumps(obj).encode()
    return struct.pack(">IBBHI", MAGIC, 1, t, 0, len(p)) + p


def read_frame(s):
    """(type, payload bytes, raw frame bytes) or (None, None, None) at the end."""
    hdr = b""
    while len(hdr) < 12:
        b = s.recv(12 - len(hdr))
        if not b:
            return None, None, None
        hdr += b
    magic, ver, t, flags, n = struct.unpack(">IBBHI", hdr)
    if magic != MAGIC or n > (4 << 20):
        return None, None, None
    body = b""
    while len(body) < n:
        b = s.recv(n - len(body))
        if not b:
            return None, None, None
        body += b
    return t, body, hdr + body


def own_cred(payload, sock):
    cmd = ["munge", "-s", payload] + (["-S", sock] if sock else [])
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()


def relay(agent, peer, port, logf):
    real = None
    for p in range(port + 1, port + 5):
        try:
            real = socket.create_connection(("127.0.0.1", p), timeout=5)
            real.settimeout(None)
            break
        except OSError:
            real = None
    if not real:
        log(logf, "%s: no real collector found on ports %d-%d" % (peer, port + 1, port + 4))
        agent.close()
        return
    log(logf, "%s: relaying to the real collector at port %d" % (peer, real.getpeername()[1]))
    state = {"beats": 0, "forged": False}

    def pump(src, dst, what):
        while True:
            t, body, raw = read_frame(src)
            if t is None:
                if what == "agent -> collector":
                    log(logf, "%s: agent closed the link" % peer)
                else:
                    log(logf, "%s: the real collector closed the link" % peer)
                for s in (src, dst):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                return
            extra = ""
            if t == 2:
                try:
                    w = json.loads(body)
                    extra = " ok" if w.get("ok") else " refused: %s" % w.get("error", "?")
                except ValueError:
                    pass
            log(logf, "%s: %s: %s%s" % (peer, what, NAMES.get(t, str(t)), extra))
            if t == 2 and extra == " ok" and what == "collector -> agent":
                log(logf, "%s: AUTHENTICATED LINK to the real collector" % peer)
            try:
                dst.sendall(raw)
            except OSError:
                return
            if t == 4 and what == "agent -> collector":
                log(logf, "%s: HEARTBEAT from the agent" % peer)
                with lock:
                    forge = not state["forged"]
                    state["forged"] = True
                if forge:
                    try:
                        real.sendall(frame(6, {"reason": "forged bye"}))
                    except OSError:
                        pass

    th = threading.Thread(target=pump, args=(real, agent, "collector -> agent"), daemon=True)
    th.start()
    pump(agent, real, "agent -> collector")
    th.join(5)
    agent.close()
    real.close()


def impostor(agent, peer, job, sock, logf):
    nonce = secrets.token_hex(16)
    try:
        c = own_cred("mpiwatch-collector 1 job=%s nonce=%s" % (job, nonce), sock)
    except (OSError, subprocess.CalledProcessError) as e:
        log(logf, "munge: %s" % e)
        c = ""
    agent.sendall(frame(8, {"nonce": nonce, "job": job, "cred": c}))
    log(logf, "%s: sent a challenge with a credential of uid %d" % (peer, os.getuid()))
    while True:
        t, body, raw = read_frame(agent)
        if t is None:
            log(logf, "%s: agent closed the link" % peer)
            agent.close()
            return
        log(logf, "%s: agent -> impostor: %s" % (peer, NAMES.get(t, str(t))))
        if t == 1:
            log(logf, "%s: HELLO from the agent (its credential captured)" % peer)
            agent.sendall(frame(2, {"ok": True}))
        elif t == 4:
            log(logf, "%s: HEARTBEAT from the agent" % peer)


def main():
    port, mode, logf = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    sock = sys.argv[4] if len(sys.argv) > 4 else ""
    job = os.environ.get("FAKE_JOB", "0")
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAIT, not a listener
    ls.bind(("0.0.0.0", port))
    ls.listen(64)
    ls.settimeout(0.5)
    log(logf, "listening on port %d (%s)" % (port, mode))
    end = time.time() + 300
    while time.time() < end and not os.path.exists(logf + ".stop"):
        try:
            a, addr = ls.accept()
        except socket.timeout:
            continue
        a.settimeout(None)
        peer = "%s:%d" % addr
        log(logf, "%s: an agent connected" % peer)
        if mode == "relay":
            target, args = relay, (a, peer, port, logf)
        else:
            target, args = impostor, (a, peer, job, sock, logf)
        threading.Thread(target=target, args=args, daemon=True).start()
    log(logf, "stopping")


main()

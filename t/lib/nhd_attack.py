#!/usr/bin/python3
# t/lib/nhd_attack.py: what a hostile local user does to mpiwatch-nodehealthd
# (issue 30, items 1, 2 and 5), for the t/09NN-attack-*.t tests.  Runs as an
# unprivileged user; needs nothing but Python's standard library.
#
#   flood HOST PORT RATE SECONDS     probe-shaped datagrams (valid probes,
#                                    random nonces) at about RATE per second
#   bind PORT ADDR MODE              try to bind udp ADDR:PORT; MODE plain,
#                                    reuseaddr or reuseport; prints "bound"
#                                    (exit 0) or "refused: <errno name>" (exit 1)
#   hold SOCKPATH N SECONDS          open N connections to a unix socket and
#                                    send nothing; a connection the daemon
#                                    closes is opened again; prints how many
#                                    were open at the end
#
# With NHD_ATTACK_PIDFILE set, the process writes its pid there first (the
# test stops it by that pid: it runs under runuser, which does not pass
# signals on).
import errno
import os
import resource
import socket
import struct
import sys
import time


def probe():
    # doc/protocol.md: magic "MWPB", version 1, type 1 (probe), flags 0,
    # 16-byte nonce, zero padding to 256 bytes.
    return struct.pack(">IBBH", 0x4D575042, 1, 1, 0) + os.urandom(16) + bytes(256 - 24)


def flood(host, port, rate, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((host, int(port)))
    rate = float(rate)
    end = time.monotonic() + float(seconds)
    sent = 0
    t0 = time.monotonic()
    while time.monotonic() < end:
        try:
            s.send(probe())
        except OSError:
            pass
        sent += 1
        ahead = sent / rate - (time.monotonic() - t0)
        if ahead > 0.005:
            time.sleep(ahead)
    print("sent", sent)


def bind(port, addr, mode):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if mode == "reuseaddr":
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    elif mode == "reuseport":
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        s.bind((addr, int(port)))
    except OSError as e:
        print("refused:", errno.errorcode.get(e.errno, str(e.errno)))
        return 1
    print("bound")
    return 0


def hold(path, n, seconds):
    n = int(n)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 64), hard))
    conns = []
    end = time.monotonic() + float(seconds)
    while time.monotonic() < end:
        # Drop what the daemon closed, open up to n again.
        alive = []
        for c in conns:
            try:
                if c.recv(4096, socket.MSG_DONTWAIT) == b"":
                    c.close()
                    continue
            except BlockingIOError:
                pass
            except OSError:
                c.close()
                continue
            alive.append(c)
        conns = alive
        while len(conns) < n and time.monotonic() < end:
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.setblocking(False)
            try:
                c.connect(path)
            except OSError:
                # EAGAIN: the listen backlog is full (a unix socket is then
                # not connected); try again in the next round.
                c.close()
                break
            conns.append(c)
        time.sleep(0.05)
    print("open", len(conns))


def main(argv):
    if os.environ.get("NHD_ATTACK_PIDFILE"):
        with open(os.environ["NHD_ATTACK_PIDFILE"], "w") as f:
            f.write("%d\n" % os.getpid())
    if len(argv) == 6 and argv[1] == "flood":
        flood(*argv[2:])
        return 0
    if len(argv) == 5 and argv[1] == "bind":
        return bind(*argv[2:])
    if len(argv) == 5 and argv[1] == "hold":
        hold(*argv[2:])
        return 0
    sys.stderr.write("usage: nhd_attack.py flood HOST PORT RATE SECONDS | bind PORT ADDR MODE | "
                     "hold SOCKPATH N SECONDS\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

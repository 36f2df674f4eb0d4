#!/usr/bin/env python3
"""hostile-conns.py HOST PORT N STATUS: open N connections to a collector
before authenticating on any (issue 30 item 4; t/0913).  Every other one
sends a frame header announcing a 4 MiB payload and then 200 KiB of it (a
partial large frame); the others stay silent.  Writes "held N" to STATUS
once all are open and written, counts in "closed K" how many the collector
closed, and keeps them until STATUS.stop exists (at most 120 s)."""
import os, resource, socket, struct, sys, time

host, port, n, status = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
hdr = struct.pack(">IBBHI", 0x4D574842, 1, 1, 0, 4 << 20)
chunk = hdr + b"{" + b" " * (200 * 1024)
socks = []
for i in range(n):
    s = socket.create_connection((host, port), timeout=5)
    s.setblocking(False)
    if i % 2 == 0:
        try:
            s.send(chunk)
        except OSError:
            pass
    socks.append(s)
with open(status, "w") as f:
    f.write("held %d\n" % len(socks))
end = time.time() + 120
while time.time() < end and not os.path.exists(status + ".stop"):
    time.sleep(0.5)
closed = 0
for s in socks:
    try:
        if s.recv(65536) == b"":
            closed += 1
    except BlockingIOError:
        pass
    except OSError:
        closed += 1
with open(status, "a") as f:
    f.write("closed %d\n" % closed)

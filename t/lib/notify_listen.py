#!/usr/bin/python3
# notify_listen.py SOCKET LOG: play systemd's side of sd_notify for a test:
# bind a unix datagram socket at SOCKET and append every notification
# received to LOG, one assignment (READY=1, WATCHDOG=1...) per line, until
# killed.
import socket
import sys

s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as log:
    while True:
        msg = s.recv(4096).decode("utf-8", "replace")
        for line in msg.splitlines():
            log.write(line + "\n")

#!/usr/bin/env python3
# t/lib/tau-profiles.py DIR PROCS: write PROCS TAU text profiles
# (profile.N.0.0) of an imbalanced job into DIR, deterministic (seed 1):
# the first 5 % of the ranks (at least one) compute 3x longer in solve, the
# others wait for them in MPI_Allreduce, rank 0 writes 5x more, and small
# point-to-point, non-blocking and other I/O groups sit beside the large ones
# (a small row the 3D view must not hide).  Used by t/0611 for the page at
# 40 and at 10,000 processes.
import random, sys

d, P = sys.argv[1], int(sys.argv[2])
rnd = random.Random(1)
slow = max(1, P // 20)
for p in range(P):
    n = lambda base, spread=0.05: base * (1 + rnd.uniform(-spread, spread))
    solve = n(1.0e6) * (3 if p < slow else 1)
    comp = {
        ".TAU application": n(5e3),
        "int main(int, char **) C [{src.c} {26,1}-{90,1}]": n(2e5),
        "solve [{solve.c} {12,1}-{40,1}]": solve,
        "void halo_pack(double *, int) [{halo.c} {8,1}-{30,1}]": n(6e4, 0.3),
    }
    comm = {
        "MPI_Allreduce()": (3.0e6 - solve if p >= slow else 0) + n(5e4),
        "MPI_Send()": n(2e4, 0.2), "MPI_Recv()": n(3e4, 0.2),
        "MPI_Isend()": n(4e3, 0.2), "MPI_Waitall()": n(1.2e4, 0.5),
        "MPI_Bcast()": n(1.5e4, 0.2),
    }
    io = {"MPI_File_write_at()": n(4e4) * (5 if p == 0 else 1), "MPI_File_open()": n(5e3)}
    lines = ["%d templated_functions_MULTI_TIME" % (len(comp) + len(comm) + len(io)),
             "# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Node Name</name>"
             "<value>n%d</value></attribute></metadata>" % (p // 32)]
    for name, t in comp.items():
        lines.append('"%s" 1 0 %.6G %.6G 0 GROUP="TAU_USER"' % (name, t, t))
    for name, t in list(comm.items()) + list(io.items()):
        lines.append('"%s" 10 0 %.6G %.6G 0 GROUP="MPI"' % (name, t, t))
    lines += ["0 aggregates", "0 userevents"]
    with open("%s/profile.%d.0.0" % (d, p), "w") as f:
        f.write("\n".join(lines) + "\n")

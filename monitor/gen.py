#!/usr/bin/env python3
"""gen.py - generate libmpiwatch's wrappers from mpi.spec.

  gen.py mpi.spec wrappers.c    C (+ Open MPI Fortran) wrappers, one variant
  gen.py mpi.spec ops.c         the op table (names, kinds)
  gen.py mpi.spec tramp.S       the dispatcher's x86-64 trampolines and symbol table
  gen.py mpi.spec forward.c     the same in plain C (the portable dispatcher, MW_PORTABLE=1)
  gen.py mpi.spec check.c       compile-time checks of mpi.spec against an MPI's mpi.h
"""
import re
import sys

KINDS = {
    'send': 'MW_KIND_SEND', 'recv': 'MW_KIND_RECV', 'sendrecv': 'MW_KIND_SENDRECV',
    'probe': 'MW_KIND_PROBE', 'wait': 'MW_KIND_WAIT', 'test': 'MW_KIND_TEST',
    'collective': 'MW_KIND_COLLECTIVE', 'rma_sync': 'MW_KIND_RMA_SYNC', 'io': 'MW_KIND_IO',
    'nb': 'MW_KIND_NONBLOCKING', 'init': 'MW_KIND_NONBLOCKING', 'start': 'MW_KIND_NONBLOCKING',
    'reqfree': 'MW_KIND_OTHER', 'comm': 'MW_KIND_COLLECTIVE', 'commfree': 'MW_KIND_OTHER',
    'iprobe': 'MW_KIND_TEST', 'other': 'MW_KIND_OTHER',
    # a rank ended in MPI_Init waited for every process of the job
    'init_manual': 'MW_KIND_COLLECTIVE', 'fin_manual': 'MW_KIND_COLLECTIVE', 'detach': 'MW_KIND_OTHER',
}
# (not MPI_Init: it may take long on large jobs, it is never judged by time)
BLOCKING = {'send', 'recv', 'sendrecv', 'probe', 'wait', 'collective', 'rma_sync', 'io', 'comm',
            'fin_manual', 'detach'}
# kinds whose wrappers may change the request table (the slot's pending count)
REQ_KINDS = {'nb', 'init', 'wait', 'test', 'start', 'reqfree'}
# spec attribute -> the call-record argument it fills (MW_ARG_* in mw_slot.h)
ARGS = {'comm': 'MW_ARG_COMM', 'peer': 'MW_ARG_PEER', 'tag': 'MW_ARG_TAG', 'root': 'MW_ARG_ROOT',
        'count': 'MW_ARG_COUNT', 'speer': 'MW_ARG_SEND_PEER', 'stag': 'MW_ARG_SEND_TAG',
        'dt': 'MW_ARG_DATATYPE', 'op': 'MW_ARG_OP'}
MODES = {'standard': 'MW_MODE_STANDARD', 'sync': 'MW_MODE_SYNC', 'buffered': 'MW_MODE_BUFFERED',
         'ready': 'MW_MODE_READY'}
HANDLE_F2C = {'MPI_Comm': 'PMPI_Comm_f2c', 'MPI_Datatype': 'PMPI_Type_f2c', 'MPI_Op': 'PMPI_Op_f2c',
              'MPI_Request': 'PMPI_Request_f2c', 'MPI_Win': 'PMPI_Win_f2c',
              'MPI_File': 'PMPI_File_f2c', 'MPI_Group': 'PMPI_Group_f2c', 'MPI_Info': 'PMPI_Info_f2c'}


class Fn:
    pass


def parse(path):
    fns = []
    for lineno, line in enumerate(open(path), 1):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split('|')]
        while len(parts) < 4:
            parts.append('')
        f = Fn()
        f.name, f.kind, args, attrs = parts[:4]
        f.where = '%s:%d' % (path, lineno)
        f.cname = 'MPI_' + f.name
        f.params = []
        if args != 'void':
            for a in args.split(','):
                a = a.strip()
                m = re.match(r'^(.*?)([A-Za-z_][A-Za-z0-9_]*)(\[\])?$', a)
                typ, nm, arr = m.group(1).strip(), m.group(2), m.group(3)
                if arr:
                    typ = typ + ' *'
                f.params.append((typ, nm, a))
        f.attrs = {}
        f.flags = set()
        for t in attrs.split():
            if '=' in t:
                k, v = t.split('=', 1)
                f.attrs[k] = v
            else:
                f.flags.add(t)
        if any('char' in p[0] for p in f.params) and 'manual' not in f.flags:
            f.flags.add('nofortran')
        fns.append(f)
    return fns


def ptype(f, name):
    for t, n, _ in f.params:
        if n == name:
            return t
    raise SystemExit('%s: no parameter %s' % (f.name, name))


def cexpr(f, lang, name, what):
    """An expression for parameter `name` of f as a value (what: int|handle)."""
    deref = name.startswith('*')
    n = name.lstrip('*')
    t = ptype(f, n)
    if lang == 'c':
        v = ('*' + n) if deref else n
        return 'MWH(%s)' % v if what == 'handle' else v
    # Fortran: every parameter is a pointer to MPI_Fint (or a buffer)
    if what == 'handle':
        base = t.replace('*', '').replace('const', '').strip()
        return 'MWH(%s(*(MPI_Fint *)%s))' % (HANDLE_F2C[base], n)
    return '(int)*(MPI_Fint *)%s' % n


def dtexpr(f, lang, name):
    if lang == 'c':
        return name
    return 'PMPI_Type_f2c(*(MPI_Fint *)%s)' % name


def gen_body(f, lang, call, prof=True, xcall=None):
    """Body of a wrapper (after the inactive check), with mw_site and
    mw_frame (the call site and the wrapper's frame) defined.  call: the real
    call expression statement assigning rc (C) or performing the call
    (Fortran).  prof: the body of the general wrapper (may profile: t0);
    else of the plain fast path (mwm.plain: no profile).  xcall: the call of
    the general wrapper, which the fast path leaves request arrays longer
    than MWM_MAX_WAIT to (so that it has no heap copy to keep)."""
    a = f.attrs
    k = f.kind
    L = []
    if prof:
        L.append('\tuint64_t t0 = mwm.profile ? mwm_prof_now() : 0;')
    poll = KINDS[k] == 'MW_KIND_TEST'
    if poll:
        L += gen_poll_entry(f, lang, xcall)
        return L + gen_after(f, lang, call, prof)
    L.append('\tstruct mw_slot_call *c = mwm_begin(MWM_OP_%s, %d, mw_site, mw_frame);'
             % (f.name, 1 if lang == 'f' else 0))
    for key, fld in (('comm', 'comm'),):
        if key in a:
            L.append('\tc->comm = %s;' % cexpr(f, lang, a[key], 'handle'))
    for key, fld in (('peer', 'peer'), ('tag', 'tag'), ('root', 'root'), ('count', 'count'),
                     ('speer', 'send_peer'), ('stag', 'send_tag')):
        if key in a:
            L.append('\tc->%s = %s;' % (fld, cexpr(f, lang, a[key], 'int')))
    if 'dt' in a:
        L.append('\tc->datatype = %s;' % cexpr(f, lang, a['dt'], 'handle'))
    if 'op' in a:
        L.append('\tc->op = %s;' % cexpr(f, lang, a['op'], 'handle'))
    if 'buf' in a:
        # the receive buffer, for the watcher's motion probe (monitor/motion.c)
        L.append('\tc->buf = (uint64_t)(uintptr_t)%s;' % a['buf'])
    if k in ('wait', 'test', 'start') and ('reqs' in a or 'req1' in a):
        # The handles before the call, for the completions.  One request:
        # a local.  An array: written once, straight into the call extension
        # the dumps read (mwm.x.reqs), or, beyond MWM_MAX_WAIT, into a heap
        # copy whose head goes there; a wrapped call made from inside the MPI
        # library (a generalized request's callback) would overwrite
        # mwm.x.reqs, which its generation number tells.
        if 'reqs' in a:
            hexpr = req_array_head(L, f, lang, xcall)
            L.append('\tuint32_t mw_gen;')
            L += req_array_copy(hexpr, '\t', req_array_c(f, lang))
        else:
            L.append('\tint mw_n = 1;')
            if lang == 'c':
                L.append('\tuint64_t mw_h1 = MWH(*%s);' % a['req1'])
            else:
                L.append('\tuint64_t mw_h1 = MWH(PMPI_Request_f2c(*(MPI_Fint *)%s));' % a['req1'])
            L += ['\t' + x for x in REQ1_WRITE]
        L.append('\tc->nreqs = mw_n;')
    if k == 'reqfree':
        if lang == 'c':
            L.append('\tuint64_t mw_h = MWH(*%s);' % a['req1'])
        else:
            L.append('\tuint64_t mw_h = MWH(PMPI_Request_f2c(*(MPI_Fint *)%s));' % a['req1'])
    if k == 'commfree':
        L.append('\tuint64_t mw_h = c->comm;')
    L.append('\t(void)c;')
    L.append('\tmwm_commit_as(c, %d, %d);' % (1 if k in BLOCKING else 0, 1 if KINDS[k] == 'MW_KIND_TEST' else 0))
    return L + gen_after(f, lang, call, prof)


# The one request of MPI_Test/MPI_Wait/MPI_Start written into the call
# extension: like an array's copy (req_array_copy), it bumps the extension's
# generation number, so that an outer wrapper whose MPI call ran this one
# inside (a generalized request's callback) does not read its handle as one
# of its own array's (issue 34, t/unit/monitor_poll.c case 6).
REQ1_WRITE = ('mwm.x.reqs[0] = mw_h1;', 'mwm.x.nreqs = 1;', '++mwm.x.gen;')


def req_array_head(L, f, lang, xcall):
    """Declare the request array's copy (mw_heap, mw_before) and count
    (mw_n) of a wait/test/start wrapper into L; the plain fast path (xcall
    given) leaves arrays over MWM_MAX_WAIT to the general wrapper.  Return
    the expression of handle i."""
    cnt, arr = f.attrs['reqs'].split(',')
    cnt_e = cnt if lang == 'c' else '(int)*(MPI_Fint *)%s' % cnt
    L.append('\tuint64_t *mw_heap = NULL, *mw_before = mwm.x.reqs;')
    L.append('\tint mw_n = %s;' % cnt_e)
    if xcall and lang == 'c':
        L.append('\tif (__builtin_expect(mw_n > MWM_MAX_WAIT, 0))')
        L.append('\t\treturn %s;' % xcall)
    elif xcall:
        L.append('\tif (__builtin_expect(mw_n > MWM_MAX_WAIT, 0)) {')
        L.append('\t\t%s;' % xcall)
        L.append('\t\treturn;')
        L.append('\t}')
    return ('MWH(%s[i])' % arr) if lang == 'c' else 'MWH(PMPI_Request_f2c(((MPI_Fint *)%s)[i]))' % arr


def req_array_c(f, lang):
    """The C request array parameter of f (for mwm_reqs_get/mwm_reqs_same),
    or None for Fortran (its handles need PMPI_Request_f2c one by one)."""
    return f.attrs['reqs'].split(',')[1] if lang == 'c' else None


def req_array_copy(hexpr, ind, carr=None):
    """Lines (indented by ind) that copy the handles before the call once,
    straight into the call extension the dumps read (mwm.x.reqs), or, beyond
    MWM_MAX_WAIT, into a heap copy whose head goes there, and bump its
    generation number (mw_gen): a wrapped call made from inside the MPI
    library (a generalized request's callback) would overwrite mwm.x.reqs,
    which that number tells."""
    return [ind + x for x in (
        'if (mw_n > MWM_MAX_WAIT)',
        '\tmw_before = mw_heap = malloc(sizeof(uint64_t) * (size_t)mw_n);',
        'if (mw_before)',
    ) + ((
        '\tmwm_reqs_get(mw_before, %s, mw_n);' % carr,
    ) if carr else (
        '\tfor (int i = 0; i < mw_n; i++)',
        '\t\tmw_before[i] = %s;' % hexpr,
    )) + (
        'if (mw_heap)',
        '\tmemcpy(mwm.x.reqs, mw_heap, sizeof(mwm.x.reqs));',
        'mwm.x.nreqs = mw_n < MWM_MAX_WAIT ? mw_n : (mw_before ? MWM_MAX_WAIT : 0);',
        'mw_gen = ++mwm.x.gen;')]


def gen_poll_entry(f, lang, xcall, force_full=False):
    """Entry of a test-family wrapper (MPI_Test*, MPI_Iprobe, MPI_Improbe):
    a poll that repeats the call record as it stands (same op, site, frame,
    arguments and request handles: mwm_poll_again) publishes only the entry
    time and counters (mwm_poll_enter); any other writes the record.
    force_full: the caller has found that the poll does not repeat the
    record (gen_poll_split): write it, without the comparison."""
    a = f.attrs
    lng = 1 if lang == 'f' else 0
    L = ['\tstruct mw_slot_call *c;']
    full = ['\t\tc = mwm_begin(MWM_OP_%s, %d, mw_site, mw_frame);' % (f.name, lng)]
    same = []
    for key, fld, what in (('comm', 'comm', 'handle'), ('peer', 'peer', 'int'), ('tag', 'tag', 'int')):
        if key in a:
            L.append('\t%s mw_%s = %s;' % ('uint64_t' if what == 'handle' else 'int32_t', fld,
                                           cexpr(f, lang, a[key], what)))
            same.append('c->%s == mw_%s' % (fld, fld))
            full.append('\t\tc->%s = mw_%s;' % (fld, fld))
    for key in a:
        if key not in ('comm', 'peer', 'tag', 'reqs', 'req1', 'flag', 'idx', 'outcount', 'indices'):
            raise SystemExit('%s: %s: gen_poll_entry does not store %s=' % (f.where, f.name, key))
    if 'reqs' in a:
        # an array: compared with the call extension, else written once,
        # straight into it (or, beyond MWM_MAX_WAIT, into a heap copy whose
        # head goes there); a wrapped call made from inside the MPI library
        # (a generalized request's callback) would overwrite mwm.x.reqs,
        # which its generation number tells.
        hexpr = req_array_head(L, f, lang, xcall)
        L.append('\tuint32_t mw_gen;')
        if force_full:
            L += [x[1:] for x in full]
            L += req_array_copy(hexpr, '\t', req_array_c(f, lang))
            L += ['\tc->nreqs = mw_n;', '\tmwm_commit_as(c, 0, 1);', '\tmwm_poll_published(c);']
            return L
        L.append('\tint mw_again = mwm_poll_again(MWM_OP_%s, %d, mw_site, mw_frame) && mw_n <= MWM_MAX_WAIT &&'
                 % (f.name, lng))
        L.append('\t\t       mwm.x.nreqs == mw_n && mwm.slot->call.nreqs == mw_n;')
        carr = req_array_c(f, lang)
        if carr:
            L.append('\tif (mw_again)')
            L.append('\t\tmw_again = mwm_reqs_same(mwm.x.reqs, %s, mw_n);' % carr)
        else:
            L.append('\tif (mw_again) {')
            L.append('\t\tint i = 0;')
            L.append('\t\twhile (i < mw_n && mwm.x.reqs[i] == %s)' % hexpr)
            L.append('\t\t\ti++;')
            L.append('\t\tmw_again = i == mw_n;')
            L.append('\t}')
        L.append('\tif (mw_again) {')
        L.append('\t\tc = mwm_poll_enter();')
        L.append('\t\tmw_gen = mwm.x.gen;')
        L.append('\t} else {')
        L += full
        L += req_array_copy(hexpr, '\t\t', carr)
        L.append('\t\tc->nreqs = mw_n;')
        L.append('\t\tmwm_commit_as(c, 0, 1);')
        L.append('\t\tmwm_poll_published(c);')
        L.append('\t}')
        return L
    if 'req1' in a:
        if lang == 'c':
            L.append('\tuint64_t mw_h1 = MWH(*%s);' % a['req1'])
        else:
            L.append('\tuint64_t mw_h1 = MWH(PMPI_Request_f2c(*(MPI_Fint *)%s));' % a['req1'])
        L.append('\tint mw_n = 1;')
        same += ['mwm.x.nreqs == 1', 'mwm.x.reqs[0] == mw_h1']
        full += ['\t\t' + x for x in REQ1_WRITE] + ['\t\tc->nreqs = mw_n;']
    if force_full:
        return L + [x[1:] for x in full] + ['\tmwm_commit_as(c, 0, 1);', '\tmwm_poll_published(c);']
    L.append('\tc = &mwm.slot->call;')
    L.append('\tif (mwm_poll_again(MWM_OP_%s, %d, mw_site, mw_frame)%s)'
             % (f.name, lng, ''.join(' && ' + x for x in same)))
    L.append('\t\tc = mwm_poll_enter();')
    L.append('\telse {')
    L += full
    L.append('\t\tmwm_commit_as(c, 0, 1);')
    L.append('\t\tmwm_poll_published(c);')
    L.append('\t}')
    return L


def gen_poll_split(f):
    """The plain C fast path of an MPI_Test* wrapper (kind test) or of
    MPI_Iprobe/MPI_Improbe (kind iprobe), so that a
    poll that completes nothing (hpcc's MPIRandomAccess makes millions)
    keeps nothing live across the call but what the completion test needs
    (issue 34): the exported wrapper mwv_X compares the poll with the call
    record; a repeat publishes only mwm_poll_enter(), calls, and when
    nothing completed ends with mwm_poll_finish(0, 1); a poll that completed
    something (or failed) is left to mwr_X (noinline, tail-called with the
    result), which attributes the completions from the handles in
    mwm.x.reqs (unless a nested call changed them, which mwm.x.gen tells) or
    the one handle mw_h1.  Any other poll is left whole to mwf_X
    (noinline: writes the record, its handles into the call extension
    mwm.x.reqs, calls and attributes), an array of more than MWM_MAX_WAIT
    handles (more than the call extension holds) to mwb_X (the same after
    a comparison).  Before all that, a poll within the same tick of the
    watcher's coarse clock as the last published poll (mwm_poll_skip)
    neither compares nor publishes: mwk_X saves the handles before the
    call (MPI overwrites a completed one) in mw_px (up to MWM_REQS_BULK;
    mwl_X up to MWM_MAX_WAIT, in its frame), calls, and counts itself
    (mwm_poll_skipped); on a completion or an error, mws_X (noinline)
    writes the record with the handles of this call and attributes as a
    published poll does.  A probe (no handles) saves the arguments its
    record holds (comm, source, tag) instead: one that finds nothing
    skips; one that finds a message, or fails, goes to mws_X, which writes
    the record with them (a found message completes nothing: the slot
    holds no more of it; the arguments are saved in mwm.probe, not in the
    frame).  Return (the lines of mwr_X, mws_X, mwf_X, mwb_X,
    mwl_X, mwk_X, mwp_X and mwy_X, the body of mwv_X after the plain
    check)."""
    a = f.attrs
    args = ', '.join(p[1] for p in f.params)
    # what the completions read: the flag, index and out-count parameters
    used = [a[k] for k in ('idx', 'flag', 'outcount', 'indices') if k in a]
    rparams = [p for p in f.params if p[1] in used]
    if 'reqs' in a:
        extra = 'int mw_n, uint32_t mw_gen'
        head = ['\tuint64_t *mw_heap = NULL, *mw_before = mwm.x.reqs;']
    else:
        extra = 'uint64_t mw_h1'
        head = []
    probe = f.kind == 'iprobe'
    # a probe's arguments, which its record holds (source, tag, comm)
    rec = [(key, fld, what, a[key]) for key, fld, what in
           (('comm', 'comm', 'handle'), ('peer', 'peer', 'int'), ('tag', 'tag', 'int')) if key in a]
    pre = []
    if not probe:
        rdecl = ', '.join(['int rc'] + [p[2] for p in rparams] + [extra])
        pre += ['static int mwr_%s(%s) __attribute__((noinline));' % (f.cname, rdecl),
                'static int mwr_%s(%s)' % (f.cname, rdecl), '{']
        pre += head
        pre += gen_after(f, 'c', '\t/* the call was made by mwv_%s */' % f.cname, False)
        pre += ['\treturn rc;', '}']
    # the exported wrapper's body.  What mwr_X needs after the call goes
    # into mw_px, a volatile local: it is stored once, and read back (after
    # the call) only on the completion path, so no callee-saved register
    # holds it across the call (their saves and restores were a third of an
    # idle poll's instructions, issue 34).  Volatile, not address-taken: no
    # stack canary.
    pxf = [(p[1], '__typeof__(%s)' % p[1]) for p in rparams]
    if 'reqs' in a:
        pxf += [('mw_n', 'int'), ('mw_gen', 'uint32_t')]
    elif 'req1' in a:
        pxf += [('mw_h1', 'uint64_t')]
    # any other poll: mwf_X or mwb_X writes the record (mwb_X unless it
    # repeats), calls and attributes (noinline,
    # so that the fast path below has no code but the repeat's, few
    # registers, and nothing saved across the call).  It gets the wrapper's
    # frame alone, so that the wrapper tail-calls it with every argument in
    # a register: the call site is the frame's return address (frame[1],
    # as the stack walk reads it), and the frame is the one mwf_X itself
    # then sets up at the same place.
    # mwf_X is given the polls found not to repeat the record (it writes it
    # without comparing again), mwb_X the arrays of more than MWM_MAX_WAIT
    # handles (its comparison finds them never repeated: the call extension
    # holds MWM_MAX_WAIT; it writes the record with a heap copy).
    fdecl = ''.join(p[2] + ', ' for p in f.params) + 'void *mw_frame'
    for pfx, full in (('mwf', True), ('mwb', False)):
        if pfx == 'mwb' and 'reqs' not in a:
            continue
        if pfx == 'mwb':
            # tail-called by mwv_X or mwk_X: its frame is where the
            # wrapper's was, its return address the call site
            bdecl = ', '.join(p[2] for p in f.params)
            pre += ['static int mwb_%s(%s) __attribute__((noinline));' % (f.cname, bdecl),
                    'static int mwb_%s(%s)' % (f.cname, bdecl), '{',
                    '\tvoid *mw_site = __builtin_return_address(0), *mw_frame = __builtin_frame_address(0);']
        else:
            pre += ['static int %s_%s(%s) __attribute__((noinline));' % (pfx, f.cname, fdecl),
                    'static int %s_%s(%s)' % (pfx, f.cname, fdecl), '{',
                    '\tvoid *mw_site = ((void **)mw_frame)[1];']
        pre += gen_poll_entry(f, 'c', None, force_full=full)
        pre += gen_after(f, 'c', '\tint rc = P%s(%s);' % (f.cname, args), False)
        pre += ['\treturn rc;', '}']
    # mws_X: a skipped poll completed something or failed.  It gets the
    # handles this call was given (saved before it), so that a skipped poll
    # on another array than the record's (permuted, or a handle replaced,
    # within the tick) attributes its own completions.
    # A probe's mws_X finds the arguments its record holds (a skipped
    # probe's may differ from the record's) in mwm.probe, where mwk_X saved
    # them, and that it found a message or failed is all it needs of the
    # call.  An array of more than
    # MWM_REQS_BULK handles comes saved in mw_big (mwl_X's frame), else in
    # mw_a (mw_big NULL).
    sparams = [] if probe else rparams
    if 'reqs' in a:
        sextra = ['int mw_n', 'struct mwm_reqs8 mw_a', 'const MPI_Request *mw_big']
    elif 'req1' in a:
        sextra = ['uint64_t mw_h1']
    else:
        sextra = []
    sdecl = ', '.join(['int rc'] + [p[2] for p in sparams] + sextra + ['void *mw_frame'])
    pre += ['static int mws_%s(%s) __attribute__((noinline));' % (f.cname, sdecl),
            'static int mws_%s(%s)' % (f.cname, sdecl), '{',
            '\tvoid *mw_site = ((void **)mw_frame)[1];',
            '\tstruct mw_slot_call *c = mwm_begin(MWM_OP_%s, 0, mw_site, mw_frame);' % f.name]
    if 'reqs' in a:
        pre += ['\tuint64_t *mw_heap = NULL, *mw_before = mwm.x.reqs;',
                '\tif (mw_big)',
                '\t\tmwm_reqs_get(mwm.x.reqs, mw_big, mw_n);',
                '\telse {',
                '\t\tint n = mw_n;',
                '#define MWM_PUT1(i) mwm.x.reqs[i] = mw_a.h##i',
                '\t\tMWM_REQS_UNROLL(MWM_PUT1)',
                '#undef MWM_PUT1',
                '\t}',
                '\tmwm.x.nreqs = mw_n;',
                '\tuint32_t mw_gen = ++mwm.x.gen;']
    elif 'req1' in a:
        pre += ['\tint mw_n = 1;'] + ['\t' + x for x in REQ1_WRITE]
    else:
        pre += ['\tc->%s = mwm.probe.%s;' % (fld, fld) for _, fld, _, _ in rec]
    if not probe:
        pre.append('\tc->nreqs = mw_n;')
    pre += ['\tmwm_commit_as(c, 0, 1);', '\tmwm_poll_published(c);']
    pre += gen_after(f, 'c', '\t/* the call was made by mwv_%s */' % f.cname, False)
    pre += ['\treturn rc;', '}']
    fcall = 'mwf_%s(%s, mw_frame)' % (f.cname, args)
    bcall = 'mwb_%s(%s)' % (f.cname, args)
    decl = ', '.join(p[2] for p in f.params)
    # the skip path: mwk_X, tail-called by mwv_X when mwm_poll_skip() (its
    # frame is where mwv_X's was: the call site is its return address).  A
    # function of its own, so that the compare path's callee-saved
    # registers are not saved and restored on every skipped poll.  The
    # handles before the call go into mw_px (volatile, not address-taken:
    # no stack canary; read back only on the completion path).
    # A probe saves the arguments its record holds instead of handles, in
    # mwm.probe (process-local; not in its frame: mwm.h says why).
    # Above MWM_REQS_BULK handles, mwl_X (up to MWM_MAX_WAIT, the call
    # extension's capacity) or mwb_X (beyond: compared and published).
    lcall = 'mwl_%s(%s)' % (f.cname, args)
    K = ['static int mwk_%s(%s) __attribute__((noinline));' % (f.cname, decl),
         'static int mwk_%s(%s)' % (f.cname, decl), '{', '\tstruct {']
    K += ['\t\t__typeof__(%s) %s;' % (p[1], p[1]) for p in rparams]
    if 'reqs' in a:
        K += ['\t\tint mw_n;', '\t\tstruct mwm_reqs8 mw_a;']
    elif 'req1' in a:
        K += ['\t\tuint64_t mw_h1;', '\t\tconst void *mw_ra;']
    K.append('\t} volatile mw_px;')
    if 'reqs' in a:
        cnt, arr = a['reqs'].split(',')
        # (one handle goes to mwk1_X, below)
        K += ['\tint mw_n = %s;' % cnt,
              '\tif (__builtin_expect((unsigned)mw_n > MWM_REQS_BULK, 0))',
              '\t\treturn (unsigned)mw_n > MWM_MAX_WAIT ? %s : %s; /* more than mw_px takes */' % (bcall, lcall),
              '\telse {',
              '\t\tint n = mw_n;',
              '#define MWM_SAVE1(i) mw_px.mw_a.h##i = MWH(%s[i])' % arr,
              '\t\tMWM_REQS_UNROLL(MWM_SAVE1)',
              '#undef MWM_SAVE1',
              '\t}',
              '\tmw_px.mw_n = mw_n;']
    elif 'req1' in a:
        K.append('\tmw_px.mw_h1 = MWH(*%s);' % a['req1'])
        K.append('\tmw_px.mw_ra = %s;' % a['req1'])
    else:
        K += ['\tmwm.probe.%s = %s;' % (fld, cexpr(f, 'c', v, what)) for _, fld, what, v in rec]
    K += ['\tmw_px.%s = %s;' % (p[1], p[1]) for p in rparams]
    sdone = '*mw_px.%s' % (a['outcount'] if 'outcount' in a else a['flag'])

    def skip_call(saved):
        # the call of a skip path (mwk_X, mwk1_X, mwl_X) and its one
        # test: the flag (or out-count: 0, a count or MPI_UNDEFINED) is
        # read even when the call failed (a valid pointer; its value then
        # does not matter; MPI_SUCCESS is 0, mwm_glue.h); a completion or
        # an error goes to mws_X with the handles saved (saved: its
        # arguments after those of the call)
        return ['\tint rc = P%s(%s);' % (f.cname, args),
                '\tif (__builtin_expect(rc | %s, 0))' % sdone,
                '\t\treturn mws_%s(%s);' % (f.cname, ', '.join(
                    ['rc'] + ['mw_px.' + p[1] for p in sparams] + saved + ['__builtin_frame_address(0)'])),
                '\tmwm_poll_skipped();']
    K += skip_call(['mw_px.mw_n', 'mw_px.mw_a', 'NULL'] if 'reqs' in a else
                   ['mw_px.mw_h1'] if 'req1' in a else [])
    # nothing completed on one handle and nothing armed: arm its variable,
    # so that the next polls on it in this tick are blind (mwm_blind_arm)
    if 'req1' in a:
        K += ['\tif (__builtin_expect(mwm.blind.a == MWM_BLIND_NONE, 0))',
              '\t\tmwm_blind_arm(mw_px.mw_ra, mw_px.mw_h1, MWM_USER_SP());']
    K += ['\treturn rc;', '}']
    if 'reqs' in a:
        # mwk1_X: the skip path of an array of one handle (hpcc's
        # MPI_Testany), which arms its variable when it completed nothing
        # (mwk_X, for the other counts, neither tests the count again nor
        # saves the array's address)
        K1 = ['static int mwk1_%s(%s) __attribute__((noinline));' % (f.cname, decl),
              'static int mwk1_%s(%s)' % (f.cname, decl), '{', '\tstruct {']
        K1 += ['\t\t__typeof__(%s) %s;' % (p[1], p[1]) for p in rparams]
        K1 += ['\t\tstruct mwm_reqs8 mw_a;', '\t\tconst void *mw_ra;', '\t} volatile mw_px;',
               '\tmw_px.mw_a.h0 = MWH(%s[0]);' % arr, '\tmw_px.mw_ra = %s;' % arr]
        K1 += ['\tmw_px.%s = %s;' % (p[1], p[1]) for p in rparams]
        K1 += skip_call(['1', 'mw_px.mw_a', 'NULL'])
        K1 += ['\tif (__builtin_expect(mwm.blind.a == MWM_BLIND_NONE, 0))',
               '\t\tmwm_blind_arm(mw_px.mw_ra, mw_px.mw_a.h0, MWM_USER_SP());',
               '\treturn rc;', '}']
        K += K1
    if 'reqs' in a:
        # mwl_X: the skip path of an array of MWM_REQS_BULK + 1 to
        # MWM_MAX_WAIT handles (tail-called by mwk_X: its frame is where
        # mwv_X's was).  The handles before the call are copied as they
        # are (MPI_Request: no conversion) into its frame, in blocks of
        # MWM_REQS_BULK: the first and the last (overlapping when n < 16;
        # n > MWM_REQS_BULK), then those between (no loop up to 16: hpcc's
        # 16), and read only on the completion path, which
        # mws_X takes a pointer to (a call, not a tail call: the copy is in
        # this frame).  Never more than MWM_MAX_WAIT handles (mwk_X's test),
        # so the copy has no canary (an array in the frame would get one).
        cnt, arr = a['reqs'].split(',')
        pre += ['static int mwl_%s(%s) __attribute__((noinline, no_stack_protector,' % (f.cname, decl),
                '\toptimize("no-tree-loop-distribute-patterns")));',
                'static int mwl_%s(%s)' % (f.cname, decl), '{', '\tstruct {']
        pre += ['\t\t__typeof__(%s) %s;' % (p[1], p[1]) for p in rparams]
        pre += ['\t\tint mw_n;', '\t\tconst MPI_Request *mw_saved;', '\t} volatile mw_px;',
                '\tMPI_Request mw_saved[MWM_MAX_WAIT];',
                '\tint mw_n = %s;' % cnt,
                '#define MWM_SAVE8(i) __builtin_memcpy(&mw_saved[i], &%s[i], MWM_REQS_BULK * sizeof(MPI_Request))' % arr,
                '\tMWM_SAVE8(0);',
                '\tMWM_SAVE8(mw_n - MWM_REQS_BULK);',
                '\tif (__builtin_expect(mw_n > 2 * MWM_REQS_BULK, 0))',
                '\t\tfor (int i = MWM_REQS_BULK; i < mw_n - MWM_REQS_BULK; i += MWM_REQS_BULK)',
                '\t\t\tMWM_SAVE8(i);',
                '#undef MWM_SAVE8',
                '\tmw_px.mw_n = mw_n;',
                '\tmw_px.mw_saved = mw_saved; /* (read back: no callee-saved register for it) */']
        pre += ['\tmw_px.%s = %s;' % (p[1], p[1]) for p in rparams]
        pre += skip_call(['mw_px.mw_n', '(struct mwm_reqs8){0}', 'mw_px.mw_saved'])
        pre += ['\treturn rc;', '}']
    pre += K
    # the compare path: mwp_X, tail-called by mwv_X otherwise (the same
    # frame and call site)
    P = ['static int mwp_%s(%s) __attribute__((noinline));' % (f.cname, decl),
         'static int mwp_%s(%s)' % (f.cname, decl), '{',
         '\tvoid *mw_site = __builtin_return_address(0), *mw_frame = __builtin_frame_address(0);']
    if not probe:  # (a probe keeps nothing across the call)
        P += ['\tstruct {'] + ['\t\t%s %s;' % (t, n) for n, t in pxf] + ['\t} volatile mw_px;']
    L = P
    if 'reqs' in a:
        cnt, arr = a['reqs'].split(',')
        L.append('\tint mw_n = %s;' % cnt)
        # the record's count equals mw_n (<= MWM_MAX_WAIT) only if its
        # writer, this op from this site (mwm_poll_again), wrote mw_n
        # handles into mwm.x.reqs as well
        L.append('\tif (!mwm_poll_again(MWM_OP_%s, 0, mw_site, mw_frame) || mwm.slot->call.nreqs != mw_n ||'
                 % f.name)
        L.append('\t    !mwm_reqs_same(mwm.x.reqs, %s, mw_n))' % arr)
        L.append('\t\treturn %s;' % fcall)
        L.append('\tmw_px.mw_n = mw_n;')
        L.append('\tmw_px.mw_gen = mwm.x.gen;')
    elif probe:
        # the record's source, tag and communicator
        L.append('\tconst struct mw_slot_call *c = &mwm.slot->call;')
        L.append('\tif (!mwm_poll_again(MWM_OP_%s, 0, mw_site, mw_frame)%s)' % (f.name, ''.join(
            ' ||\n\t    c->%s != %s' % (fld, cexpr(f, 'c', v, what)) for _, fld, what, v in rec)))
        L.append('\t\treturn %s;' % fcall)
    else:
        L.append('\tuint64_t mw_h1 = MWH(*%s);' % a['req1'])
        L.append('\tif (!mwm_poll_again(MWM_OP_%s, 0, mw_site, mw_frame) || mwm.x.nreqs != 1 ||' % f.name)
        L.append('\t    mwm.x.reqs[0] != mw_h1)')
        L.append('\t\treturn %s;' % fcall)
        L.append('\tmw_px.mw_h1 = mw_h1;')
    if probe:
        # what it finds changes nothing the slot holds: no completion test
        L += ['\tmwm_poll_enter_tick();',
              '\tint rc = P%s(%s);' % (f.cname, args),
              '\tmwm_poll_finish(0, 0);',
              '\treturn rc;', '}']
        pre += L
        return pre, mwv_tail(f, args, bcall, decl, pre)
    L += ['\tmw_px.%s = %s;' % (p[1], p[1]) for p in rparams]
    L.append('\tmwm_poll_enter_tick();')
    L.append('\tint rc = P%s(%s);' % (f.cname, args))
    if 'outcount' in a:
        done = '*mw_px.%s != 0' % a['outcount']  # MPI_UNDEFINED or a count: mwr_ tells
    else:
        done = '*mw_px.%s' % a['flag']
    L.append('\tif (__builtin_expect(rc != MPI_SUCCESS || %s, 0))' % done)
    L.append('\t\treturn mwr_%s(%s);' % (f.cname, ', '.join(['rc'] + ['mw_px.' + n for n, t in pxf])))
    # a repeat that completed nothing changed no request: the pending count
    # is as the last wrapper that changed the table left it (each refreshes
    # it at its finish, a nested one included: check_pending_refresh)
    L.append('\tmwm_poll_finish(0, 0);')
    L += ['\treturn rc;', '}']
    pre += L
    return pre, mwv_tail(f, args, bcall, decl, pre)


def mwv_tail(f, args, bcall, decl, pre):
    """The body of mwv_X around the plain check (gen_poll_split), as the
    lines before it and after it: a blind poll (monitor/blind.c) calls the
    MPI at once; a poll
    within the tick of the last published one goes to mwk_X, an array of
    more handles than the call extension holds to mwb_X (it writes the
    record, with a heap copy), any other to mwp_X (the compare path, a
    memcmp above MWM_REQS_BULK handles).  Adds
    mwy_X, the general wrapper's entry, to pre."""
    a = f.attrs
    V = []
    # a blind poll (monitor/blind.c): the armed variable, still holding
    # the armed handle, one handle: the MPI at once, counted, nothing saved
    blind = ['\t\tmwm.blind.n++;', '\t\treturn P%s(%s);' % (f.cname, args), '\t}']
    if 'reqs' in a:
        # an array of one handle: blind, or skipped by mwk1_X
        cnt, arr = a['reqs'].split(',')
        V += ['\tif (__builtin_expect(%s == 1, 1)) {' % cnt,
              '\t\tif (__builtin_expect((uint64_t)(uintptr_t)%s == __atomic_load_n(&mwm.blind.a, __ATOMIC_RELAXED), 1) &&' % arr,
              '\t\t    MWH(%s[0]) == mwm.blind.h) {' % arr]
        V += ['\t' + x for x in blind]
        V += ['\t\tif (__builtin_expect(mwm_poll_skip(), 1))',
              '\t\t\treturn mwk1_%s(%s);' % (f.cname, args),
              '\t}']
    elif 'req1' in a:
        r1 = a['req1']
        V += ['\tif (__builtin_expect((uint64_t)(uintptr_t)%s == __atomic_load_n(&mwm.blind.a, __ATOMIC_RELAXED), 1) &&' % r1,
              '\t    MWH(*%s) == mwm.blind.h) {' % r1]
        V += blind
    V += ['\tif (__builtin_expect(mwm_poll_skip(), 1))',
          '\t\treturn mwk_%s(%s);' % (f.cname, args)]
    head, V = V, []
    if 'reqs' in a:
        V.append('\tif (__builtin_expect((unsigned)%s > MWM_MAX_WAIT, 0))' % a['reqs'].split(',')[0])
        V.append('\t\treturn %s;' % bcall)
    V.append('\treturn mwp_%s(%s);' % (f.cname, args))
    # the general wrapper's entry for mwv_X, which sets up no frame of its
    # own (only tail calls: every path's callee finds the call site at its
    # return address and its frame where the wrapper's was)
    pre += ['static int mwy_%s(%s) __attribute__((noinline));' % (f.cname, decl),
            'static int mwy_%s(%s)' % (f.cname, decl), '{',
            '\tif (!mwm.on)',
            '\t\treturn P%s(%s);' % (f.cname, args),
            '\treturn mwx_%s(%s, __builtin_return_address(0), __builtin_frame_address(0));' % (f.cname, args),
            '}']
    return head, V


def gen_after(f, lang, call, prof):
    """The real call and what follows it in a wrapper."""
    a = f.attrs
    k = f.kind
    L = []
    L.append(call)
    L.append('\tunsigned mw_done = 0;')
    ok = '(rc == MPI_SUCCESS)' if lang == 'c' else '(*ierr == MPI_SUCCESS)'
    if k in BLOCKING and k not in ('wait',):
        L.append('\tif (%s)' % ok)
        L.append('\t\tmw_done = 1;')
    if k in ('send', 'sendrecv'):
        sp, st = ('c->send_peer', 'c->send_tag') if k == 'sendrecv' else ('c->peer', 'c->tag')
        L.append('\tif (%s)' % ok)
        L.append('\t\tmwm_sent_as(MWM_OP_%s, %d, %s, c->comm, %s, %s, c->count, c->datatype);'
                 % (f.name, 1 if lang == 'f' else 0, MODES.get(a.get('mode'), 'MW_MODE_NONE'), sp, st))
    if k in ('nb', 'init'):
        req = a['req']
        rexpr = ('MWH(*%s)' % req) if lang == 'c' else 'MWH(PMPI_Request_f2c(*(MPI_Fint *)%s))' % req
        L.append('\tif (%s)' % ok)
        L.append('\t\tmwm_req_new(%s, MWM_TABLE_%s, %d);' % (rexpr, a['table'].upper(),
                                                          1 if k == 'init' else 0))
    if k in ('wait', 'test', 'start') and 'reqs' in a:
        L.append('\tif (!mw_heap && mwm.x.gen != mw_gen)')
        L.append('\t\tmw_before = NULL; /* overwritten by a nested call: completions not attributed */')
    if k == 'start':
        L.append('\tif (%s)' % ok)
        if 'reqs' in a:
            L.append('\t\tfor (int i = 0; i < mw_n && mw_before; i++)')
            L.append('\t\t\tmwm_req_start(mw_before[i]);')
        else:
            L.append('\t\tmwm_req_start(mw_h1);')
    if k == 'reqfree':
        L.append('\tif (%s)' % ok)
        L.append('\t\tmwm_req_free(mw_h);')
    if k == 'commfree':
        L.append('\tif (%s) {' % ok)
        L.append('\t\tmwm_comms_remove(&mwm.comms, mw_h);')
        L.append('\t\tmw_slot_comm_remove(mwm.slot, mw_h);')
        L.append('\t}')
    if k == 'comm':
        nc = a['newcomm']
        if lang == 'c':
            L.append('\tif (%s)' % ok)
            L.append('\t\tmwm_glue_comm_created(%s, *%s, "%s");' % (a['comm'], nc, a['how']))
        else:
            L.append('\tif (%s)' % ok)
            L.append('\t\tmwm_glue_comm_created(PMPI_Comm_f2c(*(MPI_Fint *)%s), '
                     'PMPI_Comm_f2c(*(MPI_Fint *)%s), "%s");' % (a['comm'], nc, a['how']))
    if k in ('wait', 'test'):
        # which requests completed
        def intv(n):
            return n if lang == 'c' else '(int)*(MPI_Fint *)' + n
        flag = a.get('flag')
        cond = ok
        if flag:
            cond = '%s && %s' % (ok, ('*%s' % flag) if lang == 'c' else '*(MPI_Fint *)%s' % flag)
        one_based = '' if lang == 'c' else ' - 1'
        L.append('\tif (%s%s) {' % (cond, ' && mw_before' if 'reqs' in a else ''))
        if 'idx' in a:
            L.append('\t\tint mw_i = %s;' % (('*%s' % a['idx']) if lang == 'c' else '(int)*(MPI_Fint *)%s' % a['idx']))
            L.append('\t\tif (mw_i != MPI_UNDEFINED && mw_i%s >= 0 && mw_i%s < mw_n)' % (one_based, one_based))
            L.append('\t\t\tmw_done += mwm_req_done(mw_before[mw_i%s]);' % one_based)
        elif 'outcount' in a:
            oc = ('*%s' % a['outcount']) if lang == 'c' else '(int)*(MPI_Fint *)%s' % a['outcount']
            ind = a['indices']
            L.append('\t\tint mw_oc = %s;' % oc)
            L.append('\t\tfor (int j = 0; mw_oc != MPI_UNDEFINED && j < mw_oc; j++) {')
            if lang == 'c':
                L.append('\t\t\tint mw_i = %s[j];' % ind)
            else:
                L.append('\t\t\tint mw_i = (int)((MPI_Fint *)%s)[j] - 1;' % ind)
            L.append('\t\t\tif (mw_i >= 0 && mw_i < mw_n)')
            L.append('\t\t\t\tmw_done += mwm_req_done(mw_before[mw_i]);')
            L.append('\t\t}')
        elif 'reqs' in a:
            L.append('\t\tfor (int i = 0; i < mw_n; i++)')
            L.append('\t\t\tmw_done += mwm_req_done(mw_before[i]);')
        else:
            L.append('\t\tmw_done += mwm_req_done(mw_h1);')
        L.append('\t}')
        if 'reqs' in a:
            L.append('\tif (mw_heap)')
            L.append('\t\tfree(mw_heap);')
    elif k == 'start' and 'reqs' in a:
        L.append('\tif (mw_heap)')
        L.append('\t\tfree(mw_heap);')
    if 'hook' in a:
        fn, arg = (a['hook'] + ':').split(':')[:2]
        L.append('\tif (%s)' % ok)
        L.append('\t\t%s(%s);' % (fn, cexpr(f, lang, arg, 'handle') if arg else ''))
    if KINDS[k] == 'MW_KIND_TEST':
        L.append('\tmwm_poll_finish(mw_done, %d);' % (1 if k in REQ_KINDS else 0))
    else:
        L.append('\tmwm_finish_as(%d, mw_done, %d);' % (1 if k in BLOCKING else 0, 1 if k in REQ_KINDS else 0))
    if not prof:
        pass
    elif 'count' in a and 'dt' in a:
        L.append('\tif (t0)')
        L.append('\t\tmwm_prof_add(MWM_OP_%s, t0, mwm_bytes(%s, %s));' % (
            f.name, cexpr(f, lang, a['count'], 'int'), dtexpr(f, lang, a['dt'])))
    else:
        L.append('\tif (t0)')
        L.append('\t\tmwm_prof_add(MWM_OP_%s, t0, 0);' % f.name)
    return L


def check_pending_refresh(o):
    """The slot's pending count is refreshed at the finish of every wrapped
    call that may change the request table (mwm_finish_as(.., .., 1),
    mwm_poll_finish(.., 1)), so a repeated poll that completed nothing need
    not refresh it (gen_poll_split: mwm_poll_finish(0, 0), issue 34).  Fail
    the generation if a function of the wrappers' text o adds, completes or
    frees a request without such a finish."""
    name, body = None, []
    for line in o:
        m = re.match(r'^(?:static )?(?:int|void) (mw[a-z]*_[A-Za-z_]+)\(.*\)$', line)
        if m:
            name, body = m.group(1), []
        elif line == '}' and name:
            text = '\n'.join(body)
            if re.search(r'mwm_req_(new|done|free)\(', text) and \
                    not re.search(r'mwm_finish_as\([^;]*, 1\);|mwm_poll_finish\([^;]*, 1\);', text):
                raise SystemExit('gen.py: %s changes the request table without refreshing the slot\'s '
                                 'pending count at its finish' % name)
            name = None
        elif name:
            body.append(line)


def gen_wrappers(fns):
    o = ['/* Generated by monitor/gen.py from monitor/mpi.spec: do not edit. */',
         '#include <stdlib.h>', '#include <string.h>', '#include <mpi.h>', '#include "mwm.h"', '#include "mwm_glue.h"',
         '#include "ops.h"', '']
    for f in fns:
        if 'manual' in f.flags:
            continue
        decl = ', '.join(p[2] for p in f.params) or 'void'
        args = ', '.join(p[1] for p in f.params)
        # the general wrapper: off, MPI_THREAD_MULTIPLE or profile mode
        xdecl = ''.join(p[2] + ', ' for p in f.params) + 'void *mw_site, void *mw_frame'
        o.append('static int mwx_%s(%s) __attribute__((noinline));' % (f.cname, xdecl))
        o.append('static int mwx_%s(%s)' % (f.cname, xdecl))
        o.append('{')
        o.append('\tif (!mwm_active())')
        o.append('\t\treturn P%s(%s);' % (f.cname, args))
        o += gen_body(f, 'c', '\tint rc = P%s(%s);' % (f.cname, args))
        o.append('\treturn rc;')
        o.append('}')
        split = gen_poll_split(f) if f.kind in ('test', 'iprobe') else None
        if split:
            o += split[0]
        # the exported one: the plain fast path (mwm.plain), else the above
        if split:
            # only tail calls (gen_poll_split): no frame of its own.  A
            # poll that may skip is a plain one (mwm.poll_tick is 0 unless
            # mwm.plain): that test comes first.
            o.append('int mwv_%s(%s) __attribute__((optimize("omit-frame-pointer")));' % (f.cname, decl))
            o.append('int mwv_%s(%s)' % (f.cname, decl))
            o.append('{')
            o += split[1][0]
            o.append('\tif (__builtin_expect(!mwm.plain, 0))')
            o.append('\t\treturn mwy_%s(%s);' % (f.cname, args))
            o += split[1][1]
            o.append('}')
            o.append('')
            continue
        o.append('int mwv_%s(%s);' % (f.cname, decl))
        o.append('int mwv_%s(%s)' % (f.cname, decl))
        o.append('{')
        o.append('\tif (__builtin_expect(!mwm.plain, 0)) {')
        o.append('\t\tif (!mwm.on)')
        o.append('\t\t\treturn P%s(%s);' % (f.cname, args))
        o.append('\t\treturn mwx_%s(%s%s__builtin_return_address(0), __builtin_frame_address(0));'
                 % (f.cname, args, ', ' if args else ''))
        o.append('\t}')
        if split:
            o += split[1]
        else:
            o.append('\tvoid *mw_site = __builtin_return_address(0), *mw_frame = __builtin_frame_address(0);')
            o += gen_body(f, 'c', '\tint rc = P%s(%s);' % (f.cname, args), prof=False,
                          xcall='mwx_%s(%s%smw_site, mw_frame)' % (f.cname, args, ', ' if args else ''))
            o.append('\treturn rc;')
        o.append('}')
        o.append('')
    # Fortran (Open MPI only): the same two bodies around the real
    # pmpi_xxx_, called with the same pointers
    o.append('#ifdef MWM_FORTRAN')
    for f in fns:
        if 'manual' in f.flags or 'nofortran' in f.flags:
            continue
        low = f.cname.lower()
        np_ = len(f.params)
        ptypes = ', '.join(['void *'] * np_ + ['MPI_Fint *'])
        pdecl = ', '.join(['void *%s' % p[1] for p in f.params] + ['MPI_Fint *ierr'])
        pargs = ', '.join([p[1] for p in f.params] + ['ierr'])
        o.append('static void (*real_f_%s)(%s);' % (low, ptypes))
        # the general wrapper: off, MPI_THREAD_MULTIPLE or profile mode
        xdecl = pdecl + ', void *mw_site, void *mw_frame'
        o.append('static void mwx_f_%s(%s) __attribute__((noinline));' % (low, xdecl))
        o.append('static void mwx_f_%s(%s)' % (low, xdecl))
        o.append('{')
        o.append('\tif (!mwm_active()) {')
        o.append('\t\treal_f_%s(%s);' % (low, pargs))
        o.append('\t\treturn;')
        o.append('\t}')
        o += gen_body(f, 'f', '\treal_f_%s(%s);' % (low, pargs))
        o.append('}')
        # the exported one: the plain fast path (mwm.plain), else the above
        o.append('void mwv_f_%s(%s);' % (low, pdecl))
        o.append('void mwv_f_%s(%s)' % (low, pdecl))
        o.append('{')
        o.append('\tif (__builtin_expect(!mwm.plain, 0)) {')
        o.append('\t\tif (!mwm.on)')
        o.append('\t\t\treal_f_%s(%s);' % (low, pargs))
        o.append('\t\telse')
        o.append('\t\t\tmwx_f_%s(%s, __builtin_return_address(0), __builtin_frame_address(0));'
                 % (low, pargs))
        o.append('\t\treturn;')
        o.append('\t}')
        o.append('\tvoid *mw_site = __builtin_return_address(0), *mw_frame = __builtin_frame_address(0);')
        o += gen_body(f, 'f', '\treal_f_%s(%s);' % (low, pargs), prof=False,
                      xcall='mwx_f_%s(%s, mw_site, mw_frame)' % (low, pargs))
        o.append('}')
        o.append('')
    o.append('const struct mwm_fsym mwm_fsyms[] = {')
    for f in fns:
        if 'manual' in f.flags or 'nofortran' in f.flags:
            continue
        low = f.cname.lower()
        o.append('\t{"p%s_", (void **)&real_f_%s, (void *)mwv_f_%s},' % (low, low, low))
    o.append('\t{NULL, NULL, NULL}};')
    o.append('#endif')
    check_pending_refresh(o)
    return '\n'.join(o) + '\n'


def op_args(f):
    """The MW_ARG_* bits of the arguments f's wrapper stores in the call record."""
    bits = [ARGS[k] for k in sorted(ARGS) if k in f.attrs]
    if f.kind in ('wait', 'test', 'start') and ('reqs' in f.attrs or 'req1' in f.attrs):
        bits.append('MW_ARG_NREQS')
    return ' | '.join(bits) or '0'


def gen_ops(fns):
    """The op table, in the shared library: what the slot's readers derive
    from an op id (name, kind, blocking, send mode, which arguments)."""
    o = ['/* Generated by monitor/gen.py from monitor/mpi.spec: do not edit. */',
         '#include "mw_slot.h"', '', 'const struct mw_slot_op mw_slot_ops[] = {']
    for i, f in enumerate(fns):
        o.append('\t/* %d */ {"%s", %s, %d, %s, 0, %s},' % (
            i, f.cname, KINDS[f.kind], 1 if f.kind in BLOCKING else 0,
            MODES.get(f.attrs.get('mode'), 'MW_MODE_NONE'), op_args(f)))
    o.append('};')
    o.append('const int mw_slot_nops = %d;' % len(fns))
    return '\n'.join(o) + '\n'


def gen_ops_h(fns):
    o = ['/* Generated by monitor/gen.py from monitor/mpi.spec: do not edit. */',
         '#ifndef MWM_OPS_H', '#define MWM_OPS_H', 'enum mwm_op {']
    for i, f in enumerate(fns):
        o.append('\tMWM_OP_%s = %d,' % (f.name, i))
    o.append('\tMWM_NOPS = %d' % len(fns))
    o.append('};')
    o.append('struct mwm_fsym { const char *real; void **slot; void *wrapper; };')
    o.append('extern const struct mwm_fsym mwm_fsyms[];')
    o.append('#endif')
    return '\n'.join(o) + '\n'


def fortran_names(f):
    low = f.cname.lower()
    return [low + '_', low + '__', low, f.cname.upper()]


def tramp_syms(fns):
    syms = []  # (exported name, variant symbol name)
    for f in fns:
        syms.append((f.cname, 'mwv_' + f.cname))
    for f in fns:
        if 'nofortran' in f.flags:
            continue
        for n in fortran_names(f):
            syms.append((n, 'mwv_f_' + f.cname.lower()))
    return syms


def gen_tramp(fns):
    """x86-64 trampolines: each exported symbol jumps through its slot; a
    slot starts at a lazy stub that resolves every slot on first use (for a
    process that loads MPI after start-up) and then jumps on."""
    syms = tramp_syms(fns)
    o = ['/* Generated by monitor/gen.py from monitor/mpi.spec: do not edit. */',
         '\t.section .note.GNU-stack,"",@progbits', '\t.text']
    for i, (n, _) in enumerate(syms):
        o += ['\t.globl %s' % n, '\t.type %s, @function' % n, '\t.p2align 4', '%s:' % n,
              '\tjmp *mwd_slots+%d(%%rip)' % (8 * i), '\t.size %s, .-%s' % (n, n)]
    for i, (n, _) in enumerate(syms):
        o += ['.Llazy%d:' % i, '\tpushq $%d' % i, '\tjmp mwd_lazy_common']
    # stack at entry of mwd_lazy_common: [index][return address], rsp % 16 == 0
    o += ['\t.p2align 4', '\t.type mwd_lazy_common, @function', 'mwd_lazy_common:',
          '\tpushq %rdi', '\tpushq %rsi', '\tpushq %rdx', '\tpushq %rcx', '\tpushq %r8',
          '\tpushq %r9', '\tpushq %rax', '\tsubq $136, %rsp']
    for k in range(8):
        o.append('\tmovdqu %%xmm%d, %d(%%rsp)' % (k, 16 * k))
    o += ['\tmovq 192(%rsp), %rdi', '\tcall mwd_resolve', '\tmovq %rax, 192(%rsp)']
    for k in range(8):
        o.append('\tmovdqu %d(%%rsp), %%xmm%d' % (16 * k, k))
    o += ['\taddq $136, %rsp', '\tpopq %rax', '\tpopq %r9', '\tpopq %r8', '\tpopq %rcx',
          '\tpopq %rdx', '\tpopq %rsi', '\tpopq %rdi', '\tret',
          '\t.size mwd_lazy_common, .-mwd_lazy_common']
    o += ['\t.data', '\t.p2align 3', '\t.globl mwd_slots', '\t.hidden mwd_slots', 'mwd_slots:']
    for i in range(len(syms)):
        o.append('\t.quad .Llazy%d' % i)
    o += ['\t.globl mwd_lazy', '\t.hidden mwd_lazy', 'mwd_lazy:']
    for i in range(len(syms)):
        o.append('\t.quad .Llazy%d' % i)
    o += ['\t.section .rodata', '\t.globl mwd_nsyms', '\t.hidden mwd_nsyms', '\t.p2align 2',
          'mwd_nsyms:', '\t.long %d' % len(syms)]
    o += ['\t.section .data.rel.ro,"aw"', '\t.p2align 3', '\t.globl mwd_names', '\t.hidden mwd_names',
          'mwd_names:']
    for i, (n, v) in enumerate(syms):
        o.append('\t.quad .Ln%d, .Lv%d' % (i, i))
    o.append('\t.section .rodata.str1.1,"aMS",@progbits,1')
    for i, (n, v) in enumerate(syms):
        o += ['.Ln%d:' % i, '\t.string "%s"' % n, '.Lv%d:' % i, '\t.string "%s"' % v]
    return '\n'.join(o) + '\n'


# Handle types: an int in MPICH, a pointer in Open MPI.
HANDLES = {'MPI_Comm', 'MPI_Datatype', 'MPI_Op', 'MPI_Info', 'MPI_Win', 'MPI_File', 'MPI_Group',
           'MPI_Message', 'MPI_Request', 'MPI_Errhandler'}
# The portable dispatcher is compiled without any mpi.h: each parameter gets
# a type of the same calling-convention class (one integer register or
# stack slot) in both MPIs.  check.c asserts these facts for each MPI.
NEUTRAL = {'int': 'int', 'MPI_Offset': 'long long', 'MPI_Aint': 'intptr_t', 'MPI_Fint': 'int'}
NEUTRAL.update((h, 'uintptr_t') for h in HANDLES)


def neutral(f, typ):
    """The MPI-independent type the portable dispatcher uses for a parameter."""
    if '*' in typ:
        return 'void *'
    base = typ.replace('const', '').strip()
    if base not in NEUTRAL:
        raise SystemExit('%s: %s: parameter type %r unknown to gen.py (add it to NEUTRAL)'
                         % (f.where, f.name, typ))
    return NEUTRAL[base]


def proto_text(f):
    return '%s(%s)' % (f.cname, ', '.join(p[2] for p in f.params) or 'void')


def gen_check(fns):
    """A translation unit that only compiles when every prototype in the spec
    is the one this MPI's mpi.h declares (for MPI_x, which the dispatcher
    exports, and PMPI_x, which the wrappers call), and when every parameter
    type may be passed as the portable dispatcher passes it."""
    o = ['/* Generated by monitor/gen.py from monitor/mpi.spec: do not edit.',
         ' * Compiled with each MPI\'s mpicc: a wrong line in mpi.spec fails the build',
         ' * here, naming the line and the function. */',
         '#include <stdint.h>', '#include <mpi.h>', '',
         '#if defined(OPEN_MPI)', '#define MWC_MPI "Open MPI"', '#elif defined(MPICH)',
         '#define MWC_MPI "MPICH"', '#else', '#define MWC_MPI "unknown MPI"', '#endif',
         '#define MWC_SAME(f, ptr_type) __builtin_types_compatible_p(__typeof__(&(f)), ptr_type)',
         '#define MWC_CLASS(t) __builtin_classify_type((t)0)  /* 1 integer, 5 pointer */', '']
    for f in fns:
        ptr = 'int (*)(%s)' % (', '.join(p[0] for p in f.params) or 'void')
        for pre in ('', 'P'):
            o.append('_Static_assert(MWC_SAME(%s%s, %s),' % (pre, f.cname, ptr))
            o.append('\t       "%s: %s does not match %s%s in mpi.h (" MWC_MPI ")");'
                     % (f.where, proto_text(f), pre, f.cname))
    o.append('')
    seen = set()
    for f in fns:
        for typ, _, _ in f.params:
            base = typ.replace('const', '').strip()
            if '*' in typ or base in seen or base == 'int':
                continue
            seen.add(base)
            n = neutral(f, typ)
            if n == 'uintptr_t':
                cond = ('sizeof(%s) <= sizeof(uintptr_t) && (MWC_CLASS(%s) == 1 || MWC_CLASS(%s) == 5)'
                        % (base, base, base))
                what = 'an integer or a pointer of at most the size of uintptr_t'
            else:
                cond = 'sizeof(%s) == sizeof(%s) && MWC_CLASS(%s) == 1' % (base, n, base)
                what = 'an integer of the size of %s' % n
            o.append('_Static_assert(%s,' % cond)
            o.append('\t       "%s: %s must be %s (the portable dispatcher passes it as %s)");'
                     % (f.where, base, what, n))
    return '\n'.join(o) + '\n'


def fortran_arity(f):
    """Parameters of the Fortran binding: every C parameter (as a pointer),
    except argc/argv (MPI_INIT has only IERROR), and IERROR."""
    return len([p for p in f.params if p[1] not in ('argc', 'argv')]) + 1


def gen_forward(fns):
    """The dispatcher's exported symbols in plain C, for any CPU: each one
    loads its slot (resolving every slot on first use, like the lazy stubs
    of tramp.S) and tail-calls it with its arguments unchanged."""
    syms = tramp_syms(fns)
    byname = {f.cname: f for f in fns}
    o = ['/* Generated by monitor/gen.py from monitor/mpi.spec: do not edit. */',
         '#include <stdint.h>', '',
         '/* A call in tail position keeps the application\'s return address for the',
         ' * wrapper\'s __builtin_return_address(0) (the call site in the dump).  clang and',
         ' * gcc >= 15 can be told; older gcc does it at -O2 (-foptimize-sibling-calls,',
         ' * forced for this file by monitor/build.mk and checked by t/unit/monitor_gen.sh). */',
         '#if defined(__has_attribute)', '#if __has_attribute(musttail)',
         '#define MWD_TAIL __attribute__((musttail))', '#endif', '#endif',
         '#ifndef MWD_TAIL', '#define MWD_TAIL', '#endif', '',
         'void *mwd_resolve(long i) __attribute__((visibility("hidden")));',
         'extern void *mwd_slots[] __attribute__((visibility("hidden")));', '',
         'static inline void *mwd_slot(long i)', '{',
         '\tvoid *p = __atomic_load_n(&mwd_slots[i], __ATOMIC_ACQUIRE);',
         '\treturn __builtin_expect(p != 0, 1) ? p : mwd_resolve(i);', '}', '']
    for i, (n, v) in enumerate(syms):
        if v.startswith('mwv_f_'):
            f = [g for g in fns if g.cname.lower() == v[6:]][0]
            types = ['void *'] * fortran_arity(f)
            ret = 'void'
        else:
            f = byname[n]
            types = [neutral(f, p[0]) for p in f.params]
            ret = 'int'
        decl = ', '.join(('%s%sa%d' % (t, '' if t.endswith('*') else ' ', k))
                         for k, t in enumerate(types)) or 'void'
        ftype = '%s (*)(%s)' % (ret, ', '.join(types) or 'void')
        args = ', '.join('a%d' % k for k in range(len(types)))
        o.append('%s %s(%s);' % (ret, n, decl))
        o.append('%s %s(%s)' % (ret, n, decl))
        o.append('{')
        o.append('\t%s = (%s)mwd_slot(%d);' % (ftype.replace('(*)', '(*fn)'), ftype, i))
        o.append('\tMWD_TAIL return fn(%s);' % args)
        o.append('}')
        o.append('')
    o += ['void *mwd_slots[%d] __attribute__((visibility("hidden")));' % len(syms),
          'const unsigned mwd_nsyms __attribute__((visibility("hidden"))) = %d;' % len(syms),
          'const char *const mwd_names[][2] __attribute__((visibility("hidden"))) = {']
    for n, v in syms:
        o.append('\t{"%s", "%s"},' % (n, v))
    o.append('};')
    return '\n'.join(o) + '\n'


def main():
    spec, out = sys.argv[1], sys.argv[2]
    fns = parse(spec)
    if out.endswith('wrappers.c'):
        text = gen_wrappers(fns)
    elif out.endswith('ops.c'):
        text = gen_ops(fns)
    elif out.endswith('ops.h'):
        text = gen_ops_h(fns)
    elif out.endswith('.S'):
        text = gen_tramp(fns)
    elif out.endswith('forward.c'):
        text = gen_forward(fns)
    elif out.endswith('check.c'):
        text = gen_check(fns)
    else:
        raise SystemExit('unknown output ' + out)
    with open(out + '.tmp', 'w') as fh:
        fh.write(text)
    import os
    os.replace(out + '.tmp', out)


if __name__ == '__main__':
    main()

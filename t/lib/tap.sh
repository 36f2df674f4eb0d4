# TAP helpers for the integration tests (t/NNNN-name.t).  Source it:
#
#   . "$(dirname "$0")/lib/tap.sh"
#   plan 3                      # or: plan no_plan ... done_testing
#   ok $? "srun worked"         # a STATUS: 0 passes (shell convention)
#   ok_cmd "n1 is idle" test "$(sinfo -h -n n1 -o %t)" = idle   # runs a command
#   is "$got" "expected" "what it is"
#   like "$out" 'rank [0-9]+ passed' "ring output"
#   done_testing                # exit status = number of failures
#
# Functions: plan, ok, ok_cmd, nok_cmd, pass, fail, is, isnt, like, unlike,
# cmp_ok, diag, note, skip, skip_all, todo_start/todo_end, BAIL_OUT,
# done_testing (alias tap_done; `done` itself is a bash keyword),
# tap_cleanup CMD (run CMD at exit, in reverse order; use this instead of
# your own `trap ... EXIT`, which would replace ours).
#
# A skip is reported as "ok N # skip": prove counts it as skipped, never as
# passed.  Tests end with done_testing; without it the exit trap still
# reports a wrong number of tests as a failure.

# Debian's own python3 and node come first (.ci/deps installs what the tests
# use from Debian): a developer's pyenv or nvm shim must not make a test pass
# that would fail on a fresh Debian 12.
case ":$PATH:" in :/usr/bin:*) ;; *) PATH=/usr/bin:/bin:$PATH; export PATH ;; esac

_tap_n=0          # tests run
_tap_failed=0     # failures (not counting TODO)
_tap_planned=     # number planned, or "no_plan"
_tap_done=0
_tap_todo=
_tap_cleanups=()

plan() {
    case "$1" in
        no_plan) _tap_planned=no_plan ;;
        skip_all) shift; echo "1..0 # SKIP ${*:-skipped}"; _tap_done=1; _tap_planned=0; exit 0 ;;
        ''|*[!0-9]*) echo "plan: bad argument '$1'" >&2; exit 255 ;;
        *) _tap_planned=$1; echo "1..$1" ;;
    esac
}

skip_all() { plan skip_all "$@"; }

# Indent text as TAP diagnostics (stderr, "# " prefixed).
diag() {
    local line
    printf '%s\n' "$@" | while IFS= read -r line; do printf '# %s\n' "$line"; done >&2
}
# Same on stdout (shown by prove -v only).
note() {
    local line
    printf '%s\n' "$@" | while IFS= read -r line; do printf '# %s\n' "$line"; done
}

_tap_result() {   # _tap_result PASSED(0|1) DESC
    local passed=$1 desc=$2 dir=
    _tap_n=$((_tap_n + 1))
    [ -n "$_tap_todo" ] && dir=" # TODO $_tap_todo"
    desc=${desc//#/\\#}
    if [ "$passed" = 1 ]; then
        echo "ok $_tap_n${desc:+ - $desc}$dir"
        return 0
    fi
    echo "not ok $_tap_n${desc:+ - $desc}$dir"
    [ -z "$_tap_todo" ] && _tap_failed=$((_tap_failed + 1))
    local caller_line=${BASH_LINENO[1]:-?} caller_file=${BASH_SOURCE[2]:-$0}
    diag "  Failed test${desc:+ '$desc'}" "  at $caller_file line $caller_line."
    return 1
}

# ok STATUS [DESC]: passes when STATUS is 0 (an exit status).
ok() {
    local st=$1; shift
    case "$st" in ''|*[!0-9]*) _tap_result 0 "$*"; diag "  ok: status '$st' is not a number"; return 1;; esac
    if [ "$st" -eq 0 ]; then _tap_result 1 "$*"; else _tap_result 0 "$*"; diag "  exit status $st"; return 1; fi
}

# ok_cmd DESC CMD [ARGS...]: run CMD; pass if it exits 0 (output shown on failure).
ok_cmd() {
    local desc=$1 out st; shift
    out=$("$@" 2>&1); st=$?
    if [ $st -eq 0 ]; then _tap_result 1 "$desc"; return 0; fi
    _tap_result 0 "$desc"
    diag "  command: $*" "  exit status: $st" "  output: $out"
    return 1
}

# nok_cmd DESC CMD [ARGS...]: pass if CMD fails.
nok_cmd() {
    local desc=$1 out st; shift
    out=$("$@" 2>&1); st=$?
    if [ $st -ne 0 ]; then _tap_result 1 "$desc"; return 0; fi
    _tap_result 0 "$desc"
    diag "  command: $*" "  unexpectedly succeeded; output: $out"
    return 1
}

pass() { _tap_result 1 "$*"; }
fail() { _tap_result 0 "$*"; return 1; }

# is GOT EXPECTED [DESC]
is() {
    if [ "$1" == "$2" ]; then _tap_result 1 "${3:-}"; return 0; fi
    _tap_result 0 "${3:-}"
    diag "         got: '$1'" "    expected: '$2'"
    return 1
}

# isnt GOT UNEXPECTED [DESC]
isnt() {
    if [ "$1" != "$2" ]; then _tap_result 1 "${3:-}"; return 0; fi
    _tap_result 0 "${3:-}"
    diag "         got: '$1'" "    expected: anything else"
    return 1
}

# like GOT REGEX [DESC]   (bash extended regex, =~; matches anywhere; multi-line ok)
like() {
    if [[ "$1" =~ $2 ]]; then _tap_result 1 "${3:-}"; return 0; fi
    _tap_result 0 "${3:-}"
    diag "                  '$1'" "    doesn't match '$2'"
    return 1
}

# unlike GOT REGEX [DESC]
unlike() {
    if ! [[ "$1" =~ $2 ]]; then _tap_result 1 "${3:-}"; return 0; fi
    _tap_result 0 "${3:-}"
    diag "                  '$1'" "    matches '$2'"
    return 1
}

# cmp_ok A OP B [DESC]   OP: -eq -ne -lt -le -gt -ge (integers) or = != (strings)
cmp_ok() {
    local a=$1 op=$2 b=$3 r=1
    case "$op" in
        -eq|-ne|-lt|-le|-gt|-ge|==|=|!=) ;;
        '<') op=-lt;; '<=') op=-le;; '>') op=-gt;; '>=') op=-ge;;
        *) _tap_result 0 "${4:-}"; diag "  cmp_ok: unknown operator '$op'"; return 1;;
    esac
    case "$op" in
        -*) [[ "$a" =~ ^-?[0-9]+$ && "$b" =~ ^-?[0-9]+$ ]] && [ "$a" "$op" "$b" ] && r=0;;
        *) [ "$a" "$op" "$b" ] && r=0;;
    esac
    if [ $r = 0 ]; then _tap_result 1 "${4:-}"; return 0; fi
    _tap_result 0 "${4:-}"
    diag "    '$a'" "        $op" "    '$b'"
    return 1
}

# skip REASON [COUNT]: report COUNT (default 1) skipped tests.
skip() {
    local reason=$1 count=${2:-1} i
    for ((i = 0; i < count; i++)); do
        _tap_n=$((_tap_n + 1))
        echo "ok $_tap_n # skip $reason"
    done
}

todo_start() { _tap_todo=${*:-todo}; }
todo_end() { _tap_todo=; }

BAIL_OUT() {
    echo "Bail out! $*"
    _tap_done=1
    exit 255
}

tap_cleanup() { _tap_cleanups+=("$*"); }

# tap_san_keep DIR: under make check-asan ($MW_SAN_DIR set), at exit and
# before DIR is removed (call it after DIR's tap_cleanup), copy every text
# file under DIR holding a sanitizer report into $MW_SAN_DIR, where
# check-asan fails on it.  UBSan beside ASan writes to stderr only (GCC's
# two runtimes: UBSAN_OPTIONS=log_path is ignored), so the reports of helpers
# whose stderr is a log file are found this way.
tap_san_keep() { [ -z "${MW_SAN_DIR:-}" ] || tap_cleanup "_tap_san_copy '$1'"; }
_tap_san_copy() {
    local f
    grep -rlIE 'runtime error: |ERROR: (Address|Leak|UndefinedBehavior)Sanitizer' "$1" 2>/dev/null |
        while read -r f; do cp "$f" "$MW_SAN_DIR/$(basename "$0").$(echo "$f" | tr / _)"; done
}

done_testing() {
    if [ "$_tap_planned" = no_plan ] || [ -z "$_tap_planned" ]; then
        echo "1..$_tap_n"
        _tap_planned=$_tap_n
    fi
    _tap_done=1
    local st=$_tap_failed
    if [ "$_tap_n" != "$_tap_planned" ]; then
        diag "Looks like you planned $_tap_planned tests but ran $_tap_n."
        [ $st -eq 0 ] && st=255
    fi
    [ $_tap_failed -gt 0 ] && diag "Looks like you failed $_tap_failed test(s) of $_tap_n."
    [ $st -gt 254 ] && st=254
    [ "$_tap_n" != "$_tap_planned" ] && st=255
    exit $st
}
tap_done() { done_testing; }

_tap_exit() {
    local st=$? i
    for ((i = ${#_tap_cleanups[@]} - 1; i >= 0; i--)); do
        eval "${_tap_cleanups[$i]}" >/dev/null 2>&1 || true
    done
    if [ "$_tap_done" = 0 ]; then
        # The script ended without done_testing (error, exit, set -e...).
        [ -z "$_tap_planned" ] || [ "$_tap_planned" = no_plan ] && echo "1..$_tap_n"
        if [ -n "$_tap_planned" ] && [ "$_tap_planned" != no_plan ] && [ "$_tap_n" != "$_tap_planned" ]; then
            diag "Looks like you planned $_tap_planned tests but ran $_tap_n."
        fi
        [ $st -eq 0 ] && st=255
        diag "test script ended early (exit status $st) without done_testing"
    fi
    exit $st
}
trap _tap_exit EXIT

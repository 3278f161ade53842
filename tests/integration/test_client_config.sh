#!/usr/bin/env bash
# Issue 27 point 6: the client's config file ($XDG_CONFIG_HOME/kix/config)
# takes server, log-key and a witness policy (witness keys and quorum, also
# as a shareable policy file, like sigsum's), the command line winning, and
# warns on every line it does not know, with a "did you mean".
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
serve o
unset KIX_SERVER KIX_LOG_KEY
export XDG_CONFIG_HOME="$WORK/cfg"
mkdir -p "$XDG_CONFIG_HOME/kix"
cat >"$XDG_CONFIG_HOME/kix/config" <<EOF2
# where my log is, and its key
server = $(addr o)
log-key = $(cat "$WORK/vkey")
sever = tcp://typo.example:1
EOF2
expect_status 0 "$KIX" checkpoint
grep -q "^kix.test/log$" "$WORK/out" || fail "server and log-key from the config file: $(cat "$WORK/out" "$WORK/err")"
grep -q "config:4: unknown setting 'sever' (did you mean 'server'?); ignored" "$WORK/err" ||
  fail "no warning on the unknown line: $(cat "$WORK/err")"
pass "server and log-key from the config file; an unknown line is a warning with 'did you mean'"

# a witness policy in a file of its own: one witness, quorum 1; the log has
# no cosignature of it, so nothing is believed
"$KIX" keygen --witness --name w --out "$WORK/w" >/dev/null 2>&1 || fail "kix keygen --witness"
printf '# shared with my colleagues\nwitness %s\nquorum 1\nquorom 2\n' "$(cat "$WORK/w.pub")" >"$XDG_CONFIG_HOME/kix/policy"
printf 'server = %s\nlog-key = %s\nwitness-policy = policy\n' "$(addr o)" "$(cat "$WORK/vkey")" \
  >"$XDG_CONFIG_HOME/kix/config"
expect_status 1 "$KIX" checkpoint
grep -qi "witness" "$WORK/err" || fail "the policy's quorum was not applied: $(cat "$WORK/err")"
grep -q "policy:4: unknown setting 'quorom' (did you mean 'quorum'?)" "$WORK/err" || fail "policy typo: $(cat "$WORK/err")"
# the command line wins over the config's witnesses
expect_status 0 "$KIX" checkpoint --min-witnesses 0
pass "a witness policy file (witness keys, quorum) applies unless the command line says otherwise"

# a bad quorum is an error naming file and line
printf 'min-witnesses = many\n' >"$XDG_CONFIG_HOME/kix/config"
expect_status 2 "$KIX" checkpoint --server "$(addr o)" --log-key "$WORK/vkey"
grep -q "config:1: min-witnesses must be a number of witnesses, not 'many'" "$WORK/err" || fail "bad quorum: $(cat "$WORK/err")"
pass "a bad value in the config file is refused naming the file and line"

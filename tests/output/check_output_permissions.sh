#!/usr/bin/env bash
# -o as the kernel would resolve it (issue 41 item 2; docs/hardening.md "Output files"): run as
# root, with a second user (uid 65534) through setpriv.
#   1. another user's symlink in a world-writable sticky folder, pointing at a root-only file:
#      with fs.protected_symlinks on, root's `-o LINK` is refused as the shell's `>` is, and the
#      file is untouched (before: plan-layout followed the link itself and replaced the file);
#   2. an unprivileged user's `-o` naming a file it may not write, in a folder it may write:
#      refused, the file and its owner unchanged (before: replaced by rename, owner changed);
#   3. the same user's `-o` naming another user's file it may write: written, owner and mode kept;
#   4. a new name: created, owned by the user who ran it.
# No .tmp. file is left in any case. Skipped (exit 77) when not run as root or setpriv is missing.
#   check_output_permissions.sh PLAN_LAYOUT
set -u
bin=$1
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
    echo "skipped: needs root and setpriv (util-linux)"
    exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/planlayout_perms.XXXXXX")
chmod 755 "$dir"
sysctl_file=/proc/sys/fs/protected_symlinks
old_protect=$(cat "$sysctl_file" 2>/dev/null || echo "")
restore() {
    if [ -n "$old_protect" ]; then
        echo "$old_protect" >"$sysctl_file" 2>/dev/null
    fi
    rm -rf "$dir"
}
trap restore EXIT
fail=0
bad() {
    echo "FAIL: $*"
    fail=1
}
# The binary where the second user may run it.
cp "$bin" "$dir/plan-layout" && chmod 755 "$dir/plan-layout"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
no_temps() {
    if find "$dir" -name '*.tmp.*' | grep -q .; then
        bad "$1: a temporary file was left: $(find "$dir" -name '*.tmp.*')"
    fi
}

# 1. The sticky folder's foreign symlink.
mkdir -m 1777 "$dir/sticky"
mkdir -m 700 "$dir/victim"
echo SECRET >"$dir/victim/secret.txt"
chmod 600 "$dir/victim/secret.txt"
ln -s "$dir/victim/secret.txt" "$dir/sticky/plan.txt"
chown -h 65534:65534 "$dir/sticky/plan.txt"
if echo 1 >"$sysctl_file" 2>/dev/null && [ "$(cat "$sysctl_file")" = 1 ]; then
    err=$("$dir/plan-layout" analyze -o "$dir/sticky/plan.txt" 2>&1 >/dev/null)
    rc=$?
    [ "$rc" = 3 ] || bad "1: root -o through another user's sticky-folder link: exit $rc, want 3 ($err)"
    case $err in
        *"may not be written: Permission denied"*) ;;
        *) bad "1: message: $err" ;;
    esac
    [ "$(cat "$dir/victim/secret.txt")" = SECRET ] || bad "1: the root-only file was replaced"
    [ -L "$dir/sticky/plan.txt" ] || bad "1: the link is gone"
    # The shell's own > is refused the same way: the test's premise.
    if (echo x >"$dir/sticky/plan.txt") 2>/dev/null; then
        bad "1: the kernel let the shell write through the link: fs.protected_symlinks not in force"
        echo SECRET >"$dir/victim/secret.txt"
    fi
else
    echo "note: case 1 not run: $sysctl_file cannot be set to 1 here"
fi
no_temps 1

# 2. A file the user may not write, in a folder it may write.
mkdir -m 777 "$dir/shared"
echo ROOT >"$dir/shared/root.txt"
chmod 644 "$dir/shared/root.txt"
err=$(cd "$dir/shared" && as_user "$dir/plan-layout" analyze -o root.txt 2>&1 >/dev/null)
rc=$?
[ "$rc" = 3 ] || bad "2: -o onto a file the user may not write: exit $rc, want 3 ($err)"
[ "$(cat "$dir/shared/root.txt")" = ROOT ] || bad "2: the file was replaced"
[ "$(stat -c %u "$dir/shared/root.txt")" = 0 ] || bad "2: the file changed owner"
no_temps 2

# 3. Another user's file this user may write: written in place, owner and mode kept.
echo OLD >"$dir/shared/group.txt"
chmod 666 "$dir/shared/group.txt"
err=$(cd "$dir/shared" && as_user "$dir/plan-layout" analyze -o group.txt 2>&1 >/dev/null)
rc=$?
[ "$rc" = 0 ] || bad "3: -o onto a writable file of another user: exit $rc ($err)"
grep -q '^layout: ' "$dir/shared/group.txt" || bad "3: the file does not hold the output"
[ "$(stat -c %u:%a "$dir/shared/group.txt")" = 0:666 ] || bad "3: owner or mode changed: $(stat -c %u:%a "$dir/shared/group.txt")"
no_temps 3

# 4. A new name.
(cd "$dir/shared" && as_user "$dir/plan-layout" analyze -o new.txt >/dev/null 2>&1) || bad "4: a new file could not be written"
[ "$(stat -c %u "$dir/shared/new.txt" 2>/dev/null)" = 65534 ] || bad "4: the new file is not the user's"
no_temps 4

if [ "$fail" = 0 ]; then
    echo "output permissions: all cases pass"
fi
exit "$fail"

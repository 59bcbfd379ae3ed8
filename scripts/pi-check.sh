#!/usr/bin/env bash
# Check the Pi install on the Pi's architecture without a Pi: an arm64 Debian bookworm root under qemu.
#
#   sudo scripts/pi-check.sh [ROOTFS_DIR]        # `make pi-check`; about half an hour on two cores
#
# What it proves: scripts/install-pi.sh installs the app into an arm64 root (a venv over Debian's numpy and
# OpenCV, pip for the rest; gpiozero 2 from pip, as Raspberry Pi OS has it from apt and Debian only has 1.6), and the installed `dicesight` runs there: a scripted game plays,
# and `dicesight run --camera demo --gpio mock` serves /healthz. What it cannot: picamera2 and lgpio come from
# the Raspberry Pi OS archive, not Debian's, so they are left out (the box falls back as it does on a PC), and
# systemd is not running in a chroot (the unit is installed, not started). Not part of CI: too slow.
#
# Uses this machine's own apt mirror (from /etc/apt/sources.list.d), qemu-user-static and debootstrap.
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOTFS="${1:-$SRC/build/pi-check/rootfs}"
LOG="${ROOTFS%/*}/pi-check.log"
say() { printf '==> %s\n' "$*"; }
die() { printf 'pi-check: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap and chroot): sudo $0"
mkdir -p "${ROOTFS%/*}"

mirror() {  # the first Debian URI this machine's apt uses
    grep -h -m1 -E '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
        | awk '{print ($1 == "deb" ? $2 : $2)}' | head -1
}

say "host packages: qemu-user-static debootstrap binfmt-support"
command -v debootstrap >/dev/null && [ -x /usr/bin/qemu-aarch64-static ] || {
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static debootstrap binfmt-support
}
mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || die "the kernel runs no arm64 binaries through qemu (binfmt_misc)"

if [ ! -x "$ROOTFS/usr/bin/python3" ]; then
    say "debootstrap arm64 bookworm into $ROOTFS (mirror $(mirror))"
    debootstrap --arch=arm64 --include=python3,python3-venv,python3-pip,python3-numpy,python3-opencv,python3-gpiozero,ca-certificates,curl \
        bookworm "$ROOTFS" "$(mirror)"
fi

say "copy the checkout into the root and run scripts/install-pi.sh there (picamera2 and lgpio aside)"
rm -rf "$ROOTFS/opt/src" && mkdir -p "$ROOTFS/opt/src"
tar -C "$SRC" --exclude=.git --exclude=.venv --exclude=build --exclude=state --exclude=test-artifacts -cf - . \
    | tar -C "$ROOTFS/opt/src" -xf -
cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
# the host's trust store and pip settings: a package proxy the host trusts must be trusted inside too
cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$ROOTFS/etc/pip.conf"
for fs in proc sys dev; do mountpoint -q "$ROOTFS/$fs" || mount --bind "/$fs" "$ROOTFS/$fs"; done
trap 'for fs in dev sys proc; do umount -l "$ROOTFS/$fs" 2>/dev/null || true; done' EXIT

chroot "$ROOTFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 bash -euc '
    uname -m
    SKIP_APT=1 NO_START=1 NO_SYSTEMD=1 /opt/src/scripts/install-pi.sh
    # Raspberry Pi OS ships gpiozero 2 from apt; Debian bookworm only 1.6, whose mock pins fail the panel
    # (found by this check): the venv gets 2.x from pip here, as the Pi has it from apt
    /opt/dicesight/venv/bin/pip install --quiet "gpiozero>=2,<3"
    /opt/dicesight/venv/bin/python -c "import cv2, numpy, gpiozero, importlib.metadata as m; print(\"cv2\", cv2.__version__, \"numpy\", numpy.__version__, \"gpiozero\", m.version(\"gpiozero\"))"
    cd /opt/src
    /opt/dicesight/venv/bin/dicesight play magewars --setup docs/examples/magewars-duel.setup.json --script docs/examples/magewars-duel.jsonl --json | tail -1
    state=$(mktemp -d)
    /opt/dicesight/venv/bin/dicesight run --camera demo --gpio mock --host 127.0.0.1 --port 8099 --state-dir "$state" &
    box=$!
    for i in $(seq 1 120); do
        if curl -fsS http://127.0.0.1:8099/healthz >/tmp/healthz.json 2>/dev/null; then break; fi
        sleep 2
    done
    kill $box || true
    cat /tmp/healthz.json
    grep -q "\"store\"" /tmp/healthz.json
' 2>&1 | tee "$LOG"
say "pi-check passed: the app installs and serves on arm64 ($LOG)"

#!/usr/bin/env bash
# Install dicesight on Raspberry Pi OS (Bookworm or later) as a systemd service. See docs/install-pi.md.
#
#   sudo scripts/install-pi.sh            # from a checkout of the repository, on the Pi
#
# numpy, OpenCV, picamera2 and gpiozero/lgpio come from apt (built for the Pi, and picamera2 exists only
# there); the venv sees them through --system-site-packages, and pip installs only the pure-Python
# dependencies, never numpy or OpenCV. Running it again upgrades the app and keeps the config and games.
#
# Settings (environment):
#   ROOT=/path      install under a different root (building an image, tests); commands still run here
#   PREFIX          where the app and its venv go           (default /opt/dicesight)
#   SERVICE_USER    the user the service runs as            (default dicesight)
#   PYTHON          the system Python that builds the venv  (default python3)
#   SKIP_APT=1      do not call apt-get (packages already there)
#   NO_START=1      install and enable, but do not start the service now
#   NO_SYSTEMD=1    systemd is not running (a chroot, an image being built): enable the unit offline only
set -euo pipefail

ROOT="${ROOT:-}"
PREFIX="${PREFIX:-/opt/dicesight}"
SERVICE_USER="${SERVICE_USER:-dicesight}"
PYTHON="${PYTHON:-python3}"
SKIP_APT="${SKIP_APT:-0}"
NO_START="${NO_START:-0}"
NO_SYSTEMD="${NO_SYSTEMD:-0}"
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

APT_PACKAGES=(python3-venv python3-pip python3-numpy python3-opencv python3-picamera2
              python3-gpiozero python3-lgpio python3-scipy)
# Provided by apt above; pip must never install (or replace) these in the venv (scipy: a wheel built for
# apt's numpy, instead of pip fetching one that wants a newer numpy than apt's).
APT_PROVIDED="numpy opencv-python opencv-python-headless opencv-contrib-python gpiozero lgpio picamera2 scipy"

APP="$PREFIX/app"
VENV="$PREFIX/venv"
CONF_DIR="/etc/dicesight"
UNIT_DIR="/etc/systemd/system"

say() { printf '==> %s\n' "$*"; }
die() { printf 'install-pi: %s\n' "$*" >&2; exit 1; }

[ -f "$SRC/pyproject.toml" ] && [ -f "$SRC/systemd/dicesight.service" ] \
    || die "run this from a dicesight checkout (no pyproject.toml / systemd unit beside $0)"
if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
    die "run as root: sudo $0"
fi

# 1. Debian packages ----------------------------------------------------------------------------------
if [ "$SKIP_APT" != 1 ]; then
    say "apt packages: ${APT_PACKAGES[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q || die "apt-get update failed (is the Pi online?)"
    apt-get install -y -q --no-install-recommends "${APT_PACKAGES[@]}" \
        || die "apt-get could not install ${APT_PACKAGES[*]}"
fi

# 2. The service user, in the groups that own the GPIO and camera devices ---------------------------
for group in gpio video; do
    if ! getent group "$group" >/dev/null; then
        say "creating group $group (Raspberry Pi OS has it; this system did not)"
        groupadd --system "$group"
    fi
done
if getent passwd "$SERVICE_USER" >/dev/null; then
    say "user $SERVICE_USER exists; making sure it is in gpio and video"
    usermod --append --groups gpio,video "$SERVICE_USER"
else
    say "creating system user $SERVICE_USER (groups gpio, video)"
    useradd --system --home-dir /var/lib/dicesight --no-create-home --shell /usr/sbin/nologin \
        --user-group --groups gpio,video "$SERVICE_USER"
fi

# 3. The app: a copy of this checkout -------------------------------------------------------------
say "copying the app to $ROOT$APP"
mkdir -p "$ROOT$APP"
tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./state --exclude=./test-artifacts \
    --exclude='__pycache__' --exclude='*.egg-info' --exclude=./.pytest_cache --exclude=./.ruff_cache \
    --exclude=./.hypothesis -cf - . | tar -C "$ROOT$APP" -xf -

# 4. The venv: system packages visible, pure-Python dependencies from pip ------------------------
if [ ! -x "$ROOT$VENV/bin/python" ]; then
    say "creating the venv $ROOT$VENV (--system-site-packages)"
    "$PYTHON" -m venv --system-site-packages "$ROOT$VENV"
fi
PURE_DEPS=()
while IFS= read -r dep; do
    [ -n "$dep" ] && PURE_DEPS+=("$dep")
done < <("$PYTHON" - "$SRC/pyproject.toml" "$APT_PROVIDED" <<'PY'
import re, sys, tomllib
apt = set(sys.argv[2].split())
for dep in tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]:
    name = re.split(r"[<>=!~\[; ]", dep, maxsplit=1)[0].strip().lower()
    if name not in apt:
        print(dep)
PY
)
# Constraints pip cannot get round: numpy stays apt's version, OpenCV wheels can never be installed.
NUMPY_VERSION="$("$PYTHON" -c 'import numpy; print(numpy.__version__)')" \
    || die "python3-numpy is not importable by $PYTHON"
CONSTRAINTS="$ROOT$PREFIX/pip-constraints.txt"
printf '%s\n' "# written by scripts/install-pi.sh: numpy and OpenCV come from apt, never from pip" \
    "numpy==$NUMPY_VERSION" "opencv-python<0" "opencv-python-headless<0" "opencv-contrib-python<0" \
    "opencv-contrib-python-headless<0" > "$CONSTRAINTS"
say "pip (pure Python only): ${PURE_DEPS[*]}"
"$ROOT$VENV/bin/pip" install --quiet --upgrade-strategy only-if-needed -c "$CONSTRAINTS" "${PURE_DEPS[@]}"
# --no-deps: the app's own requirements on numpy/OpenCV are met by apt's packages, not by pip.
"$ROOT$VENV/bin/pip" install --quiet --no-deps -c "$CONSTRAINTS" "$ROOT$APP"
# Prove it: numpy and cv2 must be the system ones, not wheels pip slipped into the venv.
"$ROOT$VENV/bin/python" - <<'PY' || die "numpy/OpenCV in the venv are not the apt ones (see above)"
import sys
import cv2, numpy
for mod in (numpy, cv2):
    if "/dist-packages/" not in mod.__file__:
        sys.exit(f"{mod.__name__} comes from {mod.__file__}, not from apt (/usr/lib/python3/dist-packages)")
PY

# 5. Config (kept if it exists) and the unit ------------------------------------------------------
mkdir -p "$ROOT$CONF_DIR"
if [ ! -f "$ROOT$CONF_DIR/config.toml" ]; then
    say "writing the default config $ROOT$CONF_DIR/config.toml"
    cat > "$ROOT$CONF_DIR/config.toml.tmp" <<'TOML'
# dicesight configuration: every key is optional; docs/config.md lists them all.
[camera]
source = "auto"      # auto | demo | picamera2 | usb:N | replay:PATH
mount = "under"      # under: camera below a clear tray bottom; over: above the tray
dice = "d6"
settle_s = 0.3

[gpio]
pin_factory = "auto"

[gpio.buttons]       # BCM numbers; docs/wiring.md
next = 17
undo = 27
pair = 22

[gpio.leds]
phase1 = 5
phase2 = 6
phase3 = 13
phase4 = 19
phase5 = 26
status = 12

[web]
host = "0.0.0.0"
port = 8080
TOML
    sync "$ROOT$CONF_DIR/config.toml.tmp" 2>/dev/null || sync
    mv "$ROOT$CONF_DIR/config.toml.tmp" "$ROOT$CONF_DIR/config.toml"
else
    say "keeping the existing config $ROOT$CONF_DIR/config.toml"
fi

say "installing the unit $ROOT$UNIT_DIR/dicesight.service"
mkdir -p "$ROOT$UNIT_DIR"
sed "s#/opt/dicesight/#$PREFIX/#g; s#^User=dicesight#User=$SERVICE_USER#; s#^Group=dicesight#Group=$SERVICE_USER#" \
    "$SRC/systemd/dicesight.service" > "$ROOT$UNIT_DIR/dicesight.service.tmp"
chmod 0644 "$ROOT$UNIT_DIR/dicesight.service.tmp"
mv "$ROOT$UNIT_DIR/dicesight.service.tmp" "$ROOT$UNIT_DIR/dicesight.service"

# 6. Enable and start ----------------------------------------------------------------------------
if [ "$NO_SYSTEMD" = 1 ]; then
    # not booted with systemd (a chroot, an image being built: make pi-check): enabled offline, starts at boot
    systemctl enable dicesight.service 2>/dev/null \
        || ln -sf "$UNIT_DIR/dicesight.service" "$ROOT/etc/systemd/system/multi-user.target.wants/dicesight.service"
    say "installed and enabled (systemd is not running here); it starts at the next boot"
    exit 0
fi
systemctl daemon-reload
if [ "$NO_START" = 1 ]; then
    systemctl enable dicesight.service
    say "installed and enabled; it starts at the next boot (or: sudo systemctl start dicesight)"
else
    systemctl enable dicesight.service
    systemctl restart dicesight.service
    say "dicesight is running: open http://$(hostname).local:8080 on a phone on this Wi-Fi"
    say "logs: journalctl -u dicesight -f    status: systemctl status dicesight"
fi

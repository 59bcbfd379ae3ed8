#!/usr/bin/env bash
# Install dicesight on Raspberry Pi OS (Bookworm or later) as a systemd service. See docs/install-pi.md.
#
#   sudo scripts/install-pi.sh            # from a checkout of the repository, on the Pi
#   sudo scripts/install-pi.sh --hotspot  # the same, and the box makes its own Wi-Fi (no Wi-Fi where you play)
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
#
# With --hotspot (NetworkManager's access point, Avahi's dicesight.local; docs/install-pi.md):
#   HOTSPOT_SSID      the Wi-Fi's name           (default: the config's, else dicesight)
#   HOTSPOT_PASSWORD  its WPA2 password, 8-63 printable ASCII (default: the config's, else a new random one)
#   HOTSPOT_ADDRESS   the box's fixed address on it (default: the config's, else 10.42.0.1; a /24)
#   HOTSPOT_IFACE     the Wi-Fi interface        (default wlan0)
#   BOX_NAME          hostname, so phones reach http://BOX_NAME.local (default dicesight; empty: keep it)
set -euo pipefail

HOTSPOT=0
for arg in "$@"; do
    case "$arg" in
        --hotspot) HOTSPOT=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) printf 'install-pi: unknown option %s (see --help)\n' "$arg" >&2; exit 2 ;;
    esac
done

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

HOTSPOT_IFACE="${HOTSPOT_IFACE:-wlan0}"
BOX_NAME="${BOX_NAME-dicesight}"
HOTSPOT_CON=dicesight-hotspot  # NetworkManager's name for the access point connection
# NetworkManager shares the connection (DHCP and DNS for the phones: dnsmasq), Avahi answers dicesight.local.
HOTSPOT_APT_PACKAGES=(network-manager dnsmasq-base avahi-daemon libnss-mdns)

APP="$PREFIX/app"
VENV="$PREFIX/venv"
CONF_DIR="/etc/dicesight"
UNIT_DIR="/etc/systemd/system"

say() { printf '==> %s\n' "$*"; }
die() { printf 'install-pi: %s\n' "$*" >&2; exit 1; }

# The hotspot's settings in the config: read, checked and written by one small Python (tomllib) so that
# the TOML stays valid whatever the name holds (quotes, backslashes, CJK), and the box's own checks
# (device/config.py: 32 bytes, 8-63 printable ASCII, an IPv4 address) refuse nothing the installer wrote.
hotspot_py() {
    "$PYTHON" - "$@" <<'PY'
import ipaddress, json, os, secrets, sys, tomllib
what, args = sys.argv[1], sys.argv[2:]
if what == "current":  # ssid, password, address of an existing config (empty lines if none)
    try:
        with open(args[0], "rb") as fh:
            table = tomllib.load(fh).get("hotspot", {})
    except FileNotFoundError:
        table = {}
    print(table.get("ssid", "")); print(table.get("password", "")); print(table.get("address", ""))
elif what == "password":  # a new random password, without look-alike letters (read off a card)
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
    print("".join(secrets.choice(letters) for _ in range(12)))
elif what == "check":
    ssid, password, address = args
    if not ssid or len(ssid.encode()) > 32 or any(ord(c) < 32 or ord(c) == 127 for c in ssid):
        sys.exit("HOTSPOT_SSID: a Wi-Fi name is 1 to 32 bytes, without control characters")
    if not (8 <= len(password) <= 63 and all(32 <= ord(c) < 127 for c in password)):
        sys.exit("HOTSPOT_PASSWORD: a WPA2 password is 8 to 63 printable ASCII characters")
    try:
        ipaddress.IPv4Address(address)
    except ValueError:
        sys.exit(f"HOTSPOT_ADDRESS: {address!r} is not an IPv4 address")
elif what == "write":  # replace the [hotspot] table of the config, keep every other line as it was
    path, ssid, password, address = args
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    show = tomllib.loads(text).get("hotspot", {}).get("show_on_page", False)
    kept, inside = [], False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("["):
            inside = line.split("#", 1)[0].strip() == "[hotspot]"
        if not inside:
            kept.append(line)
    quote = lambda s: json.dumps(s, ensure_ascii=False)  # a JSON string of these characters is a TOML one
    block = ("\n[hotspot]            # written by scripts/install-pi.sh --hotspot (docs/config.md)\n"
             f"ssid = {quote(ssid)}\npassword = {quote(password)}\naddress = {quote(address)}\n"
             f"show_on_page = {'true' if show else 'false'}\n")
    new = "".join(kept).rstrip("\n") + "\n" + block
    tomllib.loads(new)  # still valid TOML, or stop here with the file untouched
    with open(path + ".tmp", "w", encoding="utf-8") as fh:
        fh.write(new)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(path + ".tmp", path)
PY
}

[ -f "$SRC/pyproject.toml" ] && [ -f "$SRC/systemd/dicesight.service" ] \
    || die "run this from a dicesight checkout (no pyproject.toml / systemd unit beside $0)"
if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
    die "run as root: sudo $0"
fi

# The hotspot's settings are checked before anything changes: a bad password stops here, not half-way.
if [ "$HOTSPOT" = 1 ]; then
    { IFS= read -r OLD_SSID; IFS= read -r OLD_PASSWORD; IFS= read -r OLD_ADDRESS; } \
        < <(hotspot_py current "$ROOT$CONF_DIR/config.toml")
    HOTSPOT_SSID="${HOTSPOT_SSID:-${OLD_SSID:-dicesight}}"
    # a second run keeps the password, so join cards already printed still work
    HOTSPOT_PASSWORD="${HOTSPOT_PASSWORD:-${OLD_PASSWORD:-$(hotspot_py password)}}"
    HOTSPOT_ADDRESS="${HOTSPOT_ADDRESS:-${OLD_ADDRESS:-10.42.0.1}}"
    hotspot_py check "$HOTSPOT_SSID" "$HOTSPOT_PASSWORD" "$HOTSPOT_ADDRESS" || exit 2
    if [ -n "$BOX_NAME" ] && ! [[ "$BOX_NAME" =~ ^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$ ]]; then
        die "BOX_NAME: \"$BOX_NAME\" is not a host name (letters, digits and -)"
    fi
    APT_PACKAGES+=("${HOTSPOT_APT_PACKAGES[@]}")
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
tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./build --exclude=./state --exclude=./test-artifacts \
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

# 5b. The box's own Wi-Fi (--hotspot): NetworkManager's access point, a fixed address, dicesight.local --------
set_box_name() {
    # the name Avahi announces as NAME.local (and the box's Host check accepts); Debian maps it to 127.0.1.1
    local current
    current="$(cat "$ROOT/etc/hostname" 2>/dev/null || hostname)"
    if [ -z "$BOX_NAME" ] || [ "$current" = "$BOX_NAME" ]; then
        return 0
    fi
    say "hostname $current -> $BOX_NAME (phones reach the box as $BOX_NAME.local)"
    mkdir -p "$ROOT/etc"
    printf '%s\n' "$BOX_NAME" > "$ROOT/etc/hostname"
    touch "$ROOT/etc/hosts"
    if grep -q '^127\.0\.1\.1[[:space:]]' "$ROOT/etc/hosts"; then
        sed -i "s/^127\.0\.1\.1[[:space:]].*/127.0.1.1\t$BOX_NAME/" "$ROOT/etc/hosts"
    else
        printf '127.0.1.1\t%s\n' "$BOX_NAME" >> "$ROOT/etc/hosts"
    fi
    [ "$NO_SYSTEMD" = 1 ] || hostnamectl set-hostname "$BOX_NAME"
}

make_hotspot() {
    # a WPA2 (RSN/CCMP) access point on 2.4 GHz (every phone has it), shared: NetworkManager gives the phones
    # addresses and DNS; the box keeps HOTSPOT_ADDRESS. Remade from scratch on each run (idempotent).
    if nmcli -t -f NAME connection show | grep -qx "$HOTSPOT_CON"; then
        nmcli connection delete "$HOTSPOT_CON"
    fi
    nmcli connection add type wifi ifname "$HOTSPOT_IFACE" con-name "$HOTSPOT_CON" autoconnect yes \
        ssid "$HOTSPOT_SSID" 802-11-wireless.mode ap 802-11-wireless.band bg 802-11-wireless.channel 6 \
        wifi-sec.key-mgmt wpa-psk wifi-sec.proto rsn wifi-sec.pairwise ccmp wifi-sec.group ccmp \
        wifi-sec.psk "$HOTSPOT_PASSWORD" ipv4.method shared ipv4.addresses "$HOTSPOT_ADDRESS/24" \
        ipv6.method disabled connection.autoconnect-priority 100 \
        || die "nmcli could not make the hotspot (is NetworkManager running? Raspberry Pi OS Bookworm has it)"
}

if [ "$HOTSPOT" = 1 ]; then
    say "hotspot settings in $ROOT$CONF_DIR/config.toml (readable by root and $SERVICE_USER only: it holds the password)"
    hotspot_py write "$ROOT$CONF_DIR/config.toml" "$HOTSPOT_SSID" "$HOTSPOT_PASSWORD" "$HOTSPOT_ADDRESS" \
        || die "could not write the hotspot settings into $ROOT$CONF_DIR/config.toml"
    chgrp "$SERVICE_USER" "$ROOT$CONF_DIR/config.toml"
    chmod 0640 "$ROOT$CONF_DIR/config.toml"
    set_box_name
    if [ "$NO_SYSTEMD" = 1 ]; then
        say "NetworkManager is not running here: run 'sudo scripts/install-pi.sh --hotspot' again on the Pi"
    else
        systemctl enable avahi-daemon.service
        systemctl restart avahi-daemon.service
        say "access point $HOTSPOT_CON: Wi-Fi \"$HOTSPOT_SSID\" on $HOTSPOT_IFACE, the box at $HOTSPOT_ADDRESS"
        make_hotspot
        if [ "$NO_START" != 1 ]; then
            say "starting the hotspot: $HOTSPOT_IFACE leaves the Wi-Fi it was on (an SSH session over Wi-Fi ends here)"
            nmcli connection up "$HOTSPOT_CON" || die "the hotspot did not start: journalctl -u NetworkManager"
        fi
    fi
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
if [ "$HOTSPOT" = 1 ]; then
    say "phones join the Wi-Fi \"$HOTSPOT_SSID\" (password $HOTSPOT_PASSWORD) and open http://$HOTSPOT_ADDRESS:8080"
    say "the join card to print: sudo $PREFIX/venv/bin/dicesight qr --out join-card.png"
fi

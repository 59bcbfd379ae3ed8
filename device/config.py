"""The box's settings: a small TOML file with documented defaults (see docs/config.md).

Why frozen dataclasses: the config is read once at start and handed to the camera, panel and web server;
nothing may change it behind their backs. Why strict checking: a typo in a pin number at a game night must
say which key is wrong, not surface later as a dead button. Why atomic writes: the config lives on an SD card
next to the store, and a power cut while saving must leave the old file or the new one, never half of each.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import re
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import tomli_w

FRAME_SIDES = (160, 4096)  # px: the sides camera.size may ask for
CAMERA_SOURCE = re.compile(r"^(auto|demo|picamera2|usb:\d+|replay:.+)$")
MOUNTS = ("under", "over")
PIN_FACTORIES = ("auto", "mock")
BUTTONS = ("next", "undo", "pair")
MAX_BCM_PIN = 27  # the 40-pin header exposes BCM GPIO 0-27
HOST_NAME = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                       r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$")
MAX_STREAMS = 900  # each stream is a thread and a file descriptor; the box raises its fd limit to fit
# A box's name in MQTT topics (dicesight/<box>/state): one topic level, so no "/", "+" or "#"; kept to what a
# Home Assistant entity id and a shell both take without quoting.
BOX_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
BROKER_SCHEMES = {"mqtt": (1883, False), "mqtts": (8883, True)}  # scheme -> (default port, TLS)

# Default wiring, BCM numbers (drawn in docs/wiring.md). Buttons switch to ground (internal pull-ups).
DEFAULT_BUTTON_PINS: dict[str, int | None] = {"next": 17, "undo": 27, "pair": 22}
# The row of five phase LEDs: slot i (a game's `phases[...]["led"]`, see engine.core.PhaseSpec) is
# PHASE_LED_NAMES[i]. Which phases light which slot is the game's business, not the box's.
PHASE_LED_NAMES = ("phase1", "phase2", "phase3", "phase4", "phase5")
# Phase LEDs plus the status LED.
DEFAULT_LED_PINS: dict[str, int | None] = {
    "phase1": 5, "phase2": 6, "phase3": 13, "phase4": 19, "phase5": 26, "status": 12,
}


class ConfigError(ValueError):
    """A config file or value that cannot be used; the message names the key (e.g. `gpio.buttons.next`)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}" if key else message)
        self.key = key
        self.detail = message


@dataclass(frozen=True)
class CameraConfig:
    source: str = "auto"  # auto | demo | picamera2 | usb:N | replay:PATH
    mount: str = "under"  # under: camera below a clear tray bottom; over: above the tray
    dice: str = "d6"  # dice set id: "d6" or any set a registered game describes (device.dice_sets.ids())
    settle_s: float = 0.3  # tray must be still this long before a reading
    # dice-set files (device.dice_file): a table's own dice, each overriding the game's set of the same id
    dice_files: tuple[str, ...] = ()
    # (width, height) asked of a picamera2 or USB camera; None: the source's own (1296x972, 1280x720)
    size: tuple[int, int] | None = None


@dataclass(frozen=True)
class GpioConfig:
    pin_factory: str = "auto"  # auto: the real pins on a Pi, else gpiozero's mock; mock: always mock
    buttons: dict[str, int | None] = field(default_factory=lambda: dict(DEFAULT_BUTTON_PINS))
    leds: dict[str, int | None] = field(default_factory=lambda: dict(DEFAULT_LED_PINS))
    debounce_s: float = 0.03  # contact bounce shorter than this is ignored
    long_press_s: float = 0.8  # Undo acts on a press at least this long
    shutdown_hold_s: float = 5.0  # Pair held this long = clean shutdown


@dataclass(frozen=True)
class WebConfig:
    host: str = "0.0.0.0"
    port: int = 8080
    names: tuple[str, ...] = ()  # extra host names phones use for the box (besides its hostname, .local)
    max_streams: int = 300  # live-update streams open at once (each holds a server thread); beyond: 503
    streams_per_address: int = 6  # streams one phone address may hold (a phone needs one); beyond: 429
    request_threads: int = 16  # server threads kept for pages and API requests, never taken by streams
    allow_seed: bool = False  # phones may choose a new game's seed (tests, replays): they then know every roll


@dataclass(frozen=True)
class HotspotConfig:
    """The box's own Wi-Fi (set up by `scripts/install-pi.sh --hotspot`), for the join card's Wi-Fi QR.

    The box does not start the access point itself (NetworkManager does, at boot); these keys only tell the
    join card and the page what the phones should join, and where the box is on it."""

    ssid: str = ""  # empty: the box runs no hotspot (phones join the place's Wi-Fi)
    password: str = ""  # WPA2 passphrase, 8-63 printable ASCII characters
    address: str = "10.42.0.1"  # the box's fixed IPv4 address on its hotspot (NetworkManager's shared default)
    show_on_page: bool = False  # the page's "Show join code" also shows the Wi-Fi QR and password

    @property
    def enabled(self) -> bool:
        """Does the box run its own hotspot (an SSID is configured)?"""
        return bool(self.ssid)


@dataclass(frozen=True)
class MqttConfig:
    """Publishing the table to a venue's MQTT broker (docs/venue.md). Off while `broker` is empty."""

    broker: str = ""  # mqtt://host[:port] or mqtts://host[:port] (TLS); empty: the box publishes nothing
    box: str = ""  # this box's name in topics (dicesight/<box>/...); empty: the machine's hostname
    name: str = ""  # the table's name on the venue board; empty: `box`
    username: str = ""
    password: str = ""
    password_file: str = ""  # read at start instead of `password`, so the config file can stay readable
    ca_file: str = ""  # mqtts: the CA certificate(s) to trust; empty: the system's
    topic_prefix: str = "dicesight"
    keepalive_s: int = 10  # the broker tells the venue "offline" within 1.5x this after the box vanishes
    share_photos: bool = False  # a small thumbnail of each camera roll the shared screen may see, on .../photo


@dataclass(frozen=True)
class Broker:
    """A broker address taken apart: where to connect and whether with TLS."""

    host: str
    port: int
    tls: bool

    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


@dataclass(frozen=True)
class Config:
    camera: CameraConfig = field(default_factory=CameraConfig)
    gpio: GpioConfig = field(default_factory=GpioConfig)
    web: WebConfig = field(default_factory=WebConfig)
    hotspot: HotspotConfig = field(default_factory=HotspotConfig)
    mqtt: MqttConfig = field(default_factory=MqttConfig)
    state_dir: Path | None = None  # None: $STATE_DIRECTORY (set by systemd), else ./state

    def resolved_state_dir(self, env: Mapping[str, str] | None = None) -> Path:
        """Where the store, images and taught dice live (see `state_dir`)."""
        return resolve_state_dir(self.state_dir, env)


def resolve_state_dir(state_dir: Path | None, env: Mapping[str, str] | None = None) -> Path:
    """`state_dir` if set, else systemd's $STATE_DIRECTORY (first entry), else ./state; always absolute.

    Absolute once, here, at start: a relative folder would be resolved again by whatever opens a file in it
    (Flask's send_file resolves against the app's package folder: every roll photo answered 500 under
    `make run`, issue 34 #3)."""
    if state_dir is not None:
        return Path(state_dir).expanduser().absolute()
    env = os.environ if env is None else env
    from_systemd = env.get("STATE_DIRECTORY", "").split(":")[0]
    return (Path(from_systemd) if from_systemd else Path("state")).absolute()


# -- reading ------------------------------------------------------------------------------------
def load_config(path: Path | None) -> Config:
    """The config in `path` (defaults for every key it leaves out), or the defaults when `path` is None."""
    if path is None:
        return Config()
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("", f"config file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("", f"config file {path} cannot be read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("", f"config file {path} is not valid TOML: {exc}") from None
    try:
        config = config_from_dict(data)
    except ConfigError as exc:
        raise ConfigError(exc.key, f"{exc.detail} (in {path})") from None
    # a dice-set file named in the config is found beside it, wherever the box is started from
    files = tuple(str(path.parent / Path(f).expanduser()) for f in config.camera.dice_files)
    return dataclasses.replace(config, camera=dataclasses.replace(config.camera, dice_files=files))


def config_from_dict(data: Mapping[str, Any]) -> Config:
    """Check and convert a parsed TOML document; ConfigError names the first bad key."""
    _only(data, "", ("camera", "gpio", "web", "hotspot", "mqtt", "state_dir"))
    camera = _camera(_table(data, "camera"))
    gpio = _gpio(_table(data, "gpio"))
    web = _web(_table(data, "web"))
    hotspot = _hotspot(_table(data, "hotspot"))
    mqtt = _mqtt(_table(data, "mqtt"))
    state_dir = None
    if "state_dir" in data:
        text = _str(data, "", "state_dir")
        if not text.strip() or "\0" in text:
            # Path("") is the current folder: under systemd that is /, never what was meant.
            raise ConfigError("state_dir", "must name a folder (leave the key out for the default)")
        state_dir = Path(text)
    return Config(camera=camera, gpio=gpio, web=web, hotspot=hotspot, mqtt=mqtt, state_dir=state_dir)


def apply_overrides(config: Config, *, camera: str | None = None, gpio: str | None = None,
                    host: str | None = None, port: int | None = None,
                    state_dir: Path | None = None, mount: str | None = None,
                    dice: str | None = None, dice_files: tuple[str, ...] = ()) -> Config:
    """The config with command-line options laid over it, checked like the file (ConfigError); `dice_files`
    are read besides the config's (a file given on the command line wins over a configured one of its id)."""
    data = config_to_dict(config)
    data["camera"]["dice_files"] += list(dice_files)
    if camera is not None:
        data["camera"]["source"] = camera
    if mount is not None:
        data["camera"]["mount"] = mount
    if dice is not None:
        data["camera"]["dice"] = dice
    if gpio is not None:
        data["gpio"]["pin_factory"] = gpio
    if host is not None:
        data["web"]["host"] = host
    if port is not None:
        data["web"]["port"] = port
    if state_dir is not None:
        data["state_dir"] = str(state_dir)
    return config_from_dict(data)


def _camera(t: Mapping[str, Any]) -> CameraConfig:
    d = CameraConfig()
    _only(t, "camera", [f.name for f in dataclasses.fields(CameraConfig)])
    source = _str(t, "camera", "source", d.source)
    if not CAMERA_SOURCE.match(source):
        raise ConfigError("camera.source", f"\"{source}\" is not a camera: use auto, demo, picamera2, usb:N "
                                           "or replay:PATH")
    mount = _str(t, "camera", "mount", d.mount)
    if mount not in MOUNTS:
        raise ConfigError("camera.mount", f"\"{mount}\" is not a mount: use under or over")
    dice = _str(t, "camera", "dice", d.dice)
    if not dice:
        raise ConfigError("camera.dice", "needs a dice set name such as d6")
    settle = _float(t, "camera", "settle_s", d.settle_s, 0.0, 10.0)
    files = t.get("dice_files", list(d.dice_files))
    if not isinstance(files, list) or not all(isinstance(f, str) and f.strip() for f in files):
        raise ConfigError("camera.dice_files", f"must be a list of dice-set file names, not {files!r}")
    return CameraConfig(source=source, mount=mount, dice=dice, settle_s=settle, dice_files=tuple(files),
                        size=_frame_size(t))


def _frame_size(t: Mapping[str, Any]) -> tuple[int, int] | None:
    """camera.size: [width, height] in pixels, or None where the key is left out."""
    value = t.get("size")
    if value is None:
        return None
    if not (isinstance(value, list | tuple) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and FRAME_SIDES[0] <= v <= FRAME_SIDES[1]
                    for v in value)):
        raise ConfigError("camera.size", f"must be [width, height] in pixels, each {FRAME_SIDES[0]}-"
                                         f"{FRAME_SIDES[1]} (e.g. [960, 720]), not {value!r}")
    return int(value[0]), int(value[1])


def _gpio(t: Mapping[str, Any]) -> GpioConfig:
    d = GpioConfig()
    _only(t, "gpio", [f.name for f in dataclasses.fields(GpioConfig)])
    factory = _str(t, "gpio", "pin_factory", d.pin_factory)
    if factory not in PIN_FACTORIES:
        raise ConfigError("gpio.pin_factory", f"\"{factory}\" is not a pin factory: use auto or mock")
    buttons_t = _table(t, "buttons", "gpio")
    _only(buttons_t, "gpio.buttons", BUTTONS)
    buttons = {**d.buttons, **{k: _pin(buttons_t, "gpio.buttons", k) for k in buttons_t}}
    leds_t = _table(t, "leds", "gpio")
    for name in leds_t:
        if not re.match(r"^[a-z][a-z0-9_]*$", name):
            raise ConfigError(f"gpio.leds.{name}", "LED names are lower-case letters, digits and _")
    leds = {**d.leds, **{k: _pin(leds_t, "gpio.leds", k) for k in leds_t}}
    seen: dict[int, str] = {}
    for prefix, pins in (("gpio.buttons", buttons), ("gpio.leds", leds)):
        for name, pin in pins.items():
            if pin is None:
                continue
            key = f"{prefix}.{name}"
            if pin in seen:
                raise ConfigError(key, f"GPIO {pin} is already used by {seen[pin]}")
            seen[pin] = key
    debounce = _float(t, "gpio", "debounce_s", d.debounce_s, 0.0, 1.0)
    long_press = _float(t, "gpio", "long_press_s", d.long_press_s, 0.1, 10.0)
    hold = _float(t, "gpio", "shutdown_hold_s", d.shutdown_hold_s, 1.0, 60.0)
    if long_press >= hold:
        raise ConfigError("gpio.long_press_s", f"must be shorter than gpio.shutdown_hold_s ({hold})")
    if debounce >= long_press:
        raise ConfigError("gpio.debounce_s", f"must be shorter than gpio.long_press_s ({long_press})")
    return GpioConfig(pin_factory=factory, buttons=buttons, leds=leds, debounce_s=debounce,
                      long_press_s=long_press, shutdown_hold_s=hold)


def _web(t: Mapping[str, Any]) -> WebConfig:
    d = WebConfig()
    _only(t, "web", [f.name for f in dataclasses.fields(WebConfig)])
    host = _str(t, "web", "host", d.host)
    if not _is_address_or_name(host):
        raise ConfigError("web.host", f"\"{host}\" is not a host address (e.g. 0.0.0.0 or 127.0.0.1)")
    port = _int(t, "web", "port", d.port, 0, 65535)  # 0: any free port (tests, benches)
    names = t.get("names", list(d.names))
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ConfigError("web.names", f"must be a list of host names, not {names!r}")
    for name in names:
        if not HOST_NAME.match(name):
            raise ConfigError("web.names", f"\"{name}\" is not a host name (letters, digits, - and .)")
    max_streams = _int(t, "web", "max_streams", d.max_streams, 1, MAX_STREAMS)
    per_address = _int(t, "web", "streams_per_address", d.streams_per_address, 1, max_streams)
    request_threads = _int(t, "web", "request_threads", d.request_threads, 2, 256)
    allow_seed = t.get("allow_seed", d.allow_seed)
    if not isinstance(allow_seed, bool):
        raise ConfigError("web.allow_seed", f"must be true or false, not {allow_seed!r}")
    return WebConfig(host=host, port=port, names=tuple(n.lower() for n in names), max_streams=max_streams,
                     streams_per_address=per_address, request_threads=request_threads, allow_seed=allow_seed)


def _hotspot(t: Mapping[str, Any]) -> HotspotConfig:
    """The [hotspot] table. The limits are WPA2's (SSID 1-32 bytes, passphrase 8-63 printable ASCII), so a
    card is never printed for a network NetworkManager would refuse to make."""
    d = HotspotConfig()
    _only(t, "hotspot", [f.name for f in dataclasses.fields(HotspotConfig)])
    ssid = _str(t, "hotspot", "ssid", d.ssid)
    if len(ssid.encode("utf-8")) > 32 or any(ord(c) < 32 or ord(c) == 127 for c in ssid):
        raise ConfigError("hotspot.ssid", "a Wi-Fi name is at most 32 bytes, without control characters")
    password = _str(t, "hotspot", "password", d.password)
    if ssid and not (8 <= len(password) <= 63 and all(32 <= ord(c) < 127 for c in password)):
        raise ConfigError("hotspot.password", "a WPA2 password is 8 to 63 printable ASCII characters")
    address = _str(t, "hotspot", "address", d.address)
    try:
        ipaddress.IPv4Address(address)
    except ValueError:
        raise ConfigError("hotspot.address", f"\"{address}\" is not an IPv4 address (e.g. 10.42.0.1)") from None
    show = t.get("show_on_page", d.show_on_page)
    if not isinstance(show, bool):
        raise ConfigError("hotspot.show_on_page", f"must be true or false, not {show!r}")
    return HotspotConfig(ssid=ssid, password=password, address=address, show_on_page=show)


def _mqtt(t: Mapping[str, Any]) -> MqttConfig:
    d = MqttConfig()
    _only(t, "mqtt", [f.name for f in dataclasses.fields(MqttConfig)])
    broker = _str(t, "mqtt", "broker", d.broker)
    if broker:
        parse_broker(broker, "mqtt.broker")
    box = _str(t, "mqtt", "box", d.box)
    if box and not BOX_ID.match(box):
        raise ConfigError("mqtt.box", f"\"{box}\" is not a box name: letters, digits, _ . - (at most 64), "
                                      "starting with a letter or digit")
    texts = {k: _str(t, "mqtt", k, getattr(d, k)) for k in ("name", "username", "password", "password_file",
                                                             "ca_file", "topic_prefix")}
    if texts["password"] and texts["password_file"]:
        raise ConfigError("mqtt.password_file", "give the password or a file holding it, not both")
    prefix = texts["topic_prefix"]
    if not prefix or any(c in prefix for c in "+#\0") or prefix.startswith("/") or prefix.endswith("/"):
        raise ConfigError("mqtt.topic_prefix", f"\"{prefix}\" is not a topic prefix (e.g. dicesight or "
                                               "club/dicesight; no + or #)")
    keepalive = _int(t, "mqtt", "keepalive_s", d.keepalive_s, 5, 300)
    share = t.get("share_photos", d.share_photos)
    if not isinstance(share, bool):
        raise ConfigError("mqtt.share_photos", f"must be true or false, not {share!r}")
    return MqttConfig(broker=broker, box=box, keepalive_s=keepalive, share_photos=share, **texts)


def parse_broker(url: str, key: str = "mqtt.broker") -> Broker:
    """`mqtt://host[:port]` or `mqtts://host[:port]` as a Broker (ConfigError naming `key` otherwise).
    Credentials belong in their own keys, never in the address that logs and the venue page show."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise ConfigError(key, f"\"{url}\" is not a broker address: {exc}") from None
    if parts.scheme not in BROKER_SCHEMES or not parts.hostname:
        raise ConfigError(key, f"\"{url}\" is not a broker address: use mqtt://host[:port] or mqtts://host[:port]")
    if parts.username or parts.password:
        raise ConfigError(key, "put the user name and password in mqtt.username and mqtt.password_file, "
                               "not in the address")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ConfigError(key, f"\"{url}\" is not a broker address: nothing may follow host:port")
    default_port, tls = BROKER_SCHEMES[parts.scheme]
    return Broker(host=unquote(parts.hostname), port=port or default_port, tls=tls)


def _is_address_or_name(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return bool(HOST_NAME.match(host))


# -- checks that need the box (dice sets known to this install, the state folder) -------------------------
def load_dice_files(config: Config) -> list[Any]:
    """The configured dice-set files, each checked whole (device.dice_file); ConfigError("camera.dice_files")
    with the file's one sentence for the first that cannot be used, so a bad file stops the start."""
    from .dice_file import DiceFileError, load  # OpenCV and the reader: only a box given files pays for them

    try:
        return [load(Path(f), config.camera.mount) for f in config.camera.dice_files]
    except DiceFileError as err:
        raise ConfigError("camera.dice_files", str(err)) from None


def check_dice_set(config: Config, known: set[str]) -> None:
    """ConfigError("camera.dice") when the configured dice set is not one this box can read: an unknown
    set would otherwise fail on every camera frame, all night long."""
    if config.camera.dice not in known:
        raise ConfigError("camera.dice", f"\"{config.camera.dice}\" is not a dice set this box knows "
                                         f"(known: {', '.join(sorted(known))})")


def prepare_state_dir(path: Path) -> Path:
    """Create the state folder if needed and prove it can be written (ConfigError("state_dir") if not), so
    a wrong folder stops the start with its name rather than failing at the first roll."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise ConfigError("state_dir", f"the folder {path} cannot be used: {exc.strerror or exc}") from None
    return path


# -- small checkers -----------------------------------------------------------------------------
def _key(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _only(t: Mapping[str, Any], prefix: str, known: Any) -> None:
    for name in t:
        if name not in known:
            raise ConfigError(_key(prefix, name), f"unknown key (known here: {', '.join(known)})")


def _table(t: Mapping[str, Any], name: str, prefix: str = "") -> Mapping[str, Any]:
    value = t.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError(_key(prefix, name), "must be a table ([section])")
    return value


def _str(t: Mapping[str, Any], prefix: str, name: str, default: str | None = None) -> str:
    value = t.get(name, default)
    if not isinstance(value, str):
        raise ConfigError(_key(prefix, name), f"must be a string, not {value!r}")
    return value


def _int(t: Mapping[str, Any], prefix: str, name: str, default: int, low: int, high: int) -> int:
    value = t.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(_key(prefix, name), f"must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise ConfigError(_key(prefix, name), f"must be between {low} and {high}, not {value}")
    return value


def _float(t: Mapping[str, Any], prefix: str, name: str, default: float, low: float, high: float) -> float:
    value = t.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(_key(prefix, name), f"must be a number of seconds, not {value!r}")
    if not low <= value <= high:
        raise ConfigError(_key(prefix, name), f"must be between {low} and {high}, not {value}")
    return float(value)


def _pin(t: Mapping[str, Any], prefix: str, name: str) -> int | None:
    value = t[name]
    if value is False:  # TOML has no null: `false` means "not wired"
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(_key(prefix, name), f"must be a BCM GPIO number (or false), not {value!r}")
    if not 0 <= value <= MAX_BCM_PIN:
        raise ConfigError(_key(prefix, name), f"GPIO {value} does not exist (BCM 0-{MAX_BCM_PIN})")
    return value


# -- writing ------------------------------------------------------------------------------------
def config_to_dict(config: Config) -> dict[str, Any]:
    """The config as a TOML-able dict (unwired pins as false; state_dir only when set)."""
    data: dict[str, Any] = {
        "camera": _camera_dict(config.camera),
        "gpio": {
            "pin_factory": config.gpio.pin_factory,
            "debounce_s": config.gpio.debounce_s,
            "long_press_s": config.gpio.long_press_s,
            "shutdown_hold_s": config.gpio.shutdown_hold_s,
            "buttons": {k: (False if v is None else v) for k, v in config.gpio.buttons.items()},
            "leds": {k: (False if v is None else v) for k, v in config.gpio.leds.items()},
        },
        "web": {**dataclasses.asdict(config.web), "names": list(config.web.names)},
        "hotspot": dataclasses.asdict(config.hotspot),
        "mqtt": dataclasses.asdict(config.mqtt),
    }
    if config.state_dir is not None:
        data["state_dir"] = str(config.state_dir)
    return data


def _camera_dict(camera: CameraConfig) -> dict[str, Any]:
    """The camera section as TOML has it (lists; no size key where the source keeps its own)."""
    data = {**dataclasses.asdict(camera), "dice_files": list(camera.dice_files)}
    if camera.size is None:
        del data["size"]
    else:
        data["size"] = list(camera.size)
    return data


def save_config(config: Config, path: Path) -> None:
    """Write the config atomically: temp file in the same folder, fsync, rename, fsync the folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = tomli_w.dumps(config_to_dict(config)).encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)

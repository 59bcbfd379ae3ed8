"""Config checked at start (issue 11, point 8): an unknown dice set, an empty or unusable state folder and
bad web limits stop `dicesight run` at once with a message naming the key, instead of a box that starts
and then fails on every camera frame or writes into whatever folder it was started from."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from device.box import known_dice_sets
from device.config import (
    Config,
    ConfigError,
    check_dice_set,
    config_from_dict,
    prepare_state_dir,
)

ROOT = Path(__file__).resolve().parents[2]


def test_an_empty_state_dir_is_refused_not_taken_as_the_current_folder() -> None:
    for value in ("", "   "):
        with pytest.raises(ConfigError) as exc:
            config_from_dict({"state_dir": value})
        assert exc.value.key == "state_dir"


def test_a_state_dir_that_is_a_file_is_refused_by_name(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with pytest.raises(ConfigError) as exc:
        prepare_state_dir(blocker / "state")
    assert exc.value.key == "state_dir" and str(blocker) in str(exc.value)
    assert prepare_state_dir(tmp_path / "fresh").is_dir()


def test_an_unknown_dice_set_is_refused_and_the_known_ones_listed() -> None:
    known = known_dice_sets()
    assert "d6" in known and "dicethrone:barbarian" in known  # from the games' own descriptions
    with pytest.raises(ConfigError) as exc:
        check_dice_set(config_from_dict({"camera": {"dice": "d7"}}), known)
    assert exc.value.key == "camera.dice" and "d7" in str(exc.value) and "d6" in str(exc.value)
    check_dice_set(Config(), known)


@pytest.mark.parametrize(("web", "key"), [
    ({"max_streams": 0}, "web.max_streams"),
    ({"max_streams": 10_000}, "web.max_streams"),
    ({"max_streams": 10, "streams_per_address": 11}, "web.streams_per_address"),
    ({"request_threads": "8"}, "web.request_threads"),
    ({"names": "box.lan"}, "web.names"),
    ({"names": ["evil site"]}, "web.names"),
    ({"host": "not a host"}, "web.host"),
])
def test_web_limits_are_checked(web: dict, key: str) -> None:
    with pytest.raises(ConfigError) as exc:
        config_from_dict({"web": web})
    assert exc.value.key == key


def test_dicesight_run_stops_at_once_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[camera]\ndice = "dicethrone:wizard"\n')
    done = subprocess.run(
        [sys.executable, "-m", "device.cli", "run", "--camera", "demo", "--gpio", "mock", "--host", "127.0.0.1",
         "--port", "0", "--config", str(config), "--state-dir", str(tmp_path / "state"), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    error = json.loads(done.stdout.strip().splitlines()[-1])["error"]
    assert error["code"] == "bad_config" and error["message"].startswith("camera.dice:")
    assert "Traceback" not in done.stderr

"""`dicesight play`: a script of actions applied with no camera, one result per line, errors go on."""

from __future__ import annotations

import json

from device.cli import main


def run_play(capsys, tmp_path, lines, setup=None, game="freeroll"):
    script = tmp_path / "actions.jsonl"
    script.write_text("\n".join(lines) + "\n")
    args = ["play", game, "--script", str(script), "--json"]
    if setup is not None:
        (tmp_path / "setup.json").write_text(setup)
        args += ["--setup", str(tmp_path / "setup.json")]
    code = main(args)
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return code, out


def test_play_prints_a_snapshot_per_action(capsys, tmp_path):
    code, out = run_play(capsys, tmp_path, ['{"type": "roll", "dice": [1, 2, 3]}',
                                            '{"type": "roll", "dice": [6]}', '{"type": "undo"}'])
    assert code == 0
    assert [o["seq"] for o in out] == [1, 2, 3]
    assert out[1]["snapshot"]["rolls"][0]["total"] == 6
    assert out[2]["snapshot"]["count"] == 1


def test_play_reports_bad_lines_and_goes_on(capsys, tmp_path):
    code, out = run_play(capsys, tmp_path, ['{"type": "roll", "dice": [9]}', "not json",
                                            '{"type": "roll", "dice": [4]}'])
    assert code == 1
    assert out[0]["error"]["code"] == "bad_dice" and out[0]["line"] == 1
    assert out[1]["error"]["code"] == "bad_json" and out[1]["line"] == 2
    assert out[2]["seq"] == 1 and out[2]["snapshot"]["rolls"][0]["total"] == 4


def test_play_unknown_game_and_bad_setup(capsys, tmp_path):
    code, out = run_play(capsys, tmp_path, [], game="chess")
    assert code == 2 and out[0]["error"]["code"] == "unknown_game"
    code, out = run_play(capsys, tmp_path, [], setup="[1, 2")
    assert code == 2 and out[0]["error"]["code"] == "bad_setup"

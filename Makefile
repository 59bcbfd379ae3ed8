# dicesight: `make run` starts the box, `make test` runs every test. Both set up what they need from
# nothing on a Debian machine with Python >= 3.11 (a venv in .venv; Debian packages via apt-get as root).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Debian packages the tests use: a real browser for the page tests (never a downloaded one),
# systemd-analyze to verify the unit file, CJK fonts so zh-TW and ko screenshots are legible, and a real MQTT
# broker for the venue tests (each test starts its own mosquitto on a free port; the service is not used).
APT_TEST_PACKAGES := chromium chromium-driver systemd fonts-noto-cjk mosquitto
RUN_ARGS ?=
# Test workers (pytest-xdist, handing out one test at a time; tests/conftest.py puts the longest first). The
# browser tests partly wait (on Chromium, the event stream, the box's threads): one more worker than cores
# overlaps those waits without starving the long games (2 idle cores, 2026-11-23: 2 workers 119 s, 3 workers
# 108-119 s, 4 workers 127 s). `make test TEST_WORKERS=0` runs in one process.
TEST_WORKERS ?= 3

.PHONY: run test screenshots lint venv system-deps clean pi-check train-reader train-reader-suite train-symbols train-numerals \
	train-finder train-finder-suite blender-dice blender-undertray train-reader-undertray recalibrate-undertray train-finder-undertray train-symbols-undertray train-dicethrone-undertray \
	bench-undertray undertray-denoised

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "dicesight needs Python >= 3.11 (found $$($(PYTHON) --version))"; exit 1; }
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
		echo "python3-venv is missing: installing it with apt-get"; \
		apt-get update -q && apt-get install -y -q python3-venv && $(PYTHON) -m venv $(VENV); }
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $(STAMP)

system-deps:
	@missing=""; for p in $(APT_TEST_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi; \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; \
	fi

run: venv
	$(BIN)/dicesight run $(RUN_ARGS)

lint: venv
	$(BIN)/ruff check .

# Before the workers start: byte-compile the code and let pytest write its rewritten test modules once, so
# the workers and the boxes the tests start do not each compile them again (about 6 CPU s per worker, 0.2 s
# per process), also where the environment sets PYTHONDONTWRITEBYTECODE.
test: venv system-deps lint
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m compileall -q engine device webui vision bench training > /dev/null
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q --collect-only > /dev/null || true
	PYTHONDONTWRITEBYTECODE= DICESIGHT_SCREENSHOTS=0 $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --maxschedchunk 1 --durations=15

# The browser tests with their screenshots (test-artifacts/screenshots/*.png, 390x844 at 2x): look at them
# after changing the page. `make test` skips taking them (they are for people, not for the checks).
screenshots: venv system-deps
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --maxschedchunk 1 tests/e2e

# The face classifier (vision/models/pips.onnx): torch-trained (CPU build, one thread: on a shared, loaded
# machine two threads ran seven times slower), seeded, about ten minutes on a free core. Never in CI: the
# tests use the model shipped in the package. The suite adds the cross-validation models that
# bench/vision_accuracy.py measures (build/reader-models/). `--photo-sets` (python -m training.train_reader,
# training.train_finder) trains on other pip-d6 photo sets, each left out in turn by the suite.
train-reader: venv
	$(BIN)/pip install -q -e '.[train]'
	OMP_NUM_THREADS=1 nice -n 10 $(BIN)/python -m training.train_reader --threads 1

train-reader-suite: venv
	$(BIN)/pip install -q -e '.[train]'
	OMP_NUM_THREADS=1 nice -n 10 $(BIN)/python -m training.train_reader --threads 1 --suite

# The learned die finder (vision/models/finder.onnx, run in still photos and first frames): torch-trained (CPU
# build, one thread: two threads on the shared machine waited on each other), seeded, about 10 minutes. Never in
# CI: the tests use the model shipped in the package. The suite adds the fold models that bench/vision_finder.py
# and bench/vision_accuracy.py measure (build/finder-models/, split as the classifier's).
train-finder: venv
	$(BIN)/pip install -q -e '.[train]'
	OMP_NUM_THREADS=1 nice -n 10 $(BIN)/python -m training.train_finder --threads 1

train-finder-suite: venv
	$(BIN)/pip install -q -e '.[train]'
	OMP_NUM_THREADS=1 nice -n 10 $(BIN)/python -m training.train_finder --threads 1 --suite

# The box's own view (issue 31): the face network and the learned finder for `--mount under`
# (vision/models/pips-under.onnx, finder-under.onnx), trained as pips.onnx and finder.onnx are plus the under-tray
# renders of seeds 4 and up (build/blender-undertray, `make blender-undertray`); seeds 1-3 are never trained or
# calibrated on: `make bench-undertray` reads them. Seeded, CPU torch on one thread; never in CI.
# UNDERTRAY_HOLD_OUT=plate=glass trains the face network without that factor, into build/reader-models/.
# The shipped pips-under.onnx (2026-11-26, 200 epochs, about 45 minutes on one core):
# UNDERTRAY_TRAIN_SEEDS=4-19,22-24,30-32, seeds 20-21 kept out to choose with. The default leaves out 20-21 and
# 42-49 too (docs/dice-sets.md measures on them) and takes 50-87 as they are rendered
# (2026-11-27: 50 and up); 88-99 are fresh test seeds (`undertray_data.FRESH_SEEDS`,
# `FRESH_CLEAN_SEEDS`), never trained on. Since 2026-11-29 (27th session) the shipped one is that network
# trained 40 epochs more from its own weights on seeds 4-12,14-16,50-81 (`--init-from
# vision/models/pips-under --epochs 40 --lr 1e-3`, about 19 minutes on one core; docs/dice-sets.md), and since
# the 52nd session that network trained 40 epochs more on seeds 82-87,2000-2005 with every crop from below
# cut from its frame smoothed as the reader smooths it (`--smooth 0.8`, about 8 minutes on one core), and
# since the 53rd session 40 epochs more again so on seeds 82-87,2000-2013 (`--seed 8`, about 13 minutes on
# one core). `python -m training.room_input` (an experiment, not a shipped network): the empty tray as a
# second input, whole factors held out, a learning curve over the frames from below.
# UNDERTRAY_CLEAN_ROOT=build/undertray-s64 also trains on the seeds rendered there at 64 samples a pixel
# (`make blender-undertray UNDERTRAY_SAMPLES=64 UNDERTRAY_ROOT=build/undertray-s64`).
UNDERTRAY_TRAIN_SEEDS ?= 4-19,22-24,30-32,50-87
UNDERTRAY_HOLD_OUT ?=
UNDERTRAY_CLEAN_ROOT ?=
train-reader-undertray: venv
	$(BIN)/pip install -q -e '.[train]'
	OMP_NUM_THREADS=1 nice -n 10 $(BIN)/python -m training.train_reader_undertray --threads 1 \
		--train-seeds $(UNDERTRAY_TRAIN_SEEDS) $(if $(UNDERTRAY_CLEAN_ROOT),--clean-root $(UNDERTRAY_CLEAN_ROOT)) \
		$(if $(UNDERTRAY_HOLD_OUT),--hold-out $(UNDERTRAY_HOLD_OUT) \
		--out build/reader-models --name pips-under-without-$(subst =,-,$(UNDERTRAY_HOLD_OUT)))

train-finder-undertray: venv
	$(BIN)/pip install -q -e '.[train]'
	OMP_NUM_THREADS=1 nice -n 10 $(BIN)/python -m training.train_finder --threads 1 --epochs 45 \
		--undertray $(UNDERTRAY_TRAIN_SEEDS),$(SYMBOL_TRAIN_SEEDS)

# Fit the shipped under-tray face networks' certainty levels again on every frame from below they never trained on
# (the held-back fifth, the calibration seeds 25-29 and 33-41, seeds rendered after them), without training: a minute.
# UNDERTRAY_CLEAN_ROOT=build/undertray-s64: the d6 level also holds on those seeds rendered there at 64
# samples (each look of the held-back dice on its own: `calibration.by_look`).
recalibrate-undertray: venv
	$(BIN)/pip install -q -e '.[train]'
	$(BIN)/python -m training.train_reader_undertray --recalibrate vision/models/pips-under.onnx \
		$(if $(UNDERTRAY_CLEAN_ROOT),--clean-root $(UNDERTRAY_CLEAN_ROOT))
	$(BIN)/python -m training.train_symbols_undertray --recalibrate vision/models/kingoftokyo-under.onnx

# King of Tokyo's face network for `--mount under` (vision/models/kingoftokyo-under.onnx), trained on the
# symbol seeds' renders (202 and up; 200-201 are the test seeds, 223-231 kept out to measure on);
# SYMBOL_HOLD_OUT=printings=red-white trains without a printing, into build/symbol-models/. Seeded, CPU torch
# on one thread; never in CI. Two of each die's four camera-fault variants are drawn on the frame's denoised
# copy (`make undertray-denoised UNDERTRAY_SEEDS=...` first; a seed without one gives its grainy frame). The
# shipped one (2026-11-27, fourteenth session): seeds 202-222 and 232-275, boxes drawn at 0.7-1.3 times a
# die's face, 100 epochs, 73 minutes on one core (SYMBOL_TRAIN_SEEDS=202-222,232-275), then refitted on every
# frame of seeds 202-222 and 232-286 it never trained on, both looks (`train_symbols_undertray --recalibrate
# vision/models/kingoftokyo-under.onnx --train-seeds 202-222,232-286`). Since the sixteenth session the
# shipped file joins that network (member a) with one trained the same way for 80 epochs on seeds 202-222
# and 232-290 (SYMBOL_TRAIN_SEEDS=202-222,232-290, --epochs 80: member b): `python -m training.ensemble
# A.onnx B.onnx --out vision/models/kingoftokyo-under.onnx`, then `--recalibrate` as above with
# --train-seeds 202-222,232-310.
SYMBOL_TRAIN_SEEDS ?= 202-222,232-397
SYMBOL_HOLD_OUT ?=
train-symbols-undertray: venv
	$(BIN)/pip install -q -e '.[train]'
	OMP_NUM_THREADS=1 nice -n 10 $(BIN)/python -m training.train_symbols_undertray --threads 1 --epochs 100 \
		--frame 0.7 1.3 --clean-variants 2 --train-seeds $(SYMBOL_TRAIN_SEEDS) \
		$(if $(SYMBOL_HOLD_OUT),--hold-out $(SYMBOL_HOLD_OUT) \
		--out build/symbol-models --name kingoftokyo-under-without-$(subst =,-,$(SYMBOL_HOLD_OUT)))

# Dice Throne's ONE face network for every hero for `--mount under` (vision/models/dicethrone-under.onnx; classes are
# the face index, the corner number; 48 px input), trained on the hero seeds' renders (402 and up, 640x480 frames:
# `make blender-undertray UNDERTRAY_SEEDS=400-409`); 400-401 are the test seeds, the only ones with the held-out
# heroes and printing. None ships yet: none trained so far reads well enough (docs/dice-sets.md). Seeded, CPU torch
# on one thread; never in CI.
DICETHRONE_TRAIN_SEEDS ?= 402-599
train-dicethrone-undertray: venv
	$(BIN)/pip install -q -e '.[train]'
	OMP_NUM_THREADS=1 nice -n 10 $(BIN)/python -m training.train_symbols_undertray --threads 1 --set dicethrone \
		--train-seeds $(DICETHRONE_TRAIN_SEEDS)

# The held-out under-tray figures (seeds 1-3, and the symbol test seeds 200-201), with the models shipped for --mount under and, for comparison,
# with pips.onnx and finder.onnx (the reader before them).
bench-undertray: venv
	nice -n 15 $(BIN)/python bench/vision_undertray.py --brief
	nice -n 15 $(BIN)/python bench/vision_undertray.py --brief --classifier vision/models/pips.onnx \
		--finder vision/models/finder.onnx
	nice -n 15 $(BIN)/python bench/vision_undertray.py --brief --seeds 200-201
	nice -n 15 $(BIN)/python bench/vision_undertray.py --brief --seeds 400-401

# Pip dice rendered by Blender's path tracer (training/blender_dice.py; Debian's blender, Cycles on the CPU), for
# `train_reader --blender 1-30`: 100 frames (about 335 dice) per seed folder in build/blender-dice, seeded, about
# 9 minutes a folder on one core of the shared machine; BLENDER_JOBS folders at once. Never in CI.
BLENDER_SEEDS ?= 1-30
BLENDER_JOBS ?= 2
blender-dice: venv
	@command -v blender > /dev/null || { \
		if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi; \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends blender; }
	nice -n 10 $(BIN)/python -m training.blender_canvases --seeds $(BLENDER_SEEDS) --jobs $(BLENDER_JOBS)

# The box's own view, dice on a clear plate seen from under it (training/blender_undertray.py; Cycles on the CPU):
# UNDERTRAY_FRAMES frames per seed folder in build/blender-undertray/s<seed> (labels.jsonl: per die box, centre,
# glass and top face, material, colour, touching/tilted; per frame its factors), each with its empty tray;
# 320x240 frames, 6-10 s a frame with its empty tray on one core (13-17 s at 12-16 samples on the 2-core AMD
# EPYC VM of 2026-11-28, both cores rendering); Dice Throne seeds (400 and up) 640x480, 25-30 s. Never in CI.
# bench/vision_undertray.py reads them. A seed renders the same pixels in any process since 2026-11-28
# (`blender_undertray.canonical_faces`); folders rendered before have the same scenes with other grain.
# UNDERTRAY_SAMPLES=64 UNDERTRAY_ROOT=build/undertray-s64: Cycles' paths at 64 samples a pixel, not 12 (a frame
# and its empty tray about 50 s on one core), nearer a camera's picture; the bench reads them with its --root.
# UNDERTRAY_SCALE=2 UNDERTRAY_ROOT=build/undertray-x2: the same scenes at 640x480 (25-45 s a frame on one core),
# which `bench/vision_undertray.py --root build/undertray-x2 --scale 0.75` reads at 480x360, the side the box
# reads the Pi camera's frame at (0: by seed).
UNDERTRAY_SEEDS ?= 1-10
UNDERTRAY_FRAMES ?= 40
UNDERTRAY_SAMPLES ?= 12
UNDERTRAY_ROOT ?= build/blender-undertray
UNDERTRAY_SCALE ?= 0
blender-undertray: venv
	@command -v blender > /dev/null || { \
		if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi; \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends blender; }
	nice -n 15 $(BIN)/python -m training.blender_undertray_canvases --seeds $(UNDERTRAY_SEEDS) --frames $(UNDERTRAY_FRAMES) \
		--samples $(UNDERTRAY_SAMPLES) --root $(UNDERTRAY_ROOT) --scale $(UNDERTRAY_SCALE)

# The renders' denoised copies (training/denoise_undertray.py; Open Image Denoise from the train extra): the
# same frames without Cycles' grain, in build/undertray-denoised/s<seed>, about 10 s a seed on one core. The
# trainers draw `--clean-variants` of their camera faults on them; the bench reads them with
# `--root build/undertray-denoised` (renders as a Blender with a denoiser makes them). Never in CI.
undertray-denoised: venv
	$(BIN)/pip install -q -e '.[train]'
	nice -n 10 $(BIN)/python -m training.denoise_undertray --seeds $(UNDERTRAY_SEEDS)

# The Pi install on the Pi's architecture, without a Pi: scripts/install-pi.sh and the installed box in an arm64
# Debian bookworm root under qemu (debootstrap, qemu-user-static), picamera2 and lgpio aside. About half an hour
# on two cores, so never in CI; root (debootstrap, chroot). Result: build/pi-check/pi-check.log, docs/install-pi.md.
pi-check:
	bash scripts/pi-check.sh

# A symbol-dice classifier (renders only, numpy-trained, seeded; never in CI), written to build/symbol-models:
# not shipped yet (see training/symbols.py for how far it got).
train-symbols: venv
	$(BIN)/pip install -q -e '.[train]'
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 $(BIN)/python -m training.symbols

# The numeral-face classifier (vision/models/numerals.onnx: d12, d20...): trained with the train extra's torch on
# d20-numerals photos and renders, seeded, about 8 minutes on one core. Never in CI: the tests use the model
# shipped in the package.
train-numerals: venv
	$(BIN)/pip install -q -e '.[train]'
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 $(BIN)/python -m training.numerals

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache test-artifacts

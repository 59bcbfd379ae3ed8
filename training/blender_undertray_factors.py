"""The factors of one under-tray frame, drawn in plain Python so that they can be tested without Blender.

`training/blender_undertray.py` (run inside Blender) builds the scene these factors describe; this module
only draws them from a seeded `random.Random` and writes the labels. Keeping the draws here (not in the bpy
script) is why a bench can hold out whole factors: every frame's JSON row names its plate, LED ring, room,
dice material, printing and build options, drawn here the same way for the same seed, with or without Blender.
Seeds from SYMBOL_SEEDS hold King of Tokyo dice (`symbol_dice`), drawn after and apart from every d6 draw;
seeds from DICETHRONE_SEEDS hold a Dice Throne hero's dice instead (`dicethrone_dice`), drawn the same way;
seeds from MORE_D6_SEEDS hold d6 again (`seed_kind` says which a seed holds).
Seeds from TABLE_SEEDS (below SYMBOL_SEEDS) are each one table: one box (plate, LED ring, room, build, lens,
camera) and one set of six d6, thrown again in every frame (`table_frame`), as a box sees its players' dice all
evening; the learning curve from below (`bench/vision_learning.py --undertray`) teaches the first throws and
reads the later ones.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

PLATES = ["acrylic-2mm", "acrylic-3mm", "acrylic-5mm", "glass-3mm", "glass-4mm"]
LED_COLOURS = {"white": (1.0, 1.0, 1.0), "warm": (1.0, 0.8, 0.55), "cold": (0.8, 0.9, 1.0), "green": (0.6, 1.0, 0.6)}
ROOMS = ["ceiling-lamp", "window", "dark-room", "kitchen-pendant"]
MATERIALS = ["opaque", "marbled", "speckled", "glossy", "translucent"]
PIPS = ["painted", "drilled"]
COLOURS = {"white": (0.0, 0.0, 0.95), "red": (0.0, 0.85, 0.7), "blue": (0.62, 0.8, 0.6), "green": (0.33, 0.8, 0.5),
           "yellow": (0.14, 0.85, 0.95), "black": (0.0, 0.0, 0.06), "purple": (0.8, 0.6, 0.5)}
# a build option is a way of putting the box together that keeps glare off the camera (docs/wiring.md)
BUILDS = ["plain", "leds-outside-cone", "diffuser", "matte-enclosure", "cross-polarised"]
SENSOR_MM = 3.68   # Pi Camera v2 sensor width
OPPOSITE = {1: 6, 2: 5, 3: 4, 4: 3, 5: 2, 6: 1}
# Seeds from here hold King of Tokyo dice (faces 1, 2, 3, heart, energy, claw) in several printings; below it
# every draw of a frame is what it was before symbol dice existed (the folders already rendered stay right).
SYMBOL_SEEDS = 200
# Seeds from here to SYMBOL_SEEDS are tables: one box and one dice set a seed, a new throw each frame
TABLE_SEEDS = 100
TABLE_DICE = 6   # the dice a table owns; a throw is 2-6 of them
# the kingoftokyo set as engine/kingoftokyo (data.FACES, describe.OPPOSITE, describe.GLYPHS): face indices 1-6;
# copied because Blender's Python loads this file without the package (a test keeps the copies equal)
KOT_FACES = ("1", "2", "3", "heart", "energy", "claw")
KOT_OPPOSITE = {1: 5, 5: 1, 2: 6, 6: 2, 3: 4, 4: 3}
KOT_GLYPHS = {"1": "text:1", "2": "text:2", "3": "text:3", "heart": "icon:heart", "energy": "icon:energy",
              "claw": "icon:claw"}
# Seeds from here hold Dice Throne heroes' dice (an icon and a corner number 1-6 on every face) instead; 200-399
# stay King of Tokyo's. The heroes as device.dice_sets describes them (engine/dicethrone: face index = the corner
# number; opposite faces sum to 7, the engine's assumption); copied for Blender's Python (a test keeps them equal)
DICETHRONE_SEEDS = 400
DT_TEST_SEEDS = (400, 401)   # the only seeds that draw the held-out heroes and printing
# Seeds from here hold d6 again, drawn as those below TABLE_SEEDS. Why: every d6 seed below 100 has been
# trained on or read as a fresh test; a fresh test needs seeds no trainer's list ever named
MORE_D6_SEEDS = 1000
DT_FACES = {
    "artificer": ("wrench", "wrench", "wrench", "nut", "nut", "lightning"),
    "barbarian": ("sword", "sword", "sword", "heart", "heart", "pow"),
    "cursed_pirate": ("cutlass", "cutlass", "cutlass", "treasure", "treasure", "skull"),
    "gunslinger": ("bullet", "bullet", "bullet", "dash", "dash", "bullseye"),
    "huntress": ("spear", "spear", "claw", "claw", "bond", "sabertooth"),
    "monk": ("fist", "fist", "palm", "taiji", "taiji", "lotus"),
    "moon_elf": ("arrow", "arrow", "arrow", "foot", "foot", "moon"),
    "ninja": ("ninjato", "ninjato", "ninjato", "shuriken", "shuriken", "mask"),
    "paladin": ("sword", "sword", "helm", "helm", "heart", "prayer"),
    "pyromancer": ("flame", "flame", "flame", "blaze", "fiery_soul", "meteor"),
    "samurai": ("katana", "katana", "katana", "kabuto", "kabuto", "rising_sun"),
    "seraph": ("blade", "blade", "blade", "wing", "cross", "pendant"),
    "shadow_thief": ("dagger", "dagger", "bag", "bag", "card", "shadow"),
    "tactician": ("sabre", "sabre", "sabre", "banner", "banner", "medal"),
    "treant": ("branch", "branch", "branch", "leaf", "leaf", "spirit"),
    "vampire_lord": ("claw", "claw", "claw", "gaze", "gaze", "blood_drop"),
}
# heroes drawn only in DT_TEST_SEEDS: their icons are on no other hero's dice, so the bench's "held-out heroes"
# lines measure a network reading the corner number of faces it never saw
DT_HELD_OUT = ("gunslinger", "ninja", "seraph", "treant")
SETS = {"d6": OPPOSITE, "kingoftokyo": KOT_OPPOSITE} | {f"dicethrone:{h}": OPPOSITE for h in DT_FACES}


@dataclass(frozen=True)
class Printing:
    """One printing of the symbol dice: body colour (a COLOURS name), ink (h, s, v), the numbers' font (an
    OpenCV Hershey font), the glyphs' weight (stroke growth in face units: thin < 0 < bold), size and slant."""
    body: str
    ink: tuple[float, float, float]
    font: int
    weight: float
    scale: float
    slant: float


# black dice and green bonus dice as the boxed game has them, then other editions' and third-party printings
PRINTINGS = {
    "black-green": Printing("black", (0.33, 0.8, 0.8), 0, 0.01, 1.0, 0.0),
    "black-white": Printing("black", (0.0, 0.0, 0.95), 2, 0.0, 0.95, 0.0),
    "green-black": Printing("green", (0.0, 0.0, 0.05), 0, 0.015, 1.0, 0.0),
    "green-white": Printing("green", (0.0, 0.0, 0.95), 3, -0.005, 0.9, 0.1),
    "black-lime-thin": Printing("black", (0.22, 0.9, 0.9), 4, -0.01, 0.85, 0.0),
    "purple-yellow": Printing("purple", (0.14, 0.85, 0.95), 1, 0.005, 1.05, -0.1),
    "white-black-bold": Printing("white", (0.0, 0.0, 0.05), 0, 0.025, 1.1, 0.0),
    "red-white": Printing("red", (0.0, 0.0, 0.95), 2, 0.0, 0.95, 0.05),
}
# Dice Throne printings: the boxed heroes' coloured dice with light or gold ink, then other printings; the
# numbers' font, weight, size and slant vary as King of Tokyo's do. DT_HELD_OUT_PRINTING is drawn only in the
# test seeds (the bench's held-out printing line)
DT_PRINTINGS = {
    "black-gold": Printing("black", (0.12, 0.75, 0.85), 0, 0.0, 1.0, 0.0),
    "red-white": Printing("red", (0.0, 0.0, 0.95), 2, 0.005, 0.95, 0.0),
    "blue-white": Printing("blue", (0.0, 0.0, 0.95), 1, 0.0, 1.0, 0.05),
    "white-black": Printing("white", (0.0, 0.0, 0.05), 3, 0.01, 1.05, 0.0),
    "green-yellow": Printing("green", (0.14, 0.85, 0.95), 4, -0.005, 0.9, 0.0),
    "yellow-black-bold": Printing("yellow", (0.0, 0.0, 0.05), 0, 0.02, 1.1, -0.08),
    "black-white-thin": Printing("black", (0.0, 0.0, 0.95), 2, -0.01, 0.9, 0.1),
    "purple-white": Printing("purple", (0.0, 0.0, 0.95), 1, 0.01, 1.0, -0.05),
}
DT_HELD_OUT_PRINTING = "purple-white"


@dataclass
class Die:
    """One die: where it rests on the glass (scene units, x/y), its turn, its top face and how it lies."""
    x: float
    y: float
    turn: float
    top: int
    colour: str
    material: str
    tilted: bool = False     # leaning against a neighbour, its glass face off the plate
    touching: bool = False   # its side meets a neighbour's
    set: str = "d6"          # a SETS name; `top` and `glass` are face indices of that set (1-6)
    printing: str | None = None   # a PRINTINGS name, for symbol dice

    @property
    def glass(self) -> int:
        """The face ON THE GLASS: what the camera under the tray sees (the set's opposite face; a d6's sum
        to 7)."""
        return SETS[self.set][self.top]


@dataclass
class Frame:
    """Every draw of one frame; `factors()` is what a bench holds out."""
    seed: int
    index: int
    plate: str
    led_count: int
    led_colour: str
    led_radius: float      # ring radius in scene units (a die's side is 2)
    room: str
    hand: bool
    pips: str
    pip_dark: bool
    lens_mm: float
    distance: float        # camera to plate, scene units
    exposure: float
    wb_error: tuple[float, float, float]
    noise: float
    blur: float
    jpeg: int
    scratches: int
    dust: int
    smudge: bool
    builds: list[str] = field(default_factory=list)
    dice: list[Die] = field(default_factory=list)
    look: int | None = None   # the frame whose box and dice bodies this one shares (a table's: 0), None: its own

    @property
    def scene_index(self) -> int:
        """The index the renderer draws the box's things from (dust, scratches, room, dice bodies): a table's
        frames share one box and one dice set, every other frame has its own."""
        return self.index if self.look is None else self.look

    def factors(self) -> dict:
        """The factor groups of this frame, as the bench holds them out (symbol frames add their printings)."""
        out = {"plate": self.plate, "leds": f"{self.led_count}-{self.led_colour}", "room": self.room,
               "pips": self.pips, "build": "+".join(self.builds) or "plain",
               "materials": sorted({d.material for d in self.dice}),
               "colours": sorted({d.colour for d in self.dice})}
        printings = sorted({d.printing for d in self.dice if d.printing})
        heroes = sorted({d.set.split(":", 1)[1] for d in self.dice if d.set.startswith("dicethrone:")})
        return out | ({"printings": printings} if printings else {}) | ({"heroes": heroes} if heroes else {})


def mirror_cone_radius(lens_mm: float, distance: float) -> float:
    """The ring radius beyond which the plate cannot mirror an LED into the lens: an LED at radius r, d under
    the plate, comes back at atan(r / 2d) off the axis, seen when that is inside half the frame's diagonal
    field of view (a 4:3 sensor SENSOR_MM wide)."""
    half_diagonal = math.hypot(SENSOR_MM, SENSOR_MM * 0.75) / 2
    return 2 * distance * half_diagonal / lens_mm


def draw_builds(rnd: random.Random) -> list[str]:
    """None to all four glare-keeping options; half of the frames are the plain build a first box is."""
    if rnd.random() < 0.5:
        return []
    return sorted(b for b in BUILDS[1:] if rnd.random() < 0.35) or [rnd.choice(BUILDS[1:])]


def place(rnd: random.Random, count: int, side: float = 2.0) -> list[tuple[float, float, bool]]:
    """Centres within the field, a die's diagonal apart, or touching a placed neighbour (side by side) now and
    then: (x, y, touching). Touching dice are why the finder must part blobs (issue 31 point 3)."""
    spots: list[tuple[float, float, bool]] = []
    reach = 2.2 * side
    tries = 0
    while len(spots) < count and tries < 500:
        tries += 1
        if spots and rnd.random() < 0.3:
            x, y, _ = rnd.choice(spots)
            a = rnd.choice([0, math.pi / 2, math.pi, 3 * math.pi / 2])
            p = (x + side * 1.03 * math.cos(a), y + side * 1.03 * math.sin(a))
            touching = True
        else:
            p = (rnd.uniform(-reach, reach), rnd.uniform(-reach * 0.75, reach * 0.75))
            touching = False
        near = [math.dist(p, q[:2]) for q in spots]
        if all(d > side * 1.45 for d in near) or (touching and all(d > side * 1.0 for d in near)):
            spots.append((p[0], p[1], touching))
    return [(x, y, t or any(0 < math.dist((x, y), (u, v)) < side * 1.1 for u, v, _ in spots)) for x, y, t in spots]


def seed_kind(seed: int) -> str:
    """What a seed's folder holds: "d6" (a new box each frame), "table" (`table_frame`), "kingoftokyo"
    (`symbol_dice`) or "dicethrone" (`dicethrone_dice`)."""
    if seed >= MORE_D6_SEEDS or seed < TABLE_SEEDS:
        return "d6"
    if seed < SYMBOL_SEEDS:
        return "table"
    return "dicethrone" if seed >= DICETHRONE_SEEDS else "kingoftokyo"


def draw_frame(seed: int, index: int, empty: bool = False) -> Frame:
    """The factors of frame `index` of folder `seed`: the same for the same (seed, index), each frame drawn
    from its own generator so that a frame can be rendered again alone. `empty`: the same scene, no dice."""
    kind = seed_kind(seed)
    if kind == "table":
        return table_frame(seed, index, empty)
    rnd = random.Random(seed * 100_003 + index)
    f = _box_draws(rnd, seed, index)
    set_colour = rnd.choice(list(COLOURS))
    set_material = rnd.choice(MATERIALS)
    spots = place(rnd, rnd.randint(1, 6))
    for x, y, touching in spots:
        mixed = rnd.random() < 0.25
        die = Die(x=round(x, 4), y=round(y, 4), turn=round(rnd.uniform(0, 2 * math.pi), 4), top=rnd.randint(1, 6),
                  colour=rnd.choice(list(COLOURS)) if mixed else set_colour,
                  material=rnd.choice(MATERIALS) if mixed else set_material, touching=touching)
        _add_die(f, die, (x, y), rnd)
    if kind == "dicethrone":
        dicethrone_dice(f)
    elif kind == "kingoftokyo":
        symbol_dice(f)
    if empty:
        f.dice = []
    return f


def _box_draws(rnd: random.Random, seed: int, index: int) -> Frame:
    """A frame's box, camera and room (no dice yet), drawn first from the frame's generator."""
    builds = draw_builds(rnd)
    f = Frame(seed=seed, index=index, plate=rnd.choice(PLATES), led_count=rnd.choice([6, 8, 12, 16]),
              led_colour=rnd.choice(list(LED_COLOURS)), led_radius=rnd.uniform(0.6, 1.6), room=rnd.choice(ROOMS),
              hand=rnd.random() < 0.3, pips=rnd.choice(PIPS), pip_dark=rnd.random() < 0.5,
              lens_mm=rnd.choice([2.8, 3.6, 4.0]), distance=rnd.uniform(11.0, 15.0),
              exposure=rnd.uniform(-0.6, 0.6), wb_error=tuple(round(rnd.uniform(0.85, 1.15), 3) for _ in range(3)),
              noise=rnd.uniform(1.0, 6.0), blur=rnd.choice([0.0, 0.0, 0.6, 1.2]), jpeg=rnd.randint(60, 95),
              scratches=rnd.randint(0, 8), dust=rnd.randint(0, 40), smudge=rnd.random() < 0.3, builds=builds)
    if "leds-outside-cone" in builds:
        f.led_radius = round(mirror_cone_radius(f.lens_mm, f.distance) * rnd.uniform(1.1, 1.3), 3)
    return f


def _add_die(f: Frame, die: Die, spot: tuple[float, float], rnd: random.Random) -> None:
    """Put `die` in the frame at `spot` (its unrounded place): a touching die leans on its neighbour now and
    then and is turned as it is (or the two would overlap); one that would still sit in another die is left out."""
    x, y = spot
    die.tilted = die.touching and bool(f.dice) and rnd.random() < 0.3
    if die.touching and f.dice:
        near = min(f.dice, key=lambda d: math.dist((d.x, d.y), (x, y)))
        die.turn = near.turn
        dx, dy, c, s = x - near.x, y - near.y, math.cos(near.turn), math.sin(near.turn)
        die.x, die.y = round(near.x + c * dx - s * dy, 4), round(near.y + s * dx + c * dy, 4)
    if any(math.dist((d.x, d.y), (die.x, die.y)) < 1.95 for d in f.dice):
        return
    f.dice.append(die)


def table_frame(seed: int, index: int, empty: bool = False) -> Frame:
    """Throw `index` at table `seed`: the box and the six dice are frame 0's draws of the seed (an ordinary
    frame's), the throw its own: how many of the six, where they land, their top faces, a hand above or not,
    and the camera's auto-exposure a little off the box's. Why: a box reads one table's dice all evening, and
    what it learns from the first confirmed throws can only be judged on later throws of the same dice."""
    f = _box_draws(random.Random(seed * 100_003), seed, index)
    f.look = 0
    owned = table_dice(seed)
    rnd = random.Random(f"throw-{seed}-{index}")
    f.hand = rnd.random() < 0.3
    f.exposure = round(f.exposure + rnd.uniform(-0.15, 0.15), 4)
    thrown = rnd.sample(owned, rnd.randint(2, TABLE_DICE))
    for (x, y, touching), (colour, material) in zip(place(rnd, len(thrown)), thrown, strict=False):
        die = Die(x=round(x, 4), y=round(y, 4), turn=round(rnd.uniform(0, 2 * math.pi), 4), top=rnd.randint(1, 6),
                  colour=colour, material=material, touching=touching)
        _add_die(f, die, (x, y), rnd)
    if empty:
        f.dice = []
    return f


def table_dice(seed: int) -> list[tuple[str, str]]:
    """The (colour, material) of each of a table's dice: one set, now and then a die of another set among them
    (as `draw_frame` mixes a quarter of a frame's dice)."""
    rnd = random.Random(f"table-{seed}")
    colour, material = rnd.choice(list(COLOURS)), rnd.choice(MATERIALS)
    return [(rnd.choice(list(COLOURS)), rnd.choice(MATERIALS)) if rnd.random() < 0.25 else (colour, material)
            for _ in range(TABLE_DICE)]


def symbol_dice(f: Frame) -> None:
    """The frame's dice become King of Tokyo dice: one printing for the frame, a quarter of the dice of a
    second one (the game's green bonus dice among its black ones). Drawn from their own generator, after
    every d6 draw, so that the scene (places, turns, top faces as indices, lighting) is drawn as for a d6.
    Their bodies are opaque or glossy plastic, as printed dice are."""
    rnd = random.Random(f"symbols-{f.seed}-{f.index}")
    main, second = rnd.sample(sorted(PRINTINGS), 2)
    for die in f.dice:
        die.set = "kingoftokyo"
        die.printing = second if rnd.random() < 0.25 else main
        die.colour = PRINTINGS[die.printing].body
        die.material = "glossy" if die.material == "glossy" else "opaque"


def dicethrone_dice(f: Frame) -> None:
    """The frame's dice become one Dice Throne hero's, in one printing, drawn from their own generator after
    every d6 draw (places, turns and top faces as indices are the d6 scene's). The held-out heroes and printing
    come only in the test seeds, where half the frames show a held-out hero and a quarter the held-out
    printing, so that both lines of the bench count enough dice."""
    rnd = random.Random(f"dicethrone-{f.seed}-{f.index}")
    test = f.seed in DT_TEST_SEEDS
    seen = [h for h in DT_FACES if h not in DT_HELD_OUT]
    hero = rnd.choice(DT_HELD_OUT if test and rnd.random() < 0.5 else seen)
    others = [p for p in DT_PRINTINGS if p != DT_HELD_OUT_PRINTING]
    printing = DT_HELD_OUT_PRINTING if test and rnd.random() < 0.25 else rnd.choice(others)
    for die in f.dice:
        die.set = f"dicethrone:{hero}"
        die.printing = printing
        die.colour = DT_PRINTINGS[printing].body
        die.material = "glossy" if die.material == "glossy" else "opaque"


def frame_scale(seed: int) -> int:
    """The frame's size in multiples of 320x240: 2 for the Dice Throne seeds. Why: their faces are told apart
    by a corner number a fifth of the face high (three faces share the sword), unreadable on a 50 px die in the
    render's grain; the box's camera gives 1296x972 (four times the side), the d6 and King of Tokyo seeds stay
    at 1 (their glyphs fill the face, and their draws and labels stay what they were)."""
    return 2 if seed_kind(seed) == "dicethrone" else 1


def atlas_name(die: Die) -> str:
    """The file name (no suffix) of the atlas that inks a symbol die: a King of Tokyo printing's, or a Dice
    Throne hero's faces in a printing (`<hero>--<printing>`)."""
    if die.set.startswith("dicethrone:"):
        return f"{die.set.split(':', 1)[1]}--{die.printing}"
    return str(die.printing)


def label_row(frame: Frame, image: str, boxes: list[list[float] | None], empty_image: str | None) -> dict:
    """One labels.jsonl row: per die its box (cx, cy, w, h px, None when the frame's edge cuts it), centre,
    the face on the glass, the top face (face indices of its set; a symbol die adds the faces' names and its
    printing), set, colour, material, touching/tilted; and the frame's factors."""
    dice = []
    for die, box in zip(frame.dice, boxes, strict=True):
        if box is None:
            continue
        row = {"box": [round(v, 2) for v in box], "center": [round(box[0], 2), round(box[1], 2)],
               "glass": die.glass, "top": die.top, "set": die.set, "colour": die.colour,
               "material": die.material, "touching": die.touching, "tilted": die.tilted}
        if die.set == "kingoftokyo":   # the faces' names too, and the printing
            row |= {"glass_face": KOT_FACES[die.glass - 1], "top_face": KOT_FACES[die.top - 1],
                    "printing": die.printing}
        elif die.set.startswith("dicethrone:"):   # the hero's faces' names (the index is the corner number)
            faces = DT_FACES[die.set.split(":", 1)[1]]
            row |= {"glass_face": faces[die.glass - 1], "top_face": faces[die.top - 1], "printing": die.printing}
        dice.append(row)
    cut = sum(1 for b in boxes if b is None)
    return {"image": image, "empty": empty_image, "seed": frame.seed, "index": frame.index, "cut": cut,
            "factors": frame.factors(), "draws": {k: v for k, v in asdict(frame).items() if k != "dice"},
            "dice": dice}


def canonical_loops(faces: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """A mesh's faces (vertex loops) each turned to start at its lowest vertex, in sorted order: the same list
    whatever vertex and order Blender started them at, each face's winding (so its normal) kept. The renderer
    rebuilds its UV spheres so (`blender_undertray.canonical_faces`), as Blender 3.4 starts their loops
    differently from one process to the next."""
    def from_lowest(loop: tuple[int, ...]) -> tuple[int, ...]:
        k = loop.index(min(loop))
        return tuple(loop[k:] + loop[:k])
    return sorted(from_lowest(tuple(loop)) for loop in faces)


def read_rows(folder: Path) -> list[dict]:
    """The rows of a folder's labels.jsonl (rendered or half rendered)."""
    path = folder / "labels.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

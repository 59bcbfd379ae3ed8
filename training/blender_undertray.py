"""The box's own view, rendered by Blender's path tracer: dice lying on a clear plate, seen from below.

Run inside Blender (Debian: `apt-get install blender`; `make blender-undertray` starts it):

    blender -b --factory-startup -noaudio -P training/blender_undertray.py -- --out build/undertray/s1 --scenes 40 --seed 1

Why: the reader lives under a clear tray, and every picture it was judged on there came from
`vision/render.py`, which draws a sharp face on a dark room. A real box sees the plate: an acrylic or glass sheet
that mirrors the LED ring and the camera board in both its surfaces, with scratches, dust and smudges; the
room above seen through it (ceiling lamps, a sleeve, a hand, a phone); dice resting, touching, one tilted on a
neighbour; opaque, marbled, speckled and translucent bodies whose other faces show through. A path tracer
gives all of that for free (reflections in both surfaces of the plate, light through translucent dice), where
a hand-made renderer gives only what its author thought of.

Each scene is rendered twice: with its dice, and empty (the room the box learns). Every frame's factors go to
`labels.jsonl` so a bench can hold a whole factor out (a plate, an LED ring, a material, a build):
- plate: acrylic or glass, thin or thick, clean or scratched, dusty, smudged;
- leds: how many, their colour, points or a diffused ring, near the lens or outside the cone in which the plate
  mirrors them into the lens;
- build: `bare`, `diffuser`, `outside_cone`, `black_box` (matte black enclosure) and `cross_polarised` (a linear
  polariser on the LEDs and a crossed one on the lens: the plate's and the dice's mirror-like reflections keep
  the LEDs' polarisation and are blocked; light scattered in the dice's bodies is not. Approximated here by
  a plate that only transmits (no reflection at either surface) and dice with no specular layer);
- room: the ceiling, its lamps, and what hangs over the tray (nothing, a sleeve, a hand, a phone);
- dice: per die its material, colour (named: white, ivory, red, blue, yellow, green, black, purple), pips
  drilled deep or shallow as paint, the face lying on the glass and the top face, touching or tilted.
Sensor noise, blur, white balance and JPEG are added afterwards (`training/undertray.py`), seeded per frame, so
one render serves several sensors.

Reproducible from `--seed` (one `random.Random`; Cycles' seed drawn from it). `done` names this file's digest.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
from pathlib import Path

import bpy  # noqa: I001 (Blender's own module: this file runs only inside Blender)
from mathutils import Euler, Vector

sys.path.insert(0, str(Path(__file__).resolve().parent))
import blender_dice as bd  # noqa: E402  (the dice, materials and projection helpers of the view from above)

WIDTH, HEIGHT = 400, 300
SIDE = bd.SIDE
NAMED_COLOURS = {  # body HSV and the pips' HSV, as game tables own them (Regidice reads red/yellow/blue/black)
    "white": ((0.1, 0.03, 0.95), (0.0, 0.0, 0.05)), "ivory": ((0.12, 0.18, 0.9), (0.0, 0.0, 0.08)),
    "red": ((0.0, 0.9, 0.6), (0.0, 0.0, 0.95)), "blue": ((0.62, 0.85, 0.45), (0.0, 0.0, 0.95)),
    "yellow": ((0.14, 0.9, 0.95), (0.0, 0.0, 0.05)), "green": ((0.33, 0.8, 0.45), (0.0, 0.0, 0.95)),
    "black": ((0.0, 0.0, 0.04), (0.0, 0.0, 0.95)), "purple": ((0.78, 0.7, 0.4), (0.14, 0.7, 0.95)),
}
BUILDS = ["bare", "diffuser", "outside_cone", "black_box", "cross_polarised"]


def draw_factors(rnd: random.Random) -> dict:
    """Every factor of one scene, drawn first so a frame's JSON names them all."""
    build = rnd.choice(BUILDS)
    return {
        "build": build,
        "plate": rnd.choice(["acrylic", "acrylic", "glass"]),
        "plate_mm": rnd.choice([2, 3, 5, 8]),
        "plate_wear": rnd.choice(["clean", "scratched", "dusty", "smudged"]),
        "leds": rnd.choice([4, 6, 8, 12, 16]),
        "led_colour": rnd.choice(["neutral", "warm", "cool", "green-tint"]),
        "led_power": rnd.uniform(0.5, 2.0),
        "room": rnd.choice(["dim", "lamp", "bright", "window"]),
        "over": rnd.choice(["nothing", "nothing", "sleeve", "hand", "phone"]),
        "lens_mm": rnd.uniform(18, 32),
        "die_px": rnd.uniform(34, 70),
        "count": rnd.choice([1, 2, 3, 4, 5, 5, 6, 8]),
        "touching": rnd.random() < 0.4,
        "tilted": rnd.random() < 0.2,
    }


def led_rgb(name: str) -> tuple[float, float, float, float]:
    return {"neutral": (1.0, 1.0, 1.0, 1), "warm": (1.0, 0.78, 0.55, 1), "cool": (0.8, 0.9, 1.0, 1),
            "green-tint": (0.85, 1.0, 0.85, 1)}[name]


def emission(name: str, colour: tuple, strength: float) -> bpy.types.Material:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    nodes.remove(nodes["Principled BSDF"])
    em = nodes.new("ShaderNodeEmission")
    em.inputs["Color"].default_value = colour
    em.inputs["Strength"].default_value = strength
    mat.node_tree.links.new(em.outputs["Emission"], nodes["Material Output"].inputs["Surface"])
    return mat


def diffuse(name: str, colour: tuple, roughness: float = 0.9) -> bpy.types.Material:
    mat, bsdf = bd.principled(name)
    bsdf.inputs["Base Color"].default_value = colour
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Specular"].default_value = 0.2
    return mat


def plate_material(rnd: random.Random, f: dict) -> bpy.types.Material:
    """Acrylic (IOR 1.49) or glass (1.52, faintly green); wear roughens it in places; a cross-polarised build
    sees no reflection from it at all (a transparent shader: the crossed filters block what the plate mirrors)."""
    mat = bpy.data.materials.new(f"plate-{f['plate']}")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    out = nodes["Material Output"]
    nodes.remove(nodes["Principled BSDF"])
    tint = (0.92, 1.0, 0.95, 1) if f["plate"] == "glass" else (1, 1, 1, 1)
    if f["build"] == "cross_polarised":
        shader = nodes.new("ShaderNodeBsdfTransparent")
        shader.inputs["Color"].default_value = tuple(c * 0.9 for c in tint[:3]) + (1,)
        links.new(shader.outputs[0], out.inputs["Surface"])
        return mat
    glass = nodes.new("ShaderNodeBsdfGlass")
    glass.inputs["IOR"].default_value = 1.52 if f["plate"] == "glass" else 1.49
    glass.inputs["Color"].default_value = tint
    base_rough = {"clean": 0.0, "scratched": 0.02, "dusty": 0.01, "smudged": 0.05}[f["plate_wear"]]
    glass.inputs["Roughness"].default_value = base_rough
    if f["plate_wear"] != "clean":
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = {"scratched": 60.0, "dusty": 120.0, "smudged": 3.0}[f["plate_wear"]]
        noise.inputs["Detail"].default_value = 8.0
        ramp = nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].position = 0.55 if f["plate_wear"] != "smudged" else 0.4
        ramp.color_ramp.elements[1].position = 0.6 if f["plate_wear"] != "smudged" else 0.7
        ramp.color_ramp.elements[1].color = (0.25, 0.25, 0.25, 1)
        links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
        links.new(ramp.outputs["Color"], glass.inputs["Roughness"])
    links.new(glass.outputs[0], out.inputs["Surface"])
    return mat


def add_plate(rnd: random.Random, f: dict) -> None:
    """The tray's bottom: its top surface at z = 0, where the dice rest (1 unit is 8 mm: a die is 16 mm)."""
    thick = f["plate_mm"] / 8.0
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, -thick / 2))
    plate = bpy.context.active_object
    plate.scale = (40, 40, thick)
    plate.data.materials.append(plate_material(rnd, f))


def add_box_and_camera(rnd: random.Random, f: dict, scene: bpy.types.Scene) -> bpy.types.Object:
    """The camera looking up from the floor of the box, its board around it, the LED ring, the box's walls."""
    cam_data = bpy.data.cameras.new("cam")
    cam_data.lens = f["lens_mm"]
    dist = WIDTH * cam_data.lens / (cam_data.sensor_width * f["die_px"] / SIDE)
    cam = bpy.data.objects.new("cam", cam_data)
    cam.location = (rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5), -dist)
    cam.rotation_euler = Euler((math.pi, 0, rnd.uniform(0, 2 * math.pi)), "XYZ")  # looking straight up (+Z)
    scene.collection.objects.link(cam)
    scene.camera = cam
    board = diffuse("board", bd.hsv(rnd.choice([0.33, 0.6, 0.0]), rnd.uniform(0.3, 0.8), rnd.uniform(0.05, 0.3)),
                    roughness=0.4)
    bpy.ops.mesh.primitive_plane_add(size=3.5, location=(cam.location.x, cam.location.y, -dist - 0.3))
    bpy.context.active_object.data.materials.append(board)
    add_leds(rnd, f, cam.location, dist)
    wall_colour = (0.01, 0.01, 0.01, 1) if f["build"] == "black_box" else bd.hsv(0, 0, rnd.uniform(0.3, 0.9))
    walls = diffuse("walls", wall_colour, roughness=1.0 if f["build"] == "black_box" else 0.5)
    half = dist * 0.9 + 6
    for (x, y, sx, sy) in ((half, 0, 0.2, half), (-half, 0, 0.2, half), (0, half, half, 0.2), (0, -half, half, 0.2)):
        bpy.ops.mesh.primitive_cube_add(size=2, location=(x, y, -dist / 2 - 0.4))
        wall = bpy.context.active_object
        wall.scale = (sx, sy, dist / 2)
        wall.data.materials.append(walls)
    bpy.ops.mesh.primitive_plane_add(size=2 * half, location=(0, 0, -dist - 0.5))
    bpy.context.active_object.data.materials.append(walls)
    return cam


def add_leds(rnd: random.Random, f: dict, at: Vector, dist: float) -> None:
    """LEDs around the lens (their images in the plate fall in the frame), or outside the cone in which the
    plate mirrors them into the lens (`outside_cone`); a diffuser turns the points into a glowing ring."""
    half_fov = math.atan(36 / (2 * f["lens_mm"]))
    radius = 2 * dist * math.tan(half_fov) * 1.3 if f["build"] == "outside_cone" else rnd.uniform(0.6, 1.6)
    height = at.z + (rnd.uniform(0.3, 0.8) if f["build"] != "outside_cone" else dist * 0.4)
    # LEDs far out and low light the faces on the glass at a slant: they need more power for the same exposure
    power = f["led_power"] * (320 if f["build"] == "outside_cone" else 12) / max(4, f["leds"])
    colour = led_rgb(f["led_colour"])
    if f["build"] in ("diffuser", "cross_polarised"):
        bpy.ops.mesh.primitive_torus_add(location=(at.x, at.y, height), major_radius=radius, minor_radius=0.15)
        bpy.context.active_object.data.materials.append(emission("diffuser", colour, power * f["leds"] * 0.6))
        return
    led = emission("led", colour, power * 60)
    for i in range(f["leds"]):
        a = 2 * math.pi * i / f["leds"]
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.07, segments=10, ring_count=6,
                                             location=(at.x + radius * math.cos(a), at.y + radius * math.sin(a),
                                                       height))
        bpy.context.active_object.data.materials.append(led)


def add_room(rnd: random.Random, f: dict) -> None:
    """What the camera sees through the plate around the dice: a ceiling with lamps, and what hangs over."""
    world = bpy.data.worlds.new("room")
    bpy.context.scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = bd.hsv(rnd.random(), rnd.uniform(0, 0.3), 1.0)
    bg.inputs["Strength"].default_value = {"dim": 0.02, "lamp": 0.1, "bright": 0.5, "window": 1.0}[f["room"]]
    ceiling = diffuse("ceiling", bd.hsv(rnd.random(), rnd.uniform(0, 0.2), rnd.uniform(0.4, 0.95)))
    bpy.ops.mesh.primitive_plane_add(size=200, location=(0, 0, rnd.uniform(25, 45)))
    bpy.context.active_object.data.materials.append(ceiling)
    if f["room"] != "dim":
        for _ in range(rnd.randint(1, 3)):
            lamp = emission("lamp", bd.hsv(rnd.uniform(0.05, 0.15), rnd.uniform(0, 0.3), 1.0),
                            rnd.uniform(3, 25) * (2 if f["room"] == "window" else 1))
            bpy.ops.mesh.primitive_plane_add(size=rnd.uniform(2, 10),
                                             location=(rnd.uniform(-12, 12), rnd.uniform(-12, 12),
                                                       rnd.uniform(15, 24)))
            bpy.context.active_object.data.materials.append(lamp)
    if f["over"] != "nothing":
        add_over(rnd, f["over"])


def add_over(rnd: random.Random, what: str) -> None:
    """A sleeve, a hand or a phone over part of the tray, seen from below through the plate."""
    colour = {"sleeve": bd.hsv(rnd.random(), rnd.uniform(0.2, 0.9), rnd.uniform(0.1, 0.8)),
              "hand": bd.hsv(rnd.uniform(0.03, 0.09), rnd.uniform(0.25, 0.6), rnd.uniform(0.35, 0.9)),
              "phone": (0.01, 0.01, 0.012, 1)}[what]
    size = {"sleeve": (8, 3, 2), "hand": (4, 2.5, 0.8), "phone": (3.5, 7, 0.3)}[what]
    bpy.ops.mesh.primitive_cube_add(size=1, location=(rnd.uniform(-8, 8), rnd.uniform(-8, 8), rnd.uniform(4, 14)))
    ob = bpy.context.active_object
    ob.scale = size
    ob.rotation_euler = Euler((0, 0, rnd.uniform(0, math.pi)), "XYZ")
    ob.data.materials.append(diffuse(what, colour, roughness=0.6))


def make_set(rnd: random.Random, colour: str, f: dict) -> tuple[bpy.types.Object, str, str]:
    """One dice set: a die of a named colour, its body material kind, drilled or painted pips."""
    body_hsv, pip_hsv = NAMED_COLOURS[colour]
    body = bd.body_material(rnd, bd.hsv(*body_hsv))
    kind = body.name.split("-")[1].split(".")[0]
    if f["build"] == "cross_polarised":  # the crossed filter removes the dice's mirror-like highlights too
        body.node_tree.nodes["Principled BSDF"].inputs["Specular"].default_value = 0.0
    pips = bd.pip_material(rnd, bd.hsv(*pip_hsv))
    die = bd.make_die(rnd, body, pips)
    return die, kind, colour


def place(rnd: random.Random, f: dict) -> list[tuple[float, float, float, bool]]:
    """(x, y, turn, touching) per die: apart, or some side by side touching a neighbour (same turn)."""
    spots: list[tuple[float, float, float, bool]] = []
    reach = 1.1 * SIDE * math.sqrt(f["count"]) + 1
    while len(spots) < f["count"]:
        if f["touching"] and spots and rnd.random() < 0.5:
            x, y, turn, _ = rnd.choice(spots)
            a = turn + rnd.choice([0, math.pi / 2, math.pi, 3 * math.pi / 2])
            gap = SIDE * rnd.uniform(1.0, 1.04)
            p = (x + gap * math.cos(a), y + gap * math.sin(a), turn, True)
            if all(math.dist(p[:2], q[:2]) > SIDE * 0.99 for q in spots):
                spots.append(p)
            continue
        p = (rnd.uniform(-reach, reach), rnd.uniform(-reach, reach), rnd.uniform(0, 2 * math.pi), False)
        if all(math.dist(p[:2], q[:2]) > SIDE * 1.6 for q in spots):
            spots.append(p)
    return spots


def add_dice(rnd: random.Random, f: dict, scene: bpy.types.Scene) -> list[dict]:
    colours = rnd.sample(list(NAMED_COLOURS), rnd.choice([1, 1, 2, 3]))
    sets = [make_set(rnd, c, f) for c in colours]
    dice = []
    spots = place(rnd, f)
    tilted_one = f["tilted"] and len(spots) > 1
    for i, (x, y, turn, touching) in enumerate(spots):
        proto, kind, colour = rnd.choice(sets)
        ob = proto.copy()
        scene.collection.objects.link(ob)
        top = rnd.randint(1, 6)
        ax, ay = bd.FACE_UP[top]
        ob.rotation_euler = Euler((ax, ay, 0), "XYZ")
        ob.rotation_euler.rotate(Euler((0, 0, turn), "XYZ"))
        ob.location = (x, y, SIDE / 2 + 0.002)
        tilted = tilted_one and i == len(spots) - 1
        if tilted:  # leaning on a neighbour: raised on one edge
            ob.rotation_euler.rotate(Euler((rnd.uniform(0.2, 0.45), 0, 0), "XYZ"))
            ob.location = (x, y, SIDE / 2 + 0.45)
        dice.append({"ob": ob, "top": top, "glass": 7 - top, "material": kind, "colour": colour,
                     "touching": touching, "tilted": tilted})
    for proto, _kind, _colour in sets:
        proto.hide_render = True
        proto.location = (0, 0, 80)
    return dice


def setup_render(rnd: random.Random, scene: bpy.types.Scene, samples: int) -> None:
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = False  # Debian's Blender 3.4 has no OpenImageDenoise: more samples instead
    scene.cycles.seed = rnd.randint(0, 2 ** 30)
    scene.cycles.max_bounces = 8
    scene.cycles.transmission_bounces = 8
    scene.cycles.glossy_bounces = 4
    scene.render.threads_mode = "FIXED"
    scene.render.threads = 1
    scene.render.resolution_x, scene.render.resolution_y = WIDTH, HEIGHT
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_depth = "8"
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.exposure = rnd.uniform(-0.5, 0.8)


def render_scene(rnd: random.Random, index: int, out: Path, samples: int) -> dict:
    bd.clear_scene()
    scene = bpy.context.scene
    f = draw_factors(rnd)
    add_plate(rnd, f)
    cam = add_box_and_camera(rnd, f, scene)
    add_room(rnd, f)
    dice = add_dice(rnd, f, scene)
    setup_render(rnd, scene, samples)
    bpy.context.view_layer.update()
    bd.WIDTH, bd.HEIGHT = WIDTH, HEIGHT  # the projection helpers read the frame size from their module
    labels = []
    for d in dice:
        box = bd.box_of(scene, cam, d["ob"])
        if box is not None:
            labels.append({"top": d["top"], "glass": d["glass"], "box": [round(v, 2) for v in box],
                           **{k: d[k] for k in ("material", "colour", "touching", "tilted")}})
    cut = sum(bd.cut_by_frame(scene, cam, d["ob"]) for d in dice)
    name = f"scene_{index:05d}"
    scene.render.filepath = str(out / f"{name}.png")
    bpy.ops.render.render(write_still=True)
    for d in dice:
        d["ob"].hide_render = True
    scene.render.filepath = str(out / f"{name}_empty.png")
    bpy.ops.render.render(write_still=True)
    return {"image": f"{name}.png", "empty": f"{name}_empty.png", "factors": f, "dice": labels, "cut": cut}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--scenes", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=24)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(args.seed)
    t0 = time.time()
    with open(args.out / "labels.jsonl", "w", encoding="utf-8") as f:
        for i in range(args.scenes):
            f.write(json.dumps(render_scene(rnd, i, args.out.resolve(), args.samples)) + "\n")
            f.flush()
            print(f"scene {i + 1}/{args.scenes} ({time.time() - t0:.0f} s)", flush=True)
    (args.out / "done").write_text(json.dumps({"scenes": args.scenes, "seed": args.seed, "samples": args.samples,
                                               "blender": bpy.app.version_string,
                                               "script_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest()}),
                               encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []))

"""Pip dice rendered by Blender (Cycles, on the CPU), for training the pip classifier on dice sets it never saw.

Run inside Blender, not in the package's Python (bpy exists only there; Debian: `apt-get install blender`):

    blender -b --factory-startup -noaudio -P training/blender_dice.py -- --out build/blender-dice/s1 --frames 100 --seed 1

`training/blender_canvases.py` starts this for you and turns its frames into canvases.

Why a path tracer when `cubes.py` already draws dice in perspective: what the flat drawings leave out is what
real photos of unseen dice sets show and the classifier gets wrong (docs/dice-sets.md, known limits): pips
that are holes, whose walls shade and catch the light while the face around them does not; bevelled edges
that blur where a face ends; translucent and glossy bodies that carry the room and the floor in them; soft
shadows and light that falls across several touching dice at once. Each frame is a few dice resting flat on
a random floor (wood, felt, a plain table), of one or two dice sets (plain, marbled, speckled or translucent
bodies; pips painted light on dark, dark on light (white dice most of all), or of a hue close to the body's),
lit by a random sun, lamp and sky, seen from straight above to 75 degrees off the vertical (oblique views most
often), at a focal length and distance that make the dice 25-90 px across in a 480x360 frame. Every die's box
(the box of its projected mesh, as the photos' labels box a die) and its face-up value go to `labels.jsonl`,
with the camera's tilt off the vertical.

Reproducible from `--seed`: every random draw comes from one seeded `random.Random`, and Cycles' own sampling
seed is set from it (same Blender, same machine, the same pixels). A folder's `done` names this file's digest:
another version of the script draws other dice from the same seed.
"""

from __future__ import annotations

import argparse
import colorsys
import hashlib
import json
import math
import random
import sys
import time
from pathlib import Path

import bpy  # noqa: I001 (Blender's own module: this file runs only inside Blender)
from bpy_extras.object_utils import world_to_camera_view
from mathutils import Euler, Vector

WIDTH, HEIGHT = 480, 360
SIDE = 2.0   # a die's side in scene units (Blender's default cube)

# the face whose outward normal is each axis, and its value: opposite faces sum to 7
FACE_VALUE = {(0, 0, 1): 1, (0, 0, -1): 6, (1, 0, 0): 2, (-1, 0, 0): 5, (0, 1, 0): 3, (0, -1, 0): 4}
# pip offsets on a face in units of the pip spread, along the face's two in-plane axes
LAYOUT = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
          4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
          6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}
# the turn that brings each value's face up (X/Y Euler angles)
FACE_UP = {1: (0, 0), 6: (math.pi, 0), 2: (0, -math.pi / 2), 5: (0, math.pi / 2), 3: (math.pi / 2, 0),
           4: (-math.pi / 2, 0)}


def hsv(h: float, s: float, v: float) -> tuple[float, float, float, float]:
    """A linear RGBA colour from hue, saturation, value (Blender's colour inputs are linear)."""
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, s, v)
    return (r ** 2.2, g ** 2.2, b ** 2.2, 1.0)


def dice_colours(rnd: random.Random) -> tuple[tuple, tuple]:
    """(body, pips): white or ivory dice with dark pips, light pips on a dark body, dark pips on a light body,
    or pips of a hue close to the body's (the mix roboflow-d6's photos show, white dice most of all)."""
    kind = rnd.choices(["white", "light-on-dark", "dark-on-light", "hue"], [0.3, 0.35, 0.15, 0.2])[0]
    h = rnd.random()
    if kind == "white":   # white or ivory with black pips, now and then red or blue ones
        body = hsv(rnd.uniform(0.08, 0.15), rnd.uniform(0, 0.15), rnd.uniform(0.85, 1.0))
        pip = hsv(0, 0, rnd.uniform(0.0, 0.1)) if rnd.random() < 0.8 else \
            hsv(rnd.choice([0.0, 0.62]), rnd.uniform(0.7, 1.0), rnd.uniform(0.4, 0.8))
    elif kind == "light-on-dark":
        body = hsv(h, rnd.uniform(0.3, 1.0), rnd.uniform(0.05, 0.55))
        pip = hsv(rnd.random(), rnd.uniform(0, 0.4), rnd.uniform(0.8, 1.0)) if rnd.random() < 0.7 else \
            hsv(rnd.choice([0.12, 0.15, 0.0]), rnd.uniform(0.5, 0.9), rnd.uniform(0.7, 1.0))
    elif kind == "dark-on-light":
        body = hsv(h, rnd.uniform(0, 0.5), rnd.uniform(0.75, 1.0))
        pip = hsv(rnd.random(), rnd.uniform(0.6, 1.0), rnd.uniform(0.3, 0.7)) if rnd.random() < 0.3 else \
            hsv(0, 0, rnd.uniform(0.0, 0.12))
    else:
        body = hsv(h, rnd.uniform(0.6, 1.0), rnd.uniform(0.3, 0.7))
        pip = hsv(h + rnd.uniform(-0.15, 0.15), rnd.uniform(0.5, 1.0), rnd.uniform(0.6, 1.0))
    return body, pip


def principled(name: str) -> tuple[bpy.types.Material, bpy.types.Node]:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    return mat, bsdf


def body_material(rnd: random.Random, colour: tuple) -> bpy.types.Material:
    """Plain, marbled (two colours swirled by noise), speckled (flecks of another colour) or translucent."""
    kind = rnd.choices(["plain", "marbled", "speckled", "translucent"], [0.45, 0.2, 0.15, 0.2])[0]
    mat, bsdf = principled(f"body-{kind}")
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf.inputs["Roughness"].default_value = rnd.uniform(0.05, 0.6)
    bsdf.inputs["Base Color"].default_value = colour
    if kind in ("marbled", "speckled"):
        tex = nodes.new("ShaderNodeTexNoise")
        tex.inputs["Scale"].default_value = rnd.uniform(1.5, 4.0) if kind == "marbled" else rnd.uniform(25, 60)
        tex.inputs["Detail"].default_value = rnd.uniform(2, 8)
        tex.inputs["Distortion"].default_value = rnd.uniform(0.5, 4.0) if kind == "marbled" else 0.0
        ramp = nodes.new("ShaderNodeValToRGB")
        other = hsv(rnd.random(), rnd.uniform(0, 1), rnd.uniform(0.1, 1.0))
        ramp.color_ramp.elements[0].color = colour
        ramp.color_ramp.elements[1].color = other
        if kind == "speckled":
            ramp.color_ramp.elements[0].position = 0.62
            ramp.color_ramp.elements[1].position = 0.64
            ramp.color_ramp.interpolation = "CONSTANT"
        else:
            ramp.color_ramp.elements[0].position = rnd.uniform(0.3, 0.45)
            ramp.color_ramp.elements[1].position = rnd.uniform(0.55, 0.75)
        links.new(tex.outputs["Fac"], ramp.inputs["Fac"])
        links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    if kind == "translucent":
        bsdf.inputs["Transmission"].default_value = rnd.uniform(0.6, 1.0)
        bsdf.inputs["Roughness"].default_value = rnd.uniform(0.0, 0.3)
        bsdf.inputs["IOR"].default_value = 1.5
    return mat


def pip_material(rnd: random.Random, colour: tuple) -> bpy.types.Material:
    mat, bsdf = principled("pips")
    bsdf.inputs["Base Color"].default_value = colour
    bsdf.inputs["Roughness"].default_value = rnd.uniform(0.3, 0.9)
    if rnd.random() < 0.1:   # gold or silver paint
        bsdf.inputs["Metallic"].default_value = rnd.uniform(0.6, 1.0)
    return mat


def make_die(rnd: random.Random, body: bpy.types.Material, pips: bpy.types.Material) -> bpy.types.Object:
    """A die mesh with its bevel and its pips cut in (boolean difference with spheres that carry the pip
    material into the holes), applied, so the copies of this die share one mesh. A cut that failed (no mesh
    left, or no pip faces: the label would lie) is made again with other draws."""
    for _ in range(5):
        die = _cut_die(rnd, body, pips)
        pip_faces = sum(1 for poly in die.data.polygons if poly.material_index == 1)
        if len(die.data.vertices) > 8 and pip_faces >= 21:
            return die
        bpy.data.objects.remove(die, do_unlink=True)
    raise RuntimeError("Blender's boolean did not cut the pips in five tries")


def _cut_die(rnd: random.Random, body: bpy.types.Material, pips: bpy.types.Material) -> bpy.types.Object:
    bpy.ops.mesh.primitive_cube_add(size=SIDE, location=(0, 0, 0))
    die = bpy.context.active_object
    die.data.materials.append(body)
    spread = rnd.uniform(0.27, 0.32) * SIDE        # pip centres from the face centre, per layout step
    r = rnd.uniform(0.10, 0.16) * SIDE             # pip radius on the face
    depth = rnd.uniform(0.25, 0.6)                 # how deep the cut is, in radii
    cutters = []
    for normal, value in FACE_VALUE.items():
        n = Vector(normal)
        u = Vector((normal[1], normal[2], normal[0])) if normal[0] == 0 else Vector((0, 1, 0))
        v = n.cross(u)
        for a, b in LAYOUT[value]:
            rr = r * rnd.uniform(1.0, 1.5) if value == 1 else r   # a 1's pip is often larger
            # a sphere of radius R whose cap cuts a circle of radius rr to depth d: R = (rr^2 + d^2) / 2d
            d = depth * rr
            R = (rr * rr + d * d) / (2 * d)
            centre = n * (SIDE / 2 + R - d) + u * (a * spread) + v * (b * spread)
            bpy.ops.mesh.primitive_uv_sphere_add(radius=R, location=centre, segments=24, ring_count=12)
            cutters.append(bpy.context.active_object)
    bpy.ops.object.select_all(action="DESELECT")
    for c in cutters:
        c.select_set(True)
    bpy.context.view_layer.objects.active = cutters[0]
    bpy.ops.object.join()
    cutter = bpy.context.active_object
    cutter.data.materials.append(pips)
    bevel = die.modifiers.new("bevel", "BEVEL")
    bevel.width = rnd.uniform(0.08, 0.4) * SIDE / 2
    bevel.segments = 3
    boolean = die.modifiers.new("pips", "BOOLEAN")
    boolean.operation = "DIFFERENCE"
    boolean.solver = "EXACT"
    boolean.use_self = True   # neighbouring pips' spheres may meet
    boolean.object = cutter
    if hasattr(boolean, "material_mode"):
        boolean.material_mode = "TRANSFER"
    bpy.context.view_layer.objects.active = die
    for m in list(die.modifiers):
        bpy.ops.object.modifier_apply(modifier=m.name)
    bpy.data.objects.remove(cutter, do_unlink=True)
    # smooth shading on the bevels, flat faces kept flat (Blender 3.x: the mesh's auto smooth)
    die.data.use_auto_smooth = True
    die.data.auto_smooth_angle = math.radians(40)
    bpy.ops.object.shade_smooth()
    return die


def floor_material(rnd: random.Random) -> bpy.types.Material:
    """Wood (wave bands), felt or a mat (fine noise), or a plain table, of any colour."""
    kind = rnd.choice(["wood", "felt", "plain", "plain"])
    mat, bsdf = principled(f"floor-{kind}")
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    base = hsv(rnd.random(), rnd.uniform(0, 0.8), rnd.uniform(0.05, 0.95))
    bsdf.inputs["Base Color"].default_value = base
    bsdf.inputs["Roughness"].default_value = rnd.uniform(0.2, 1.0)
    if kind != "plain":
        tex = nodes.new("ShaderNodeTexWave") if kind == "wood" else nodes.new("ShaderNodeTexNoise")
        tex.inputs["Scale"].default_value = rnd.uniform(0.05, 0.3) if kind == "wood" else rnd.uniform(5, 40)
        ramp = nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].color = base
        ramp.color_ramp.elements[1].color = tuple(min(1.0, c * rnd.uniform(0.4, 1.6)) for c in base[:3]) + (1.0,)
        links.new(tex.outputs["Fac"], ramp.inputs["Fac"])
        links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


def clear_scene() -> None:
    for ob in list(bpy.data.objects):
        bpy.data.objects.remove(ob, do_unlink=True)
    for coll in (bpy.data.meshes, bpy.data.materials, bpy.data.lights, bpy.data.cameras, bpy.data.worlds):
        for block in list(coll):
            coll.remove(block)


def place_dice(rnd: random.Random, count: int) -> list[tuple[float, float]]:
    """Centres on the floor at least a die's diagonal apart, in a cluster (touching now and then)."""
    spots: list[tuple[float, float]] = []
    reach = 1.2 * SIDE * math.sqrt(count)
    while len(spots) < count:
        p = (rnd.uniform(-reach, reach), rnd.uniform(-reach, reach))
        if all(math.dist(p, q) > SIDE * 1.5 for q in spots):
            spots.append(p)
    return spots


def extent(scene: bpy.types.Scene, cam: bpy.types.Object, ob: bpy.types.Object) -> list[float] | None:
    """The die's mesh projected into the frame: (x0, y0, x1, y1) in pixels, which may reach past the frame's
    edges; None when part of it lies behind the camera."""
    mw = ob.matrix_world
    xs, ys = [], []
    if not ob.data.vertices:
        return None
    for vert in ob.data.vertices:
        p = world_to_camera_view(scene, cam, mw @ vert.co)
        if p.z <= 0:
            return None
        xs.append(p.x * WIDTH)
        ys.append((1 - p.y) * HEIGHT)
    return [min(xs), min(ys), max(xs), max(ys)]


def box_of(scene: bpy.types.Scene, cam: bpy.types.Object, ob: bpy.types.Object) -> list[float] | None:
    """The die's box (cx, cy, w, h in pixels) when the whole die lies in the frame, else None."""
    e = extent(scene, cam, ob)
    if e is None:
        return None
    x0, y0, x1, y1 = e
    if x0 < 0 or y0 < 0 or x1 > WIDTH or y1 > HEIGHT:
        return None
    return [(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0]


def cut_by_frame(scene: bpy.types.Scene, cam: bpy.types.Object, ob: bpy.types.Object) -> bool:
    """Whether part of the die shows in the frame and part lies beyond its edge (such a die has no label)."""
    e = extent(scene, cam, ob)
    if e is None:
        return False
    x0, y0, x1, y1 = e
    inside = x0 >= 0 and y0 >= 0 and x1 <= WIDTH and y1 <= HEIGHT
    apart = x1 <= 0 or y1 <= 0 or x0 >= WIDTH or y0 >= HEIGHT
    return not inside and not apart


def render_frame(rnd: random.Random, index: int, out: Path, samples: int) -> dict:
    clear_scene()
    scene = bpy.context.scene
    # the floor
    bpy.ops.mesh.primitive_plane_add(size=200, location=(0, 0, 0))
    bpy.context.active_object.data.materials.append(floor_material(rnd))
    # one or two dice sets in the frame
    sets = []
    for _ in range(rnd.choice([1, 1, 2])):
        body, pip = dice_colours(rnd)
        sets.append(make_die(rnd, body_material(rnd, body), pip_material(rnd, pip)))
    count = rnd.choice([1, 2, 3, 4, 5, 6, 7, 8])
    dice = []
    for (x, y) in place_dice(rnd, count):
        proto = rnd.choice(sets)
        ob = proto.copy()   # shares the mesh
        scene.collection.objects.link(ob)
        value = rnd.randint(1, 6)
        ax, ay = FACE_UP[value]
        ob.rotation_euler = Euler((ax, ay, 0), "XYZ")
        ob.rotation_euler.rotate(Euler((0, 0, rnd.uniform(0, 2 * math.pi)), "XYZ"))
        ob.location = (x, y, SIDE / 2)
        dice.append((ob, value))
    for proto in sets:
        proto.hide_render = True
        proto.location = (0, 0, -50)
    # the light: a sun and sometimes a lamp, and a sky of some colour
    world = bpy.data.worlds.new("sky")
    scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = hsv(rnd.random(), rnd.uniform(0, 0.3), 1.0)
    bg.inputs["Strength"].default_value = rnd.uniform(0.2, 1.5)
    sun = bpy.data.lights.new("sun", "SUN")
    sun.energy = rnd.uniform(0.5, 5.0)
    sun.angle = rnd.uniform(0.01, 0.5)
    sun.color = hsv(rnd.uniform(0.05, 0.15), rnd.uniform(0, 0.3), 1.0)[:3]
    sob = bpy.data.objects.new("sun", sun)
    sob.rotation_euler = Euler((rnd.uniform(0, 1.2), 0, rnd.uniform(0, 2 * math.pi)), "XYZ")
    scene.collection.objects.link(sob)
    if rnd.random() < 0.5:
        lamp = bpy.data.lights.new("lamp", "AREA")
        lamp.energy = rnd.uniform(200, 3000)
        lamp.size = rnd.uniform(1, 10)
        lob = bpy.data.objects.new("lamp", lamp)
        lob.location = (rnd.uniform(-15, 15), rnd.uniform(-15, 15), rnd.uniform(8, 25))
        lob.rotation_euler = (Vector((0, 0, 0)) - lob.location).to_track_quat("-Z", "Y").to_euler()
        scene.collection.objects.link(lob)
    # the camera: from straight above to 75 degrees off, at a distance that sets the dice's size
    cam_data = bpy.data.cameras.new("cam")
    cam_data.lens = rnd.uniform(28, 60)
    cam = bpy.data.objects.new("cam", cam_data)
    scene.collection.objects.link(cam)
    scene.camera = cam
    tilt = math.radians(75 * math.sqrt(rnd.random()))   # oblique views most often, as phones see dice
    az = rnd.uniform(0, 2 * math.pi)
    die_px = rnd.uniform(25, 90)
    # pixels per unit at distance d: WIDTH * lens / (sensor * d)
    dist = WIDTH * cam_data.lens / (cam_data.sensor_width * die_px / SIDE)
    target = Vector((rnd.uniform(-1, 1), rnd.uniform(-1, 1), 0))
    cam.location = target + Vector((math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az),
                                    math.cos(tilt))) * dist
    cam.rotation_euler = (target - cam.location).to_track_quat("-Z", "Y").to_euler()
    if tilt < math.radians(15):   # seen from nearly straight above, the frame may be turned any way
        cam.rotation_euler.rotate_axis("Z", rnd.uniform(-math.pi, math.pi))
    # render
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = False
    scene.cycles.seed = rnd.randint(0, 2 ** 30)
    scene.cycles.max_bounces = 6
    scene.cycles.transmission_bounces = 6
    scene.render.threads_mode = "FIXED"
    scene.render.threads = 1
    scene.render.resolution_x, scene.render.resolution_y = WIDTH, HEIGHT
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_depth = "8"
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.exposure = rnd.uniform(-0.7, 0.7)
    bpy.context.view_layer.update()
    labels = []
    for ob, value in dice:
        box = box_of(scene, cam, ob)
        if box is not None:
            labels.append({"value": value, "box": [round(v, 2) for v in box]})
    cut = sum(cut_by_frame(scene, cam, ob) for ob, _ in dice)
    name = f"frame_{index:05d}.png"
    scene.render.filepath = str(out / name)
    bpy.ops.render.render(write_still=True)
    return {"image": name, "tilt": round(math.degrees(tilt), 1), "dice": labels, "cut": cut}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--frames", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=16)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(args.seed)
    t0 = time.time()
    with open(args.out / "labels.jsonl", "w", encoding="utf-8") as f:
        for i in range(args.frames):
            f.write(json.dumps(render_frame(rnd, i, args.out.resolve(), args.samples)) + "\n")
            f.flush()
            if i % 20 == 0:
                print(f"frame {i}/{args.frames} ({time.time() - t0:.0f} s)", flush=True)
    (args.out / "done").write_text(json.dumps({"frames": args.frames, "seed": args.seed, "samples": args.samples,
                                               "blender": bpy.app.version_string,
                                               "script_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest()}),
                               encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []))

"""The box's own view: dice on a clear plate, seen from UNDER it by a camera in an LED ring (Blender Cycles).

Run inside Blender (bpy exists only there; Debian: `apt-get install blender`):

    blender -b --factory-startup -noaudio -P training/blender_undertray.py -- --out build/blender-undertray/s1 \
        --frames 20 --seed 1

`training/blender_undertray_canvases.py` starts this for you (`make blender-undertray`) and adds the camera's
faults (noise, blur, white balance, JPEG) to the clean renders.

Why: the reader's under-tray frames came from `vision/render.py`, which draws a sharp face on a dark room;
physically rendered under-tray photos showed what it leaves out (issue 31): the LED ring and the camera board
mirrored in both surfaces of the plate, the room above seen through it, dice touching and leaning. Every draw
is made by `training/blender_undertray_factors.py` (plain Python, tested without Blender); this file only
builds the scene they describe. Each frame is rendered twice: with the dice, and the same scene empty
(`empty_*.png`, for the room the watcher learns). Cross-polarised light is approximated: the plate gets no
reflection at all (a Transparent BSDF in place of glass) and the dice no specular lobe (Specular 0, clearcoat
0), as a crossed polariser removes the specular (polarisation-keeping) part and keeps the diffuse part.

Speed: cutting pips is the costly step (blender_dice's one exact boolean of 21 whole spheres: 10-25 s a die).
Here a folder's dice take their meshes from a pool of POOL geometries per pip style, each cut once per Blender
process (three booleans of spherical caps, well under a second) and shared by linked copies that carry their
own materials in object-linked slots; the two Cycles renders are what a frame costs now.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import itertools
import json
import math
import random
import sys
import time
import zlib
from pathlib import Path

import bmesh  # noqa: I001 (Blender's own modules: this file runs only inside Blender)
import bpy
from mathutils import Euler, Vector

HERE = Path(__file__).resolve().parent


def _load(name: str):
    """A sibling module by path: Blender's Python has not the package installed (nor numpy for training/)."""
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


bd = _load("blender_dice")
fx = _load("blender_undertray_factors")
WIDTH, HEIGHT = 320, 240             # at scale 1 (fx.frame_scale: Dice Throne seeds render at 2)
bd.WIDTH, bd.HEIGHT = WIDTH, HEIGHT   # box_of projects into this frame
MM = 2.0 / 16.0                       # scene units per millimetre: a die's side (2 units) is 16 mm
SENSOR_MM = fx.SENSOR_MM


def emission(name: str, colour: tuple, strength: float) -> bpy.types.Material:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    nodes.remove(nodes["Principled BSDF"])
    em = nodes.new("ShaderNodeEmission")
    em.inputs["Color"].default_value = (*colour[:3], 1.0)
    em.inputs["Strength"].default_value = strength
    mat.node_tree.links.new(em.outputs["Emission"], nodes["Material Output"].inputs["Surface"])
    return mat


def matte(name: str, colour: tuple, roughness: float = 0.9, specular: float = 0.5) -> bpy.types.Material:
    mat, bsdf = bd.principled(name)
    bsdf.inputs["Base Color"].default_value = (*colour[:3], 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Specular"].default_value = specular
    return mat


def plate_material(f, crossed: bool) -> bpy.types.Material:
    """Acrylic or glass, smudged now and then (rougher patches); crossed polarisers: no reflection at all."""
    mat = bpy.data.materials.new("plate")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    nodes.remove(nodes["Principled BSDF"])
    out = nodes["Material Output"].inputs["Surface"]
    if crossed:
        tr = nodes.new("ShaderNodeBsdfTransparent")
        tr.inputs["Color"].default_value = (0.92, 0.92, 0.92, 1.0)
        links.new(tr.outputs["BSDF"], out)
        return mat
    glass = nodes.new("ShaderNodeBsdfGlass")
    glass.inputs["IOR"].default_value = 1.49 if f.plate.startswith("acrylic") else 1.52
    glass.inputs["Roughness"].default_value = 0.0
    if f.smudge:
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = 0.6
        ramp = nodes.new("ShaderNodeMapRange")
        ramp.inputs["From Min"].default_value = 0.55
        ramp.inputs["To Max"].default_value = 0.25
        links.new(noise.outputs["Fac"], ramp.inputs["Value"])
        links.new(ramp.outputs["Result"], glass.inputs["Roughness"])
    links.new(glass.outputs["BSDF"], out)
    return mat


def add_plate(f, crossed: bool) -> None:
    """The tray bottom, its top face at z=0; dust specks and scratches on its surfaces."""
    thick = float(f.plate.split("-")[1].rstrip("m")) * MM
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, -thick / 2))
    plate = bpy.context.active_object
    plate.scale = (80, 80, thick)
    plate.data.materials.append(plate_material(f, crossed))
    rnd = _rnd(f, 1)
    dust = matte("dust", (0.5, 0.48, 0.45))
    for _ in range(f.dust):
        bpy.ops.mesh.primitive_ico_sphere_add(radius=rnd.uniform(0.01, 0.04), subdivisions=1,
                                              location=(rnd.uniform(-7, 7), rnd.uniform(-5, 5),
                                                        rnd.choice([0.0, -thick])))
        bpy.context.active_object.data.materials.append(dust)
    scratch = matte("scratch", (0.8, 0.8, 0.8), 0.3)
    for _ in range(f.scratches):
        bpy.ops.mesh.primitive_cube_add(size=1, location=(rnd.uniform(-6, 6), rnd.uniform(-4, 4), -thick))
        ob = bpy.context.active_object
        ob.scale = (rnd.uniform(0.5, 4.0), 0.006, 0.004)
        ob.rotation_euler = (0, 0, rnd.uniform(0, math.pi))
        ob.data.materials.append(scratch)


def _rnd(f, salt: int) -> random.Random:
    """The generator of one of the box's things (dust, scratches, room, a dice body's look): a table's frames
    share them (`Frame.scene_index`)."""
    return random.Random(f.seed * 7_919 + f.scene_index * 31 + salt)


def _throw_rnd(f, salt: int) -> random.Random:
    """The generator of one of the throw's things (a die's lean, a table's hand): each frame its own."""
    return random.Random(f.seed * 7_919 + f.index * 31 + salt)


def add_ring_and_board(f) -> None:
    """The camera board (green PCB) behind the lens and the LED ring around it; a diffuser makes each LED a
    wide dim disc rather than a small bright dot."""
    z = -f.distance
    board = matte("board", (0.02, 0.12, 0.05), 0.4)
    bpy.ops.mesh.primitive_plane_add(size=3.5, location=(0, 0, z - 0.05))
    bpy.context.active_object.data.materials.append(board)
    diffused = "diffuser" in f.builds
    colour = fx.LED_COLOURS[f.led_colour]
    led = emission("led", colour, 150.0 if diffused else 3000.0)
    r = 0.6 if diffused else 0.2   # a 3 mm LED; behind a diffuser a 10 mm patch at 1/20 of the radiance
    for i in range(f.led_count):
        a = 2 * math.pi * i / f.led_count
        bpy.ops.mesh.primitive_uv_sphere_add(radius=r, segments=12, ring_count=6,
                                             location=(f.led_radius * math.cos(a), f.led_radius * math.sin(a), z))
        canonical_faces(bpy.context.active_object.data)
        bpy.context.active_object.data.materials.append(led)


def canonical_faces(mesh: bpy.types.Mesh) -> None:
    """Rebuild `mesh` with each face's loop starting at its lowest vertex, the faces in sorted order. Why:
    Blender 3.4's UV sphere operator starts a face's loop at another vertex from one process to the next, so a
    quad's diagonal moved (and with it, likely, the triangles Cycles samples an emitting mesh's light by), and
    a seed's frame came out with other grain in each process; rebuilt so, two processes render it alike to
    the bit (docs/dice-sets.md, "Fresh test renders")."""
    verts = [tuple(v.co) for v in mesh.vertices]
    faces = fx.canonical_loops([tuple(p.vertices) for p in mesh.polygons])
    mesh.clear_geometry()
    mesh.from_pydata(verts, [], faces)
    mesh.update()


def add_enclosure(f) -> None:
    """The box's walls from the board up to the plate: matte black (a build option) or light grey plastic."""
    black = "matte-enclosure" in f.builds
    mat = matte("walls", (0.01, 0.01, 0.01) if black else (0.6, 0.6, 0.58), 1.0 if black else 0.5,
                0.0 if black else 0.5)
    half, z0 = max(7.0, f.led_radius + 1.0), -f.distance - 0.2   # the LEDs lie inside the walls
    for x, y, sx, sy in ((half, 0, 0.1, half), (-half, 0, 0.1, half), (0, half, half, 0.1), (0, -half, half, 0.1)):
        bpy.ops.mesh.primitive_cube_add(size=2, location=(x, y, z0 / 2 - 0.01))
        ob = bpy.context.active_object
        ob.scale = (sx, sy, -z0 / 2)
        ob.data.materials.append(mat)


def add_room(f) -> None:
    """What the camera sees through the plate: a sky/ceiling colour, a lamp or window, now and then a hand."""
    rnd = _rnd(f, 2)
    world = bpy.data.worlds.new("room")
    bpy.context.scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    dark = f.room == "dark-room"
    bg.inputs["Color"].default_value = bd.hsv(rnd.uniform(0.05, 0.15), rnd.uniform(0, 0.3), 1.0)
    bg.inputs["Strength"].default_value = rnd.uniform(0.02, 0.1) if dark else rnd.uniform(0.2, 0.8)
    ceiling = matte("ceiling", bd.hsv(rnd.random(), rnd.uniform(0, 0.2), rnd.uniform(0.5, 0.95)))
    bpy.ops.mesh.primitive_plane_add(size=80, location=(0, 0, rnd.uniform(18, 30)))
    bpy.context.active_object.data.materials.append(ceiling)
    if not dark:
        lamp = emission("lamp", bd.hsv(rnd.uniform(0.07, 0.15), rnd.uniform(0, 0.4), 1.0), rnd.uniform(5, 40))
        size = 6.0 if f.room == "window" else rnd.uniform(0.8, 2.5)
        bpy.ops.mesh.primitive_plane_add(size=size, location=(rnd.uniform(-8, 8), rnd.uniform(-6, 6),
                                                              rnd.uniform(10, 17)))
        bpy.context.active_object.data.materials.append(lamp)
        bpy.ops.mesh.primitive_cylinder_add(radius=rnd.uniform(3, 6), depth=0.5,   # a table or shelf edge
                                            location=(rnd.uniform(-12, 12), rnd.uniform(-10, 10), rnd.uniform(6, 12)))
        bpy.context.active_object.data.materials.append(matte("furniture", bd.hsv(rnd.random(), 0.4, 0.3)))
    if f.hand:
        rnd = rnd if f.look is None else _throw_rnd(f, 3)   # a table's hands come and go, its room stays
        skin = matte("hand", bd.hsv(rnd.uniform(0.03, 0.08), rnd.uniform(0.3, 0.6), rnd.uniform(0.3, 0.9)), 0.6)
        bpy.ops.mesh.primitive_uv_sphere_add(radius=1, location=(rnd.uniform(-4, 4), rnd.uniform(-3, 3),
                                                                 rnd.uniform(3.5, 7)))
        ob = bpy.context.active_object
        canonical_faces(ob.data)
        ob.scale = (2.5, 1.2, 0.6)
        ob.rotation_euler = (0, 0, rnd.uniform(0, math.pi))
        ob.data.materials.append(skin)


def die_material(f, die, crossed: bool) -> bpy.types.Material:
    """The body: opaque, marbled, speckled, glossy or translucent (the far faces' pips show through)."""
    rnd = _rnd(f, 10 + zlib.crc32((die.colour + die.material).encode()) % 1000)
    h, s, v = fx.COLOURS[die.colour]
    colour = bd.hsv(h, s, v)
    kind = {"opaque": "plain", "glossy": "plain"}.get(die.material, die.material)
    mat = bd.body_material(_Forced(rnd, kind), colour)
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    if die.material == "glossy":
        bsdf.inputs["Roughness"].default_value = 0.03
        bsdf.inputs["Clearcoat"].default_value = 1.0
    if die.material == "opaque":
        bsdf.inputs["Roughness"].default_value = 0.5
    if crossed:
        bsdf.inputs["Specular"].default_value = 0.0
        bsdf.inputs["Clearcoat"].default_value = 0.0
    return mat


class _Forced:
    """A random source whose first `choices` answers `kind`: blender_dice.body_material picks the body kind
    that way, and here the factors have picked it already."""

    def __init__(self, rnd, kind: str):
        self._rnd, self._kind, self._used = rnd, kind, False

    def choices(self, seq, weights=None):
        if not self._used:
            self._used = True
            return [self._kind]
        return self._rnd.choices(seq, weights)

    def __getattr__(self, name):
        return getattr(self._rnd, name)


POOL = 6         # die geometries per pip style per seed folder
SEGMENTS, CAP_RINGS = 24, 4   # a pip's rim a 24-gon (round to a tenth of a pixel at 320x240), 4 rings deep
LIFT = 1e-3      # dice rest this far above the plate (8 um): no coincident faces for Cycles' rays
_POOL: dict[tuple[int, str, int], bpy.types.Mesh] = {}   # (seed, style, j): the meshes made so far


def pooled_mesh(seed: int, style: str, j: int) -> bpy.types.Mesh:
    """Geometry `j` of folder `seed` for `style` (painted or drilled pips, or a symbol die's plain body): made
    once per Blender process and shared by every die that draws it. Its own seeded generator, not a frame's:
    a frame rendered alone gets the same mesh."""
    key = (seed, style, j)
    if key not in _POOL:
        rnd = random.Random(f"undertray-die-{seed}-{style}-{j}")
        _POOL[key] = (symbol_body(rnd) if style == "symbol" else symbol_body(rnd, DT_NORMAL) if style == "dicethrone"
                      else pip_body(rnd, style == "painted"))
        _POOL[key].use_fake_user = True   # kept across frames: clear_scene leaves the pool alone
    return _POOL[key]


def pip_body(rnd: random.Random, painted: bool) -> bpy.types.Mesh:
    """A die with its pips cut; a failed cut (no pip faces: the label would lie) is made again with other draws."""
    for _ in range(5):
        mesh = cut_die(rnd, painted)
        if len(mesh.vertices) > 8 and sum(p.material_index == 1 for p in mesh.polygons) >= 21:
            return mesh
        bpy.data.meshes.remove(mesh)
    raise RuntimeError("Blender's boolean did not cut the pips in five tries")


# a King of Tokyo die's faces (indices of fx.KOT_FACES) on the cube's axes: opposite as fx.KOT_OPPOSITE
KOT_NORMAL = {1: (0, 0, 1), 5: (0, 0, -1), 2: (1, 0, 0), 6: (-1, 0, 0), 3: (0, 1, 0), 4: (0, -1, 0)}
# a Dice Throne die's faces (the corner numbers) on the cube's axes: opposite faces sum to 7 (fx.OPPOSITE)
DT_NORMAL = {1: (0, 0, 1), 6: (0, 0, -1), 2: (1, 0, 0), 5: (-1, 0, 0), 3: (0, 1, 0), 4: (0, -1, 0)}


def face_axes(normal: tuple[int, int, int]) -> tuple[Vector, Vector, Vector]:
    """A face's outward normal n and its in-plane axes u, v with u x v = n: seen from outside the die, u points
    right and v up (blender_dice's pip layout uses the same axes)."""
    n = Vector(normal)
    u = Vector((normal[1], normal[2], normal[0])) if normal[0] == 0 else Vector((0, 1, 0))
    return n, u, n.cross(u)


def symbol_body(rnd: random.Random, normals: dict | None = None) -> bpy.types.Mesh:
    """A bevelled cube whose faces carry UVs into the cells of a printing's atlas (blender_undertray_glyphs):
    face index i in column (i-1) % 3, row (i-1) // 3 from the image's top, upright and unmirrored seen from
    outside the die. The ink is painted flat on the face (the material mixes it in), as a printed die's is.
    `normals`: which face index lies on which axis (King of Tokyo's KOT_NORMAL unless told)."""
    normals = normals or KOT_NORMAL
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=bd.SIDE)
    bm.normal_update()
    uv = bm.loops.layers.uv.new("UVMap")
    for face in bm.faces:
        normal = tuple(round(c) for c in face.normal)
        index = next(i for i, nv in normals.items() if nv == normal)
        n, u, v = face_axes(normal)
        col, row = (index - 1) % 3, (index - 1) // 3
        for loop in face.loops:
            a, b = loop.vert.co.dot(u) / bd.SIDE + 0.5, loop.vert.co.dot(v) / bd.SIDE + 0.5
            loop[uv].uv = ((col + a) / 3, (1 - row + b) / 2)
    mesh = bpy.data.meshes.new("symbol-die")
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(_slot_material("pool-body"))
    die = bpy.data.objects.new("symbol-die", mesh)
    bpy.context.scene.collection.objects.link(die)
    bevel = die.modifiers.new("bevel", "BEVEL")
    bevel.width, bevel.segments = rnd.uniform(0.08, 0.3) * bd.SIDE / 2, 3
    bpy.context.view_layer.objects.active = die
    bpy.ops.object.modifier_apply(modifier=bevel.name)
    mesh.use_auto_smooth = True
    mesh.auto_smooth_angle = math.radians(40)
    for poly in mesh.polygons:
        poly.use_smooth = True
    bpy.data.objects.remove(die, do_unlink=True)
    return mesh


def symbol_material(f, die, crossed: bool, atlas: Path) -> bpy.types.Material:
    """The body as die_material makes it, with the printing's ink mixed into its colour through the atlas."""
    mat = die_material(f, die, crossed)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = bpy.data.images.load(str(atlas / f"{fx.atlas_name(die)}.png"), check_existing=True)
    tex.image.colorspace_settings.name = "Non-Color"
    mix = nodes.new("ShaderNodeMixRGB")
    base = bsdf.inputs["Base Color"]
    if base.is_linked:
        links.new(base.links[0].from_socket, mix.inputs["Color1"])
    else:
        mix.inputs["Color1"].default_value = base.default_value
    printings = fx.DT_PRINTINGS if die.set.startswith("dicethrone:") else fx.PRINTINGS
    mix.inputs["Color2"].default_value = bd.hsv(*printings[die.printing].ink)
    links.new(tex.outputs["Color"], mix.inputs["Fac"])
    links.new(mix.outputs["Color"], base)
    return mat


Pip = tuple[Vector, float, float, Vector]   # disc centre on the face, radius, depth, outward normal


def draw_pips(rnd: random.Random, painted: bool) -> tuple[float, list[list[Pip]]]:
    """The bevel width and the pips, per axis (+-x, +-y, +-z). Pips as blender_dice draws them (spread
    0.27-0.32, radius 0.10-0.16 of the side, a 1 up to 1.5 times larger; drilled 0.25-0.6 radii deep, painted
    0.05-0.1, near flush), but never wider than 0.46 of the spread, as on real dice: the pips of one face never
    meet, so no two cuts of one axis share a point inside the die."""
    spread = rnd.uniform(0.27, 0.32) * bd.SIDE
    r = min(rnd.uniform(0.10, 0.16) * bd.SIDE, 0.46 * spread)
    depth = rnd.uniform(0.05, 0.1) if painted else rnd.uniform(0.25, 0.6)
    bevel = rnd.uniform(0.08, 0.4) * bd.SIDE / 2
    axes: list[list[Pip]] = [[], [], []]
    for normal, value in bd.FACE_VALUE.items():
        n, u, v = face_axes(normal)
        for a, b in bd.LAYOUT[value]:
            rr = r * rnd.uniform(1.0, 1.5) if value == 1 else r
            centre = n * (bd.SIDE / 2) + u * (a * spread) + v * (b * spread)
            axes[[abs(c) for c in normal].index(1)].append((centre, rr, depth * rr, n))
    return bevel, axes


def cut_die(rnd: random.Random, painted: bool) -> bpy.types.Mesh:
    """A bevelled die with its pips cut (exact boolean; the cutter's faces carry the pip material into the
    holes). One boolean per axis without self-intersection: 20-40 times faster than blender_dice's one cut of
    21 whole spheres with it, and as exact, since the cutters of one axis never meet inside the die."""
    bevel_width, axes = draw_pips(rnd, painted)
    body, pips = _slot_material("pool-body"), _slot_material("pool-pips")
    bpy.ops.mesh.primitive_cube_add(size=bd.SIDE, location=(0, 0, 0))
    die = bpy.context.active_object
    die.data.materials.append(body)
    bevel = die.modifiers.new("bevel", "BEVEL")
    bevel.width, bevel.segments = bevel_width, 3
    for k, axis in enumerate(axes):
        cutter = cap_cutters(axis, pips)
        boolean = die.modifiers.new(f"pips-{k}", "BOOLEAN")
        boolean.operation, boolean.solver, boolean.use_self = "DIFFERENCE", "EXACT", False
        boolean.object = cutter
        if hasattr(boolean, "material_mode"):
            boolean.material_mode = "TRANSFER"
        bpy.context.view_layer.objects.active = die
        for m in list(die.modifiers):
            bpy.ops.object.modifier_apply(modifier=m.name)
        spent = cutter.data
        bpy.data.objects.remove(cutter, do_unlink=True)
        bpy.data.meshes.remove(spent)
    die.data.use_auto_smooth = True   # smooth bevels and pip walls, flat faces kept flat
    die.data.auto_smooth_angle = math.radians(40)
    for poly in die.data.polygons:
        poly.use_smooth = True
    mesh = die.data
    bpy.data.objects.remove(die, do_unlink=True)
    return mesh


def cap_cutters(axis: list[Pip], pips: bpy.types.Material) -> bpy.types.Object:
    """One closed solid per pip, as one object carrying the pip material: the spherical cap that cuts a disc of
    the pip's radius to its depth, its rim ring a little above the face, a straight wall up from it and a lid.
    Built ring by ring rather than as a UV sphere so that the rim lands where the pip's edge is: a flat facet
    of a coarse sphere meets the face well inside the sphere's circle (a painted pip's cap spans 6-11 degrees
    of its sphere, less than one ring of a 12-ring UV sphere)."""
    bm = bmesh.new()
    for centre, rr, d, n in axis:
        big = (rr * rr + d * d) / (2 * d)   # the sphere whose cap cuts a disc of radius rr to depth d
        rim = math.acos((big - d) / big)    # the rim's angle from the cap's deepest point
        u = n.orthogonal().normalized()
        v = n.cross(u)
        sphere = centre + n * (big - d)
        pole = bm.verts.new(sphere - n * big)
        rings = []
        for i in range(1, CAP_RINGS + 1):
            t = rim * (1.08 if i == CAP_RINGS else i / (CAP_RINGS - 0.5))   # the last ring just past the rim
            rings.append([bm.verts.new(sphere + (u * math.cos(a) + v * math.sin(a)) * big * math.sin(t)
                                       - n * big * math.cos(t))
                          for a in (2 * math.pi * s / SEGMENTS for s in range(SEGMENTS))])
        rings.append([bm.verts.new(p + n * (0.1 + n.dot(centre - p))) for p in (x.co for x in rings[-1])])
        for s in range(SEGMENTS):
            s1 = (s + 1) % SEGMENTS
            bm.faces.new((pole, rings[0][s1], rings[0][s]))
            for lo, hi in itertools.pairwise(rings):
                bm.faces.new((lo[s], lo[s1], hi[s1], hi[s]))
        bm.faces.new(rings[-1])
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
    mesh = bpy.data.meshes.new("pip-cutter")
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(pips)
    cutter = bpy.data.objects.new("pip-cutter", mesh)
    bpy.context.scene.collection.objects.link(cutter)
    return cutter


def _slot_material(name: str) -> bpy.types.Material:
    """A pooled mesh's placeholder material (kept across frames); each die links its own to the object."""
    mat = bpy.data.materials.get(name) or bpy.data.materials.new(name)
    mat.use_fake_user = True
    return mat


def clear_scene() -> None:
    """blender_dice.clear_scene, but the pooled meshes and their placeholder materials stay."""
    for ob in list(bpy.data.objects):
        bpy.data.objects.remove(ob, do_unlink=True)
    pooled = set(_POOL.values())
    for mesh in list(bpy.data.meshes):
        if mesh not in pooled:
            bpy.data.meshes.remove(mesh)
    for mat in list(bpy.data.materials):
        if not mat.use_fake_user:
            bpy.data.materials.remove(mat)
    for coll in (bpy.data.lights, bpy.data.cameras, bpy.data.worlds):
        for block in list(coll):
            coll.remove(block)


def pip_colour(f, die) -> tuple:
    """Dark pips on a white die, light ones on a black, blue or purple die (no real die hides its pips in its
    own colour); on the other colours the frame's pip_dark draw decides."""
    dark = die.colour == "white" or (f.pip_dark and die.colour not in ("black", "blue", "purple"))
    return bd.hsv(0, 0, 0.03) if dark else bd.hsv(0.1, 0.1, 0.95)


def add_dice(f, crossed: bool, atlas: Path) -> list:
    """Each die of the frame: a linked copy of a pooled mesh (pips drilled deep, or painted: cut so shallow they
    are flush; or a symbol die's body) with its own materials in object-linked slots, resting on the glass face
    down, or leaning 15-25 degrees against its neighbour. Dice of one colour and material in a frame share a
    geometry, as a set does."""
    obs = []
    for k, die in enumerate(f.dice):
        rnd = _throw_rnd(f, 100 + k)
        kind = zlib.crc32((die.colour + die.material).encode()) % 1000
        j = _rnd(f, 20 + kind).randrange(POOL)
        if die.set == "d6":   # a table's dice keep their pips' paint from throw to throw
            paint = rnd if f.look is None else _rnd(f, 1_100 + kind)
            mats = (die_material(f, die, crossed), bd.pip_material(paint, pip_colour(f, die)))
            ob = bpy.data.objects.new(f"die-{k}", pooled_mesh(f.seed, f.pips, j))
            ax, ay = bd.FACE_UP[die.top]
        else:   # a symbol die: the turn that brings its top face's axis up
            dt = die.set.startswith("dicethrone:")
            mats = (symbol_material(f, die, crossed, atlas),)
            ob = bpy.data.objects.new(f"die-{k}", pooled_mesh(f.seed, "dicethrone" if dt else "symbol", j))
            ax, ay = bd.FACE_UP[bd.FACE_VALUE[(DT_NORMAL if dt else KOT_NORMAL)[die.top]]]
        bpy.context.scene.collection.objects.link(ob)
        for slot, mat in zip(ob.material_slots, mats, strict=True):
            slot.link = "OBJECT"
            slot.material = mat
        ob.rotation_euler = Euler((ax, ay, 0), "XYZ")
        ob.rotation_euler.rotate(Euler((0, 0, die.turn), "XYZ"))
        z = bd.SIDE / 2
        if die.tilted:
            t = math.radians(rnd.uniform(15, 25))
            ob.rotation_euler.rotate(Euler((t, 0, 0), "XYZ"))
            z = bd.SIDE / 2 * (math.cos(t) + math.sin(t))
        ob.location = (die.x, die.y, z + LIFT)
        obs.append(ob)
    return obs


def add_camera(f) -> bpy.types.Object:
    cam_data = bpy.data.cameras.new("cam")
    cam_data.lens = f.lens_mm
    cam_data.sensor_width = SENSOR_MM
    cam_data.clip_start = 0.05
    cam = bpy.data.objects.new("cam", cam_data)
    bpy.context.scene.collection.objects.link(cam)
    cam.location = (0, 0, -f.distance + 0.1)
    cam.rotation_euler = (math.pi, 0, 0)   # looking straight up
    bpy.context.scene.camera = cam
    return cam


def settings(f, samples: int) -> None:
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = True
    try:
        scene.cycles.denoiser = "OPENIMAGEDENOISE"
    except TypeError:
        scene.cycles.use_denoising = False
    scene.cycles.seed = f.seed * 1000 + f.index
    scene.cycles.max_bounces = 6
    scene.cycles.transmission_bounces = 6
    scene.cycles.caustics_reflective = False
    scene.cycles.blur_glossy = 1.0
    scene.cycles.sample_clamp_indirect = 3.0   # fireflies: the denoiser may be missing from the build
    scene.render.threads_mode = "FIXED"
    scene.render.threads = 1
    scene.render.resolution_x, scene.render.resolution_y = WIDTH, HEIGHT
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_depth = "8"
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.exposure = f.exposure


def set_scale(scale: int) -> None:
    """Render frames `scale` times 320x240 (same lens and scene, more pixels a die). Why: a Dice Throne face
    is told from its neighbours by a corner number a fifth of the face high, unreadable on a 50 px die with
    the render's grain; the box's own camera gives 1296x972, four times the side."""
    global WIDTH, HEIGHT
    WIDTH, HEIGHT = 320 * scale, 240 * scale
    bd.WIDTH, bd.HEIGHT = WIDTH, HEIGHT


def render_frame(seed: int, index: int, out: Path, samples: int) -> dict:
    """Both pictures of one frame (dice, then the same scene empty) and its labels row."""
    f = fx.draw_frame(seed, index)
    clear_scene()
    crossed = "cross-polarised" in f.builds
    add_plate(f, crossed)
    add_ring_and_board(f)
    add_enclosure(f)
    add_room(f)
    dice = add_dice(f, crossed, out / "atlas")
    cam = add_camera(f)
    settings(f, samples)
    scene = bpy.context.scene
    bpy.context.view_layer.update()
    boxes = [bd.box_of(scene, cam, ob) for ob in dice]
    name, empty = f"frame_{index:05d}.png", f"empty_{index:05d}.png"
    scene.render.filepath = str(out / name)
    bpy.ops.render.render(write_still=True)
    for ob in dice:
        ob.hide_render = True
    scene.cycles.seed += 7919   # the empty tray has its own noise
    scene.render.filepath = str(out / empty)
    bpy.ops.render.render(write_still=True)
    return fx.label_row(f, name, boxes, empty) | {"size": [WIDTH, HEIGHT]}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--scale", type=int, default=0, help="frames this many times 320x240 (default: by seed, "
                    "`frame_scale`); e.g. 3 for the Pi camera's pixels a die, into a folder of its own")
    args = ap.parse_args(argv)
    scale = args.scale or fx.frame_scale(args.seed)
    set_scale(scale)
    args.out.mkdir(parents=True, exist_ok=True)
    if fx.seed_kind(args.seed) not in ("d6", "table") and not (args.out / "atlas").is_dir():
        raise SystemExit(f"{args.out}/atlas is missing: symbol seeds ({fx.SYMBOL_SEEDS}-"
                         f"{fx.MORE_D6_SEEDS - 1}) are rendered through "
                         "training/blender_undertray_canvases.py, which draws the printings' atlases first")
    t0 = time.time()
    done = {r["index"] for r in fx.read_rows(args.out)}   # resumable: a killed job keeps its frames
    with open(args.out / "labels.jsonl", "a", encoding="utf-8") as fh:
        for i in range(args.frames):
            if i in done:
                continue
            fh.write(json.dumps(render_frame(args.seed, i, args.out.resolve(), args.samples)) + "\n")
            fh.flush()
            print(f"frame {i}/{args.frames} ({time.time() - t0:.0f} s)", flush=True)
    (args.out / "done").write_text(json.dumps({"frames": args.frames, "seed": args.seed, "samples": args.samples,
                                               "scale": scale, "blender": bpy.app.version_string,
                                               "script_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest()}),
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []))

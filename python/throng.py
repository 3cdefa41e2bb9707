# SPDX-License-Identifier: MIT
"""throng from Python: a ctypes binding of libthrong.so.

One module, standard library only. NumPy is used when it is installed (the
column views are then NumPy arrays); without it the same views are
memoryviews of C floats.

    import throng

    with throng.World(dimensions=2, boundary="periodic", box=(50, 50)) as w:
        flock = w.create_group(name="flock", combine="priority",
                               flocking=dict(separation_weight=1.5,
                                             alignment_weight=1.0,
                                             cohesion_weight=1.0))
        a = w.add_agent(position=(10, 10), velocity=(0.5, 0), group=flock)
        w.step(1 / 30)
        c = w.columns()            # zero-copy views of the C columns;
        print(c.px[:c.count])      # a later step updates them in place

Shape of the binding:

- The ctypes mirrors of the header's structs carry the C names
  (throng_world_def, throng_agent_def, throng_behaviour, ...); every C
  function is declared with argtypes and restype on `throng.lib`.
- World owns one throng_world*. close() (or leaving a `with` block)
  destroys it; __del__ does the same for a world that was never closed.
  Agent, Group and WorldObject are small handles that keep their world
  alive; after close() any call through them raises ValueError. A handle
  given to another world's method raises StaleHandleError.
- The world's memory comes from the binding's allocator, in blocks that
  Python owns; a column view holds the block it reads, so no view ever
  reads freed memory: not after close(), not after a growth, not after a
  step (while views exist, steps keep the columns in place). Columns
  says what a view shows after each kind of call.
- Every refused call raises ThrongError, or rather its subclass for the
  status (NotFiniteError, OutOfRangeError, StaleHandleError, ...), whose
  message is throng_world_last_error's sentence and whose .status is the
  C status code. Values that cannot even be converted for C (a negative
  host key, a 2-vector in a 3D world, a flow field of the wrong length)
  raise the same classes from Python, before any C call.
- A world serialises calls into it with a lock (ctypes releases the GIL
  during a call, and the C world refuses a call that overlaps a write
  with THRONG_ERR_BUSY), so the error message read after a refused call
  is always that call's.

Finding the library: the environment variable THRONG_LIBRARY (a path to the
.so) when set; else throng.libs/libthrong.so.0.6 beside this file (an
installed package carries the library it was built with there); else
../build/libthrong.so relative to this file (the repository's default
build); else the system's libthrong.so.0.6 (the soname of the ABI this
binding mirrors) or libthrong.so (ctypes.util.find_library). The path in
use is `throng.library_path`.
"""

import ctypes
import ctypes.util
import dataclasses
import enum
import os
import struct
import threading
import weakref
from collections import namedtuple

try:
    import numpy as _np
except ImportError:  # the binding works without NumPy: memoryviews
    _np = None

__all__ = [
    "World", "Agent", "Group", "WorldObject", "Columns", "StepStats",
    "ThrongError", "NullError", "NotFiniteError", "OutOfRangeError",
    "StaleHandleError", "UnknownGroupError", "DuplicateKeyError",
    "NotFoundError", "OutOfMemoryError", "CapacityError",
    "BadSnapshotError", "VersionError", "IOError_", "UnsupportedError",
    "BusyError", "InvalidArgError", "TaskPool", "TaskPoolError",
    "ObjectKind", "ObstacleDef", "WallDef", "PathDef", "FlowFieldDef",
    "NavFieldDef", "NavField", "NavGoalKind", "NavSample", "NavArrival",
    "simd_from_name", "flocking_default",
    "StaleColumnsError", "Status", "Boundary", "SeparationMode",
    "CombineMode", "BehaviourKind", "TargetSource", "ArriveRamp",
    "AvoidanceMode", "Simd",
    "Recorder", "Recording", "read_recording", "recorder_supported",
    "version", "status_string", "simd_best", "simd_supported",
    "have_numpy", "lib", "library_path",
]

have_numpy = _np is not None

# The header this binding mirrors: 0.6.x (structs as of that version).
_ABI_MAJOR = 0
_ABI_MIN_MINOR = 6

# ------------------------------------------------------------------------
# Enums (names as in throng.h without the prefix; values are the C ones)
# ------------------------------------------------------------------------


class Status(enum.IntEnum):
    OK = 0
    ERR_NULL = 1
    ERR_NOT_FINITE = 2
    ERR_OUT_OF_RANGE = 3
    ERR_STALE_HANDLE = 4
    ERR_UNKNOWN_GROUP = 5
    ERR_DUPLICATE_KEY = 6
    ERR_NOT_FOUND = 7
    ERR_OUT_OF_MEMORY = 8
    ERR_CAPACITY = 9
    # Snapshot statuses (throng.h's snapshot section).
    ERR_BAD_SNAPSHOT = 10
    ERR_VERSION = 11
    ERR_IO = 12
    # A SIMD path (World(simd=...)) this CPU or build lacks.
    ERR_UNSUPPORTED = 13
    # Another call on the same world was running (a second thread, or a
    # callback of the running call).
    ERR_BUSY = 14
    # A field the call would not read was set (a behaviour field its kind
    # or mode does not read, left away from its default).
    ERR_INVALID_ARG = 15
    # A library built with VALIDATE=1 found a broken internal invariant
    # during a step (the message names it).
    ERR_INTERNAL = 16


class Boundary(enum.IntEnum):
    UNBOUNDED = 0
    PERIODIC = 1


class ObjectKind(enum.IntEnum):
    """What a static object is (throng_object_kind)."""
    SPHERE = 1
    BOX = 2
    SEGMENT = 3
    PLANE = 4
    PATH = 5
    FLOW = 6
    NAV = 7


class NavGoalKind(enum.IntEnum):
    """What a navigation field's goal is (throng_nav_goal_kind)."""
    POINT = 1
    SEGMENT = 2
    BOX = 3


class Simd(enum.IntEnum):
    """The kernels' instruction set (throng_simd). AUTO: the widest this
    CPU and the library's build offer."""
    AUTO = 0
    SCALAR = 1
    SSE2 = 2
    AVX2 = 3
    AVX512 = 4
    NEON = 5
    WASM = 6


# The behaviour schema's enums and structs, generated from
# src/behaviour_schema.h (make schema): SeparationMode, TargetSource,
# ArriveRamp, AvoidanceMode, BehaviourKind, throng_flocking, throng_wander,
# throng_avoidance, the behaviour parameter structs and throng_behaviour.
from throng_schema import (  # noqa: E402
    ArriveRamp, AvoidanceMode, BehaviourKind, SeparationMode, TargetSource,
    throng_avoid_params, throng_avoidance, throng_behaviour,
    throng_contain_params, throng_layers, throng_motion,
    throng_flocking, throng_flow_params, throng_leader_params,
    throng_nav_params,
    throng_object, throng_path_params, throng_pursue_params,
    throng_seek_params, throng_unaligned_params, throng_wander,
    throng_wander_circle_params)
import throng_schema as _schema  # noqa: E402


class CombineMode(enum.IntEnum):
    WEIGHTED_AVERAGE = 0
    WEIGHTED_SUM = 1
    PRIORITY = 2


MAX_AGENTS = 1 << 28
MAX_GROUPS = 4096
MAX_BEHAVIOURS = 16
MAX_OBJECTS = 1 << 24
MAX_PATH_POINTS = 1 << 20
MAX_FLOW_CELLS = 1 << 26
MAX_NAV_CELLS = 1 << 26
MAX_NAV_GOALS = 4096
MAX_NAV_REGIONS = 4096
NAV_MIN_COST = 0.01
NAV_MAX_COST = 1000.0
MAX_GRID_CELLS = 1 << 24
MAX_WORKERS = 1024
MAX_NEIGHBOUR_CAP = 1024
MIN_LENGTH = 1e-9
MAX_LENGTH = 1e9
SNAPSHOT_VERSION = _schema.SNAPSHOT_VERSION

# ------------------------------------------------------------------------
# ctypes mirrors of the public structs, field for field
# ------------------------------------------------------------------------

c_float3 = _schema.c_float3  # one class, so vectors pass between both
c_uint32_3 = ctypes.c_uint32 * 3
_c_enum = _schema._c_enum  # C enums here are int-sized (values 0..15)


class throng_allocator(ctypes.Structure):
    # Every World fills it with the binding's allocator (see _Heap): the
    # world's memory is made of blocks that Python owns.
    _fields_ = [("alloc", ctypes.c_void_p), ("free", ctypes.c_void_p),
                ("user", ctypes.c_void_p)]


class throng_world_def(ctypes.Structure):
    _fields_ = [("dimensions", ctypes.c_int), ("boundary", _c_enum),
                ("box_size", c_float3), ("neighbour_radius", ctypes.c_float),
                ("cell_size", ctypes.c_float), ("threads", ctypes.c_int),
                ("seed", ctypes.c_uint64),
                ("initial_capacity", ctypes.c_uint32),
                ("allocator", throng_allocator),
                ("max_dt", ctypes.c_float),
                ("max_substeps", ctypes.c_uint32),
                ("simd", _c_enum),
                # The host's task hooks: a TaskPool's (World(task_pool=)),
                # else NULL (steps run on OpenMP threads).
                ("enqueue_task", ctypes.c_void_p),
                ("finish_task", ctypes.c_void_p),
                ("task_context", ctypes.c_void_p),
                ("worker_count", ctypes.c_uint32),
                # Where a refused creation writes its sentence.
                ("error", ctypes.c_char_p),
                ("error_capacity", ctypes.c_size_t)]


class throng_step_stats(ctypes.Structure):
    _fields_ = [("step", ctypes.c_uint64), ("agents", ctypes.c_uint32),
                ("threads", ctypes.c_uint32),
                ("grid_seconds", ctypes.c_double),
                ("behaviour_seconds", ctypes.c_double),
                ("integrate_seconds", ctypes.c_double),
                ("total_seconds", ctypes.c_double),
                ("candidates", ctypes.c_uint64),
                ("neighbours", ctypes.c_uint64),
                ("cells_occupied", ctypes.c_uint32),
                ("simd", ctypes.c_char_p),
                ("ticks", ctypes.c_uint32),
                ("simulated_seconds", ctypes.c_double)]


class throng_agent(ctypes.Structure):
    _fields_ = [("slot", ctypes.c_uint32), ("generation", ctypes.c_uint32),
                ("world", ctypes.c_uint64)]


class throng_group(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint32), ("generation", ctypes.c_uint32),
                ("world", ctypes.c_uint64)]


class throng_agent_def(ctypes.Structure):
    _fields_ = [("position", c_float3), ("velocity", c_float3),
                ("mass", ctypes.c_float), ("max_force", ctypes.c_float),
                ("max_speed", ctypes.c_float), ("radius", ctypes.c_float),
                ("group", throng_group), ("host_key", ctypes.c_uint64)]


class throng_agent_state(ctypes.Structure):
    """An agent's whole state, as throng_agent_export writes it."""
    _fields_ = [("position", c_float3), ("velocity", c_float3),
                ("forward", c_float3), ("up", c_float3),
                ("mass", ctypes.c_float), ("max_force", ctypes.c_float),
                ("max_speed", ctypes.c_float), ("radius", ctypes.c_float),
                ("wander_rate", ctypes.c_float), ("wander", c_float3),
                ("target_point", c_float3),
                ("group_id", ctypes.c_uint32),
                ("group_generation", ctypes.c_uint32),
                ("progress", ctypes.c_uint32),
                ("behaviour_state", ctypes.c_uint32),
                ("host_key", ctypes.c_uint64),
                ("target_key", ctypes.c_uint64),
                ("nav_field_id", ctypes.c_uint32),
                ("nav_field_generation", ctypes.c_uint32),
                ("nav_arrived", ctypes.c_uint32),
                ("nav_goal", ctypes.c_uint32),
                ("nav_arrived_id", ctypes.c_uint32),
                ("nav_arrived_generation", ctypes.c_uint32)]


_c_float_p = ctypes.POINTER(ctypes.c_float)
_c_u32_p = ctypes.POINTER(ctypes.c_uint32)


class throng_columns(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint32)] + [
        (name, _c_float_p)
        for name in ("px", "py", "pz", "vx", "vy", "vz", "fx", "fy", "fz",
                     "ux", "uy", "uz")] + [
        ("group", ctypes.POINTER(ctypes.c_uint32)),
        ("host_key", ctypes.POINTER(ctypes.c_uint64))]


class throng_group_def(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("flocking", throng_flocking),
                ("wander", throng_wander), ("combine", _c_enum),
                ("avoidance", throng_avoidance), ("motion", throng_motion),
                ("layers", throng_layers)]


class throng_flow_field_def(ctypes.Structure):
    _fields_ = [("origin", c_float3), ("cell_size", ctypes.c_float),
                ("size", c_uint32_3), ("vectors", _c_float_p)]


class throng_obstacle_def(ctypes.Structure):
    _fields_ = [("kind", _c_enum), ("center", c_float3),
                ("radius", ctypes.c_float), ("min", c_float3),
                ("max", c_float3)]


class throng_wall_def(ctypes.Structure):
    _fields_ = [("kind", _c_enum), ("a", c_float3), ("b", c_float3),
                ("point", c_float3), ("normal", c_float3)]


class throng_path_def(ctypes.Structure):
    _fields_ = [("points", _c_float_p), ("point_count", ctypes.c_uint32),
                ("radius", ctypes.c_float), ("closed", ctypes.c_bool)]


class throng_object_info(ctypes.Structure):
    _fields_ = [("kind", _c_enum), ("a", c_float3), ("b", c_float3),
                ("radius", ctypes.c_float),
                ("point_count", ctypes.c_uint32), ("points", _c_float_p),
                ("closed", ctypes.c_bool), ("cell_size", ctypes.c_float),
                ("size", c_uint32_3), ("vectors", _c_float_p)]


class throng_nav_goal(ctypes.Structure):
    _fields_ = [("kind", _c_enum), ("a", c_float3), ("b", c_float3)]


class throng_nav_region(ctypes.Structure):
    _fields_ = [("min", c_float3), ("max", c_float3),
                ("cost", ctypes.c_float)]


class throng_nav_field_def(ctypes.Structure):
    _fields_ = [("origin", c_float3), ("cell_size", ctypes.c_float),
                ("size", c_uint32_3),
                ("goals", ctypes.POINTER(throng_nav_goal)),
                ("goal_count", ctypes.c_uint32),
                ("clearance", ctypes.c_float), ("costs", _c_float_p),
                ("regions", ctypes.POINTER(throng_nav_region)),
                ("region_count", ctypes.c_uint32),
                ("density_interval", ctypes.c_uint32),
                ("density_radius", ctypes.c_float),
                ("density_cost", ctypes.c_float)]


class throng_nav_sample(ctypes.Structure):
    _fields_ = [("direction", c_float3), ("distance", ctypes.c_float),
                ("density", ctypes.c_float), ("inside", ctypes.c_bool),
                ("at_goal", ctypes.c_bool)]


class throng_nav_field_info(ctypes.Structure):
    # "def" as C names it (a keyword in Python: getattr(info, "def")).
    _fields_ = [("def", throng_nav_field_def), ("cells", ctypes.c_uint64),
                ("solid_cells", ctypes.c_uint64),
                ("margin_cells", ctypes.c_uint64),
                ("reached_cells", ctypes.c_uint64),
                ("builds", ctypes.c_uint64),
                ("last_cells", ctypes.c_uint64),
                ("last_full", ctypes.c_bool),
                ("last_seconds", ctypes.c_double),
                ("last_rounds", ctypes.c_uint32),
                ("last_tiles", ctypes.c_uint32)]


class throng_agent_nav(ctypes.Structure):
    _fields_ = [("field", throng_object), ("arrived", ctypes.c_bool),
                ("goal", ctypes.c_uint32), ("arrived_field", throng_object)]


class throng_nav_arrival(ctypes.Structure):
    _fields_ = [("agent", throng_agent), ("field", throng_object),
                ("goal", ctypes.c_uint32), ("removed", ctypes.c_bool),
                ("position", c_float3), ("host_key", ctypes.c_uint64)]


class throng_world_load_def(ctypes.Structure):
    _fields_ = [("allocator", throng_allocator),
                ("error", ctypes.c_char_p),
                ("error_capacity", ctypes.c_size_t)]


class throng_recorder_def(ctypes.Structure):
    _fields_ = [("every", ctypes.c_uint32), ("fps", ctypes.c_double),
                ("queue_frames", ctypes.c_uint32),
                ("wait_when_full", ctypes.c_bool),
                ("replace", ctypes.c_bool),
                ("area_min", ctypes.c_float * 2),
                ("area_max", ctypes.c_float * 2),
                ("allocator", throng_allocator)]


class throng_record_stats(ctypes.Structure):
    _fields_ = [("calls", ctypes.c_uint64),
                ("frames_queued", ctypes.c_uint64),
                ("frames_committed", ctypes.c_uint64),
                ("frames_dropped", ctypes.c_uint64),
                ("last_committed_frame", ctypes.c_int64),
                ("rows_committed", ctypes.c_uint64),
                ("frames_waiting", ctypes.c_uint32),
                ("commits", ctypes.c_uint32),
                ("copy_seconds", ctypes.c_double),
                ("wait_seconds", ctypes.c_double),
                ("write_seconds", ctypes.c_double),
                ("bytes", ctypes.c_size_t)]


# ------------------------------------------------------------------------
# Loading the library and declaring every function
# ------------------------------------------------------------------------


def _candidates():
    env = os.environ.get("THRONG_LIBRARY")
    if env:
        # An explicit choice is the only candidate: a wrong path is an
        # error, not a reason to load some other copy silently.
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    # The soname: libthrong.so.0.MINOR while 0.x, libthrong.so.MAJOR after.
    soname = "libthrong.so.%d" % _ABI_MAJOR
    if _ABI_MAJOR == 0:
        soname += ".%d" % _ABI_MIN_MINOR
    out = []
    # An installed package (pip install; setup.py) carries the library it
    # was built with in throng.libs/ beside this file, under its soname.
    packaged = os.path.join(here, "throng.libs")
    if os.path.isdir(packaged):
        out.append(os.path.join(packaged, soname))
    out.append(os.path.join(here, os.pardir, "build", "libthrong.so"))
    found = ctypes.util.find_library("throng")
    if found:
        out.append(found)
    out += [soname, "libthrong.so"]
    return out


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append("%s (no such file)" % path)
            continue
        try:
            return ctypes.CDLL(path), os.path.normpath(path) \
                if os.sep in path else path
        except OSError as exc:
            tried.append("%s (%s)" % (path, exc))
    raise OSError("throng: cannot load libthrong.so; set THRONG_LIBRARY to "
                  "its path or run `make lib`. Tried: " + "; ".join(tried))


lib, library_path = _load()

_w = ctypes.c_void_p  # throng_world *
_st = ctypes.c_int    # throng_status
_P = ctypes.POINTER
_u32, _u64, _f = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_float

_SIGNATURES = {
    "throng_version": (ctypes.c_char_p, []),
    "throng_status_string": (ctypes.c_char_p, [_st]),
    "throng_simd_name": (ctypes.c_char_p, [_c_enum]),
    "throng_simd_from_name": (_st, [ctypes.c_char_p, _P(_c_enum)]),
    "throng_simd_supported": (ctypes.c_int, [_c_enum]),
    "throng_simd_best": (_c_enum, []),
    "throng_world_def_default": (throng_world_def, []),
    "throng_world_create": (_st, [_P(throng_world_def), _P(_w)]),
    "throng_world_destroy": (None, [_w]),
    "throng_world_last_error": (ctypes.c_char_p, [_w]),
    "throng_world_agent_count": (_u32, [_w]),
    "throng_world_id": (_u64, [_w]),
    "throng_world_dimensions": (ctypes.c_int, [_w]),
    "throng_world_step": (_st, [_w, _f]),
    "throng_world_step_count": (_u64, [_w]),
    "throng_world_tick_begin": (_st, [_w, _f, _P(_u32)]),
    "throng_world_tick_contact": (_st, [_w, _P(_u32), _P(ctypes.c_bool)]),
    "throng_world_tick_set_positions": (_st, [_w, _u32, _P(throng_agent),
                                              _P(_f)]),
    "throng_world_tick_finish": (_st, [_w]),
    "throng_world_set_threads": (_st, [_w, ctypes.c_int]),
    "throng_world_set_stable_columns": (_st, [_w, ctypes.c_bool]),
    "throng_world_set_step_limits": (_st, [_w, ctypes.c_float,
                                           ctypes.c_uint32]),
    "throng_world_set_canonical_order": (_st, [_w, ctypes.c_bool]),
    "throng_world_canonical_order": (ctypes.c_bool, [_w]),
    "throng_world_set_neighbour_skin": (_st, [_w, ctypes.c_float]),
    "throng_world_neighbour_skin": (ctypes.c_float, [_w]),
    "throng_world_get_def": (_st, [_w, _P(throng_world_def)]),
    "throng_world_definition_hash": (_u64, [_w]),
    "throng_agent_export": (_st, [_w, throng_agent, _P(throng_agent_state)]),
    "throng_agent_import": (_st, [_w, _P(throng_agent_state),
                                  _P(throng_agent)]),
    "throng_agents_import": (_st, [_w, _u32, _P(throng_agent_state),
                                   _P(throng_agent)]),
    "throng_agents_remove": (_st, [_w, _u32, _P(throng_agent)]),
    "throng_world_bytes": (ctypes.c_size_t, [_w]),
    "throng_world_hash": (_u64, [_w]),
    "throng_world_stats": (_st, [_w, _P(throng_step_stats)]),
    "throng_world_columns": (_st, [_w, _P(throng_columns)]),
    "throng_world_object_count": (_u32, [_w]),
    "throng_world_query_radius": (_st, [_w, c_float3, _f, _P(throng_agent),
                                        _u32, _P(_u32), _P(ctypes.c_bool)]),
    "throng_agent_def_default": (throng_agent_def, []),
    "throng_agent_add": (_st, [_w, _P(throng_agent_def), _P(throng_agent)]),
    "throng_agent_remove": (_st, [_w, throng_agent]),
    "throng_agent_valid": (ctypes.c_bool, [_w, throng_agent]),
    "throng_agent_find": (_st, [_w, _u64, _P(throng_agent)]),
    "throng_agent_index": (_st, [_w, throng_agent, _P(_u32)]),
    "throng_agent_at": (_st, [_w, _u32, _P(throng_agent)]),
    "throng_agent_get_def": (_st, [_w, throng_agent, _P(throng_agent_def)]),
    "throng_agent_get_basis": (_st, [_w, throng_agent, c_float3, c_float3,
                                     c_float3]),
    "throng_agent_set_target_agent": (_st, [_w, throng_agent, throng_agent]),
    "throng_agent_get_target_agent": (_st, [_w, throng_agent,
                                            _P(throng_agent)]),
    "throng_behaviour_default": (throng_behaviour, [_c_enum]),
    "throng_flocking_default": (throng_flocking, []),
    "throng_group_def_default": (throng_group_def, []),
    "throng_group_create": (_st, [_w, _P(throng_group_def),
                                  _P(throng_group)]),
    "throng_group_find": (_st, [_w, ctypes.c_char_p, _P(throng_group)]),
    "throng_world_default_group": (_st, [_w, _P(throng_group)]),
    "throng_group_valid": (ctypes.c_bool, [_w, throng_group]),
    "throng_group_remove": (_st, [_w, throng_group]),
    "throng_group_rebind": (_st, [_w, throng_group, _P(throng_group)]),
    "throng_group_get_flocking": (_st, [_w, throng_group,
                                        _P(throng_flocking)]),
    "throng_group_set_flocking": (_st, [_w, throng_group,
                                        _P(throng_flocking)]),
    "throng_group_set_combine": (_st, [_w, throng_group, _c_enum]),
    "throng_group_get_wander": (_st, [_w, throng_group, _P(throng_wander)]),
    "throng_group_set_wander": (_st, [_w, throng_group, _P(throng_wander)]),
    "throng_group_get_avoidance": (_st, [_w, throng_group,
                                         _P(throng_avoidance)]),
    "throng_group_set_avoidance": (_st, [_w, throng_group,
                                         _P(throng_avoidance)]),
    "throng_group_get_motion": (_st, [_w, throng_group, _P(throng_motion)]),
    "throng_group_set_motion": (_st, [_w, throng_group, _P(throng_motion)]),
    "throng_group_get_layers": (_st, [_w, throng_group, _P(throng_layers)]),
    "throng_group_set_layers": (_st, [_w, throng_group, _P(throng_layers)]),
    "throng_group_add_behaviour": (_st, [_w, throng_group,
                                         _P(throng_behaviour), _P(_u32)]),
    "throng_group_set_behaviour": (_st, [_w, throng_group, _u32,
                                         _P(throng_behaviour)]),
    "throng_group_get_behaviour": (_st, [_w, throng_group, _u32,
                                         _P(throng_behaviour)]),
    "throng_group_behaviour_count": (_st, [_w, throng_group, _P(_u32)]),
    "throng_group_clear_behaviours": (_st, [_w, throng_group]),
    "throng_obstacle_def_default": (throng_obstacle_def, []),
    "throng_obstacle_add": (_st, [_w, _P(throng_obstacle_def),
                                  _P(throng_object)]),
    "throng_wall_def_default": (throng_wall_def, []),
    "throng_wall_add": (_st, [_w, _P(throng_wall_def), _P(throng_object)]),
    "throng_path_def_default": (throng_path_def, []),
    "throng_path_add": (_st, [_w, _P(throng_path_def), _P(throng_object)]),
    "throng_flow_field_def_default": (throng_flow_field_def, []),
    "throng_flow_field_add": (_st, [_w, _P(throng_flow_field_def),
                                    _P(throng_object)]),
    "throng_nav_field_def_default": (throng_nav_field_def, []),
    "throng_nav_field_add": (_st, [_w, _P(throng_nav_field_def),
                                   _P(throng_object)]),
    "throng_nav_field_sample": (_st, [_w, throng_object, c_float3,
                                      _P(throng_nav_sample)]),
    "throng_nav_field_distances": (_st, [_w, throng_object, _c_float_p, _u64,
                                         _P(_u64)]),
    "throng_nav_field_get": (_st, [_w, throng_object,
                                   _P(throng_nav_field_info)]),
    "throng_nav_field_set_costs": (_st, [_w, throng_object, _c_float_p]),
    "throng_nav_field_update": (_st, [_w, throng_object]),
    "throng_nav_field_count_agents": (_st, [_w, throng_object, _c_u32_p, _u64,
                                            _P(_u64)]),
    "throng_nav_field_supply_counts": (_st, [_w, throng_object, _c_u32_p]),
    "throng_agent_set_nav_field": (_st, [_w, throng_agent, throng_object]),
    "throng_agent_get_nav": (_st, [_w, throng_agent, _P(throng_agent_nav)]),
    "throng_world_nav_arrivals": (_st, [_w, _P(throng_nav_arrival), _u32,
                                        _P(_u32), _P(ctypes.c_bool)]),
    "throng_object_remove": (_st, [_w, throng_object]),
    "throng_object_rebind": (_st, [_w, throng_object, _P(throng_object)]),
    "throng_object_get": (_st, [_w, throng_object, _P(throng_object_info)]),
    "throng_world_object_at": (_st, [_w, _u32, _P(throng_object)]),
    "throng_agent_rebind": (_st, [_w, throng_agent, _P(throng_agent)]),
    # Function pointers go as addresses (see TaskPool).
    "throng_world_set_task_hooks": (_st, [_w, ctypes.c_void_p,
                                          ctypes.c_void_p, ctypes.c_void_p,
                                          _u32]),
    "throng_world_snapshot_size": (_st, [_w, _P(ctypes.c_size_t)]),
    "throng_world_save": (_st, [_w, ctypes.c_void_p, ctypes.c_size_t,
                                _P(ctypes.c_size_t)]),
    "throng_world_save_file": (_st, [_w, ctypes.c_char_p]),
    "throng_world_load_def_default": (throng_world_load_def, []),
    "throng_world_load": (_st, [ctypes.c_void_p, ctypes.c_size_t,
                                _P(throng_world_load_def), _P(_w)]),
    "throng_world_load_file": (_st, [ctypes.c_char_p,
                                     _P(throng_world_load_def), _P(_w)]),
    # The recorder: a throng_recorder * is a void pointer here too.
    "throng_recorder_def_default": (throng_recorder_def, []),
    "throng_recorder_supported": (ctypes.c_bool, []),
    "throng_recorder_open": (_st, [_w, ctypes.c_char_p,
                                   _P(throng_recorder_def),
                                   _P(ctypes.c_void_p)]),
    "throng_recorder_record": (_st, [ctypes.c_void_p]),
    "throng_recorder_flush": (_st, [ctypes.c_void_p]),
    "throng_recorder_stats": (_st, [ctypes.c_void_p,
                                    _P(throng_record_stats)]),
    "throng_recorder_last_error": (ctypes.c_char_p, [ctypes.c_void_p]),
    "throng_recorder_close": (_st, [ctypes.c_void_p]),
}
# The per-agent getters and setters of one value: float[3], float, u32, u64.
for _name, _ctype in (("position", c_float3), ("velocity", c_float3),
                      ("target_point", c_float3), ("mass", _f),
                      ("max_force", _f), ("max_speed", _f), ("radius", _f),
                      ("group", throng_group), ("progress", _u32),
                      ("host_key", _u64)):
    _out = _ctype if _ctype is c_float3 else _P(_ctype)
    _SIGNATURES["throng_agent_get_" + _name] = (_st, [_w, throng_agent, _out])
    _SIGNATURES["throng_agent_set_" + _name] = (_st, [_w, throng_agent,
                                                      _ctype])

for _name, (_restype, _argtypes) in _SIGNATURES.items():
    try:
        _fn = getattr(lib, _name)
    except AttributeError:
        raise ImportError("throng: %s has no %s; this binding needs a newer "
                          "build of the library" % (library_path, _name))
    _fn.restype = _restype
    _fn.argtypes = _argtypes
del _name, _restype, _argtypes, _fn, _out, _ctype


def version():
    """The library's version string, e.g. "0.4.0"."""
    return lib.throng_version().decode()


def _check_version():
    parts = version().split(".")
    major, minor = int(parts[0]), int(parts[1])
    if major != _ABI_MAJOR or minor < _ABI_MIN_MINOR:
        raise ImportError(
            "throng: %s is version %s; this binding mirrors the structs of "
            "%d.%d.x" % (library_path, version(), _ABI_MAJOR,
                         _ABI_MIN_MINOR))


_check_version()


def status_string(status):
    """throng_status_string: the fixed sentence naming a status code."""
    return lib.throng_status_string(int(status)).decode()


def simd_best():
    """The name of the path World(simd="auto") runs on this machine and
    library build, e.g. "avx2" (throng_simd_best)."""
    return lib.throng_simd_name(lib.throng_simd_best()).decode()


def simd_supported(simd):
    """True when a world can run the path `simd`, a name ("avx512") or a
    Simd value; "auto" always can (throng_simd_supported)."""
    return bool(lib.throng_simd_supported(_enum(Simd, simd, "simd")))


def simd_from_name(name):
    """The Simd of a path's name exactly as the library spells it ("avx2",
    "auto"; throng_simd_from_name); NotFoundError for any other name."""
    if not isinstance(name, str):
        raise TypeError("simd_from_name: expected a str, got %r" % (name,))
    out = _c_enum()
    encoded = name.encode("utf-8")
    status = (Status.ERR_NOT_FOUND if b"\0" in encoded else
              lib.throng_simd_from_name(encoded, ctypes.byref(out)))
    if status != Status.OK:
        raise _error(status, "throng_simd_from_name: no SIMD path is named "
                     "%r" % name)
    return Simd(out.value)


def flocking_default():
    """throng_flocking_default() as a dict (the flocking a group gets when
    create_group is given none, before its radii are clamped to the
    world's neighbour radius)."""
    d = _struct_to_dict(lib.throng_flocking_default())
    d["separation_mode"] = SeparationMode(d["separation_mode"])
    return d

# ------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------


class ThrongError(Exception):
    """A call refused by throng. .status is the C status code (a Status),
    .message the detail (throng_world_last_error's sentence, or the
    status's own sentence when there is no detail)."""

    status = None

    def __init__(self, message, status=None):
        if status is not None:
            self.status = Status(status)
        self.message = message
        super().__init__(message)

    @property
    def status_string(self):
        return status_string(self.status)


class NullError(ThrongError):
    status = Status.ERR_NULL


class NotFiniteError(ThrongError, ValueError):
    status = Status.ERR_NOT_FINITE


class OutOfRangeError(ThrongError, ValueError):
    status = Status.ERR_OUT_OF_RANGE


class StaleHandleError(ThrongError):
    status = Status.ERR_STALE_HANDLE


class UnknownGroupError(ThrongError, LookupError):
    status = Status.ERR_UNKNOWN_GROUP


class DuplicateKeyError(ThrongError, ValueError):
    status = Status.ERR_DUPLICATE_KEY


class NotFoundError(ThrongError, LookupError):
    status = Status.ERR_NOT_FOUND


class OutOfMemoryError(ThrongError, MemoryError):
    status = Status.ERR_OUT_OF_MEMORY


class CapacityError(ThrongError):
    status = Status.ERR_CAPACITY


class BadSnapshotError(ThrongError, ValueError):
    status = Status.ERR_BAD_SNAPSHOT


class VersionError(ThrongError):
    status = Status.ERR_VERSION


class IOError_(ThrongError, OSError):
    status = Status.ERR_IO


class UnsupportedError(ThrongError):
    status = Status.ERR_UNSUPPORTED


class InvalidArgError(ThrongError, ValueError):
    """A field the call would ignore is set (a sphere's min, a plane's
    a), or a group to remove is in use."""
    status = Status.ERR_INVALID_ARG


class BusyError(ThrongError):
    """Another call on the world was running. The C library records no
    sentence for it, so the message is the status's own."""
    status = Status.ERR_BUSY


class InvalidArgError(ThrongError, ValueError):
    """A field the call would not read was set away from its default (a
    behaviour field its kind or mode does not read)."""
    status = Status.ERR_INVALID_ARG


class StaleColumnsError(RuntimeError):
    """A Columns object was read after an add, a remove or close changed
    the rows it describes."""


_ERROR_CLASS = {cls.status: cls for cls in (
    NullError, NotFiniteError, OutOfRangeError, StaleHandleError,
    UnknownGroupError, DuplicateKeyError, NotFoundError, OutOfMemoryError,
    CapacityError, BadSnapshotError, VersionError, IOError_,
    UnsupportedError, BusyError, InvalidArgError)}


def _error(status, message):
    try:
        cls = _ERROR_CLASS[Status(status)]
    except (ValueError, KeyError):  # a code this binding does not know
        return ThrongError(message or status_string(status), status)
    return cls(message or status_string(status))

# ------------------------------------------------------------------------
# Converting Python values for C
# ------------------------------------------------------------------------


def _int_in(value, lo, hi, what):
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = value.__index__()
        except (AttributeError, TypeError):
            raise TypeError("%s must be an integer, got %r" % (what, value))
    if not lo <= value <= hi:
        raise OutOfRangeError("%s must be in [%d, %d], got %d"
                              % (what, lo, hi, value))
    return value


def _u32v(value, what):
    return _int_in(value, 0, 0xFFFFFFFF, what)


def _u64v(value, what):
    return _int_in(value, 0, 0xFFFFFFFFFFFFFFFF, what)


def _i32v(value, what):
    return _int_in(value, -0x80000000, 0x7FFFFFFF, what)


def _vec3(value, dims, what):
    """A float[3] from a sequence of dims (or, in 2D, 3) numbers; NaN and
    infinities pass through for C to refuse with its own message."""
    if isinstance(value, (str, bytes)):
        raise TypeError("%s must be a sequence of %d numbers, got %r"
                        % (what, dims, value))
    try:
        items = [float(x) for x in value]
    except TypeError:
        raise TypeError("%s must be a sequence of %d numbers, got %r"
                        % (what, dims, value))
    if len(items) != dims and not (dims == 2 and len(items) == 3):
        raise OutOfRangeError("%s must have %d components, got %d"
                              % (what, dims, len(items)))
    items += [0.0] * (3 - len(items))
    return c_float3(*items)


def _enum(cls, value, what):
    if isinstance(value, str):
        try:
            return cls[value.strip().upper().replace("-", "_")]
        except KeyError:
            raise OutOfRangeError("%s: unknown name %r (one of %s)" % (
                what, value, ", ".join(m.name.lower() for m in cls)))
    try:
        return cls(value)
    except ValueError:
        raise OutOfRangeError("%s: unknown value %r" % (what, value))


def _struct_to_dict(s):
    out = {}
    for name, ctype in s._fields_:
        value = getattr(s, name)
        if ctype is c_float3:
            value = tuple(value)
        elif ctype is throng_object:
            value = (value.id, value.generation)
        out[name] = value
    return out

# ------------------------------------------------------------------------
# Handles
# ------------------------------------------------------------------------


class Agent:
    """A handle to one agent, valid until the agent is removed. Cheap to
    copy; equal handles name the same agent. Attribute reads and writes go
    straight to the C getters and setters (each O(1))."""

    __slots__ = ("world", "slot", "generation")

    def __init__(self, world, slot, generation):
        self.world = world
        self.slot = slot
        self.generation = generation

    @property
    def _c(self):
        # The C handle carries the world's id (throng_world_id).
        return throng_agent(self.slot, self.generation, self.world._id)

    @property
    def c_handle(self):
        """The C handle (a throng_agent: slot, generation and the world's
        id), e.g. to keep across a save and rebind later."""
        return self._c

    def __eq__(self, other):
        return (isinstance(other, Agent) and other.world is self.world and
                other.slot == self.slot and
                other.generation == self.generation)

    def __hash__(self):
        return hash((id(self.world), self.slot, self.generation))

    def __repr__(self):
        return "<throng.Agent slot=%d generation=%d>" % (self.slot,
                                                         self.generation)

    @property
    def valid(self):
        """True while the agent is alive (False after remove, or once the
        world is closed)."""
        w = self.world
        if w._ptr is None:
            return False
        with w._lock:
            return bool(lib.throng_agent_valid(w._handle(), self._c))

    def remove(self):
        self.world.remove(self)

    @property
    def index(self):
        """The agent's row in the columns, valid until the next step, add
        or remove."""
        out = _u32()
        self.world._call(lib.throng_agent_index, self._c, ctypes.byref(out))
        return out.value

    def definition(self):
        """Every defining field at once, as the keywords of add_agent."""
        d = throng_agent_def()
        self.world._call(lib.throng_agent_get_def, self._c, ctypes.byref(d))
        n = self.world.dimensions
        return dict(position=tuple(d.position[:n]),
                    velocity=tuple(d.velocity[:n]), mass=d.mass,
                    max_force=d.max_force, max_speed=d.max_speed,
                    radius=d.radius,
                    group=self.world._group(d.group),
                    host_key=d.host_key)

    def _get_vec(self, name):
        out = c_float3()
        self.world._call(getattr(lib, "throng_agent_get_" + name), self._c,
                         out)
        return tuple(out[:self.world.dimensions])

    def _set_vec(self, name, value):
        v = _vec3(value, self.world.dimensions, name)
        self.world._call(getattr(lib, "throng_agent_set_" + name), self._c,
                         v)

    def _get_scalar(self, name, ctype):
        out = ctype()
        self.world._call(getattr(lib, "throng_agent_get_" + name), self._c,
                         ctypes.byref(out))
        return out.value

    def _set_scalar(self, name, value):
        self.world._call(getattr(lib, "throng_agent_set_" + name), self._c,
                         value)

    position = property(lambda s: s._get_vec("position"),
                        lambda s, v: s._set_vec("position", v),
                        doc="metres, a tuple of `dimensions` floats")
    velocity = property(lambda s: s._get_vec("velocity"),
                        lambda s, v: s._set_vec("velocity", v),
                        doc="metres per second")
    target_point = property(
        lambda s: s._get_vec("target_point"),
        lambda s, v: s._set_vec("target_point", v),
        doc="the point seek, flee and arrive use with source agent_point")
    mass = property(lambda s: s._get_scalar("mass", _f),
                    lambda s, v: s._set_scalar("mass", float(v)),
                    doc="kilograms, > 0")
    max_force = property(lambda s: s._get_scalar("max_force", _f),
                         lambda s, v: s._set_scalar("max_force", float(v)),
                         doc="newtons, >= 0")
    max_speed = property(lambda s: s._get_scalar("max_speed", _f),
                         lambda s, v: s._set_scalar("max_speed", float(v)),
                         doc="metres per second, >= 0")
    radius = property(lambda s: s._get_scalar("radius", _f),
                      lambda s, v: s._set_scalar("radius", float(v)),
                      doc="body radius, metres, >= 0")
    @property
    def nav(self):
        """The agent's navigation state (throng_agent_get_nav): a dict of
        field (its own NavField, or None: its behaviour's), arrived, goal
        and arrived_field."""
        w = self.world
        out = throng_agent_nav()
        w._call(lib.throng_agent_get_nav, self._c, ctypes.byref(out))
        return dict(field=w._object(out.field.id, out.field.generation),
                    arrived=bool(out.arrived), goal=out.goal,
                    arrived_field=w._object(out.arrived_field.id,
                                            out.arrived_field.generation))

    def _set_nav_field(self, field):
        w = self.world
        if field is None:
            handle = throng_object()
        else:
            if not isinstance(field, WorldObject):
                raise TypeError("expected a throng.NavField, got %r"
                                % (field,))
            if field.world is not w:
                raise StaleHandleError("nav_field: the field belongs to "
                                       "another world")
            handle = field._c
        w._call(lib.throng_agent_set_nav_field, self._c, handle)

    nav_field = property(
        lambda s: s.nav["field"], _set_nav_field,
        doc="the agent's own navigation field (None: its FOLLOW_NAV "
            "behaviours' nav.field); setting it clears its arrival "
            "(throng_agent_set_nav_field)")

    progress = property(
        lambda s: s._get_scalar("progress", _u32),
        lambda s, v: s._set_scalar("progress", _u32v(v, "progress")),
        doc="path segment (follow_path) or next checkpoint (patrol)")
    host_key = property(
        lambda s: s._get_scalar("host_key", _u64),
        lambda s, v: s._set_scalar("host_key", _u64v(v, "host_key")),
        doc="the host's own 64-bit id; 0 is none")

    @property
    def group(self):
        """The agent's Group; set it with a Group, a group name or None
        (the default group)."""
        out = throng_group()
        self.world._call(lib.throng_agent_get_group, self._c,
                         ctypes.byref(out))
        return self.world._group(out)

    @group.setter
    def group(self, value):
        self._set_scalar("group", self.world._group_c(value))

    @property
    def target_agent(self):
        """The agent pursue, evade, offset pursuit and follow_leader use;
        None when unset."""
        out = throng_agent()
        self.world._call(lib.throng_agent_get_target_agent, self._c,
                         ctypes.byref(out))
        if out.slot == 0 and out.generation == 0:
            return None
        return Agent(self.world, out.slot, out.generation)

    @target_agent.setter
    def target_agent(self, value):
        """Set it to an Agent of the same world (or None to clear it); an
        agent of another world raises StaleHandleError."""
        target = (throng_agent() if value is None else
                  _agent_c(value, self.world, "target_agent"))
        self.world._call(lib.throng_agent_set_target_agent, self._c, target)

    @property
    def basis(self):
        """(forward, up, side) unit vectors, each a tuple of 3 floats."""
        vecs = [c_float3(), c_float3(), c_float3()]
        self.world._call(lib.throng_agent_get_basis, self._c, *vecs)
        return tuple(tuple(v) for v in vecs)

    @property
    def heading(self):
        """The unit forward vector, `dimensions` floats."""
        return self.basis[0][:self.world.dimensions]


def _agent_c(value, world, what):
    """The C handle of an Agent of `world`. An agent of another world is
    refused here, whatever its slot and generation happen to name in this
    one: StaleHandleError, as C refuses other worlds' handles."""
    if not isinstance(value, Agent):
        raise TypeError("%s: expected a throng.Agent, got %r"
                        % (what, value))
    if value.world is not world:
        raise StaleHandleError("%s: the agent belongs to another world"
                               % what)
    return value._c


class Group:
    """A handle to a group, a steering recipe that agents name: its `id`
    (the row value agents of the group carry in the columns' `group`; the
    default group, world.default_group, is id 0 and always exists),
    `generation` (counts the groups given this id, from 1) and `world`.
    It names the same group until the group is removed; then it is
    refused (StaleHandleError), as is a Group of another world."""

    __slots__ = ("world", "id", "generation")

    def __init__(self, world, group_id, generation):
        self.world = world
        self.id = group_id
        self.generation = generation

    @property
    def _c(self):
        return throng_group(self.id, self.generation, self.world._id)

    @property
    def c_handle(self):
        """The C handle (a throng_group: id, generation, the world's id)."""
        return self._c

    def __eq__(self, other):
        return (isinstance(other, Group) and other.world is self.world and
                other.id == self.id and other.generation == self.generation)

    def __hash__(self):
        return hash((id(self.world), self.id, self.generation))

    @property
    def name(self):
        """The name given at creation (or found by), None if unknown."""
        return self.world._group_names.get((self.id, self.generation))

    def __repr__(self):
        return "<throng.Group %d generation=%d%s>" % (
            self.id, self.generation,
            " %r" % self.name if self.name else "")

    @property
    def valid(self):
        """True while the group lives in an open world."""
        w = self.world
        if w._ptr is None:
            return False
        with w._lock:
            return bool(lib.throng_group_valid(w._handle(), self._c))

    def remove(self):
        """Removes the group (throng_group_remove): InvalidArgError while
        any agent belongs to it (the sentence says how many) and for the
        default group. Its name is free again; its id goes to a later
        group with the next generation."""
        self.world.remove_group(self)

    # Flocking, wander and combination ----------------------------------

    @property
    def flocking(self):
        """The flocking rules as a dict (enum fields as enum members)."""
        f = throng_flocking()
        self.world._call(lib.throng_group_get_flocking, self._c,
                         ctypes.byref(f))
        d = _struct_to_dict(f)
        d["separation_mode"] = SeparationMode(d["separation_mode"])
        return d

    def set_flocking(self, **changes):
        """Changes the named flocking fields, keeping the others."""
        f = throng_flocking()
        self.world._call(lib.throng_group_get_flocking, self._c,
                         ctypes.byref(f))
        _fill_flocking(f, changes)
        self.world._call(lib.throng_group_set_flocking, self._c,
                         ctypes.byref(f))

    @property
    def wander(self):
        """Seed 000's turn-rate wander as a dict."""
        wd = throng_wander()
        self.world._call(lib.throng_group_get_wander, self._c,
                         ctypes.byref(wd))
        return _struct_to_dict(wd)

    def set_wander(self, **changes):
        """Changes the named wander fields, keeping the others."""
        wd = throng_wander()
        self.world._call(lib.throng_group_get_wander, self._c,
                         ctypes.byref(wd))
        _fill_wander(wd, changes)
        self.world._call(lib.throng_group_set_wander, self._c,
                         ctypes.byref(wd))

    @property
    def avoidance(self):
        """The velocity stage's settings as a dict (mode as an
        AvoidanceMode)."""
        a = throng_avoidance()
        self.world._call(lib.throng_group_get_avoidance, self._c,
                         ctypes.byref(a))
        d = _struct_to_dict(a)
        d["mode"] = AvoidanceMode(d["mode"])
        return d

    def set_avoidance(self, **changes):
        """Changes the named avoidance fields (mode "none" or "orca",
        range, max_neighbours, time_horizon, responsibility), keeping the
        others."""
        a = throng_avoidance()
        self.world._call(lib.throng_group_get_avoidance, self._c,
                         ctypes.byref(a))
        _fill_avoidance(a, changes)
        self.world._call(lib.throng_group_set_avoidance, self._c,
                         ctypes.byref(a))

    @property
    def motion(self):
        """The vehicle limits (max_turn_rate, min_speed) as a dict."""
        m = throng_motion()
        self.world._call(lib.throng_group_get_motion, self._c,
                         ctypes.byref(m))
        return _struct_to_dict(m)

    def set_motion(self, **changes):
        """Changes the named vehicle limits, keeping the others."""
        m = throng_motion()
        self.world._call(lib.throng_group_get_motion, self._c,
                         ctypes.byref(m))
        _fill(m, changes, "motion")
        self.world._call(lib.throng_group_set_motion, self._c,
                         ctypes.byref(m))

    @property
    def layers(self):
        """The interaction layers (layer, mask) as a dict."""
        lay = throng_layers()
        self.world._call(lib.throng_group_get_layers, self._c,
                         ctypes.byref(lay))
        return _struct_to_dict(lay)

    def set_layers(self, **changes):
        """Changes the group's layer (0 to 31) or the mask of layers it
        sees, keeping the other."""
        lay = throng_layers()
        self.world._call(lib.throng_group_get_layers, self._c,
                         ctypes.byref(lay))
        _fill(lay, changes, "layers")
        self.world._call(lib.throng_group_set_layers, self._c,
                         ctypes.byref(lay))

    def set_combine(self, mode):
        """Sets the combination mode: "weighted_average",
        "weighted_sum" or "priority" (or a CombineMode)."""
        self.world._call(lib.throng_group_set_combine, self._c,
                         _enum(CombineMode, mode, "combine"))

    # The behaviour list -------------------------------------------------

    def add_behaviour(self, kind, weight=None, priority=None,
                      speed_factor=None, **params):
        """Appends a behaviour; returns its index in the list.

        kind: a BehaviourKind or its name ("seek", "arrive",
        "follow_path", ...). params: the fields of the kind's parameter
        struct (see throng.h), e.g. point=(x, y), ramp="linear",
        path=<WorldObject>, offset=(..), box_min=(..); each keyword sets
        the field of that name and nothing else. Unnamed fields keep
        throng_behaviour_default's values. A field the kind does not read
        (flee_range for seek, point unless source="fixed_point", box_min
        unless use_box=True) must keep its default, else InvalidArgError,
        as in C."""
        b = _behaviour(self.world, kind, weight, priority, speed_factor,
                       params)
        index = _u32()
        self.world._call(lib.throng_group_add_behaviour, self._c,
                         ctypes.byref(b), ctypes.byref(index))
        return index.value

    def set_behaviour(self, index, kind, weight=None, priority=None,
                      speed_factor=None, **params):
        """Replaces behaviour `index` (as add_behaviour builds it)."""
        b = _behaviour(self.world, kind, weight, priority, speed_factor,
                       params)
        self.world._call(lib.throng_group_set_behaviour, self._c,
                         _u32v(index, "index"), ctypes.byref(b))

    def get_behaviour(self, index):
        """Behaviour `index` as a dict: kind, weight, priority,
        speed_factor and its parameters (objects as WorldObject)."""
        b = throng_behaviour()
        self.world._call(lib.throng_group_get_behaviour, self._c,
                         _u32v(index, "index"), ctypes.byref(b))
        return _behaviour_dict(self.world, b)

    @property
    def behaviour_count(self):
        out = _u32()
        self.world._call(lib.throng_group_behaviour_count, self._c,
                         ctypes.byref(out))
        return out.value

    @property
    def behaviours(self):
        """The behaviour list, as get_behaviour dicts."""
        return [self.get_behaviour(i) for i in range(self.behaviour_count)]

    def clear_behaviours(self):
        self.world._call(lib.throng_group_clear_behaviours, self._c)


def _fill(struct, changes, what, enums=None):
    enums = enums or {}
    names = [n for n, _ in struct._fields_]
    for key, value in changes.items():
        if key not in names:
            raise TypeError("%s has no field %r (fields: %s)"
                            % (what, key, ", ".join(names)))
        ctype = dict(struct._fields_)[key]
        if key in enums:
            value = _enum(enums[key], value, key)
        elif ctype is ctypes.c_int32:
            value = _i32v(value, key)
        elif ctype is ctypes.c_uint32:
            value = _u32v(value, key)
        elif ctype is ctypes.c_bool:
            value = bool(value)
        elif ctype is _f:
            value = float(value)
        setattr(struct, key, value)


def _fill_flocking(f, changes):
    _fill(f, changes, "flocking",
          {"separation_mode": SeparationMode})


def _fill_wander(wd, changes):
    _fill(wd, changes, "wander")


def _fill_avoidance(a, changes):
    _fill(a, changes, "avoidance", {"mode": AvoidanceMode})


def _behaviour(world, kind, weight, priority, speed_factor, params):
    # Keywords map one to one onto the fields of throng_behaviour_default's
    # struct, nothing switched behind the caller's back: the C library
    # refuses a field the kind (or its mode, e.g. seek's source) does not
    # read, exactly as it would from C.
    kind = _enum(BehaviourKind, kind, "behaviour kind")
    b = lib.throng_behaviour_default(kind)
    if weight is not None:
        b.weight = float(weight)
    if priority is not None:
        b.priority = _i32v(priority, "priority")
    if speed_factor is not None:
        b.speed_factor = float(speed_factor)
    member = _schema.PARAMS_OF_KIND[kind]
    p = getattr(b.u, member)
    names = [n for n, _ in p._fields_]
    for key, value in params.items():
        if key not in names:
            raise TypeError("behaviour %s takes %s, weight, priority and "
                            "speed_factor; got %r" % (
                                kind.name.lower(), ", ".join(names), key))
        ctype = dict(p._fields_)[key]
        enum_cls = _schema.ENUM_OF_FIELD.get((type(p).__name__, key))
        if ctype is _schema.c_float3:
            value = _vec3(value, world.dimensions, key)
        elif ctype is throng_object:
            if not isinstance(value, WorldObject):
                raise TypeError("%s must be a throng.WorldObject, got %r"
                                % (key, value))
            if value.world is not world:
                raise StaleHandleError(
                    "%s: the object belongs to another world" % key)
            value = value._c
        elif enum_cls is not None:
            value = _enum(enum_cls, value, key)
        elif ctype is ctypes.c_uint32:
            value = _u32v(value, key)
        elif ctype is ctypes.c_bool:
            value = bool(value)
        else:
            value = float(value)
        setattr(p, key, value)
    return b


def _behaviour_dict(world, b):
    kind = BehaviourKind(b.kind)
    d = dict(kind=kind, weight=b.weight, priority=b.priority,
             speed_factor=b.speed_factor)
    p = getattr(b.u, _schema.PARAMS_OF_KIND[kind])
    for name, ctype in p._fields_:
        value = getattr(p, name)
        enum_cls = _schema.ENUM_OF_FIELD.get((type(p).__name__, name))
        if ctype is _schema.c_float3:
            value = tuple(value[:world.dimensions])
        elif ctype is throng_object:
            value = world._object(value.id, value.generation)
        elif enum_cls is not None:
            value = enum_cls(value)
        d[name] = value
    return d


# WorldObject.kind's names of the ObjectKind values.
_OBJECT_KIND_NAMES = {
    ObjectKind.SPHERE: "sphere", ObjectKind.BOX: "box",
    ObjectKind.SEGMENT: "segment", ObjectKind.PLANE: "plane",
    ObjectKind.PATH: "path", ObjectKind.FLOW: "flow_field",
    ObjectKind.NAV: "nav_field",
}


def _floats(pointer, count):
    """A copy of `count` C floats: a float32 NumPy array, else a list."""
    if not pointer or count == 0:
        return _np.empty(0, dtype=_np.float32) if _np is not None else []
    if _np is not None:
        return _np.ctypeslib.as_array(pointer, shape=(count,)).copy()
    return list(pointer[:count])


def _object_info_dict(world, info):
    """throng_object_info as a dict with the fields of its kind, named as
    the world methods that make such an object name them; arrays are
    copies ((n, dims) float32 arrays with NumPy, else lists of tuples)."""
    kind = ObjectKind(info.kind)
    n = world.dimensions
    a, b = tuple(info.a[:n]), tuple(info.b[:n])
    if kind == ObjectKind.SPHERE:
        return dict(kind="sphere", center=a, radius=info.radius)
    if kind == ObjectKind.BOX:
        return dict(kind="box", min=a, max=b)
    if kind == ObjectKind.SEGMENT:
        return dict(kind="segment", a=a, b=b)
    if kind == ObjectKind.PLANE:
        return dict(kind="plane", point=a, normal=b)
    if kind == ObjectKind.NAV:
        return dict(kind="nav_field", origin=a, cell_size=info.cell_size,
                    size=tuple(info.size[:n]))
    if kind == ObjectKind.PATH:
        flat = _floats(info.points, 3 * info.point_count)
        if _np is not None:
            points = flat.reshape(-1, 3)[:, :n].copy()
        else:
            points = [tuple(flat[3 * i:3 * i + n])
                      for i in range(info.point_count)]
        return dict(kind="path", points=points, radius=info.radius,
                    closed=bool(info.closed))
    size = tuple(info.size[:n])
    cells = 1
    for s in size:
        cells *= s
    flat = _floats(info.vectors, cells * n)
    if _np is not None:
        vectors = flat.reshape(tuple(reversed(size)) + (n,))
    else:
        vectors = [tuple(flat[n * i:n * i + n]) for i in range(cells)]
    return dict(kind="flow_field", origin=a, cell_size=info.cell_size,
                size=size, vectors=vectors)


class WorldObject:
    """A handle to a static object: an obstacle, a wall, a path or a flow
    field. `kind` says which: "sphere", "box", "segment", "plane", "path"
    or "flow_field" (asked of the world for objects this binding did not
    make, such as those of a loaded snapshot; None once removed)."""

    __slots__ = ("world", "id", "generation", "_kind")

    def __init__(self, world, object_id, generation, kind=None):
        self.world = world
        self.id = object_id
        self.generation = generation
        self._kind = kind

    @property
    def _c(self):
        return throng_object(self.id, self.generation, self.world._id)

    @property
    def c_handle(self):
        """The C handle (a throng_object: id, generation and the world's
        id), e.g. to keep across a save and rebind later."""
        return self._c

    @property
    def kind(self):
        if self._kind is None:
            try:
                self._kind = self.info()["kind"]
            except (ThrongError, ValueError):
                return None
        return self._kind

    def info(self):
        """The object's shape as the world holds it (throng_object_get):
        a dict with `kind` and that kind's fields (sphere: center, radius;
        box: min, max; segment: a, b; plane: point, normal (unit); path:
        points, radius, closed; flow_field: origin, cell_size, size,
        vectors shaped (size[-1], ..., size[0], dims) with NumPy). Arrays
        are copies. StaleHandleError once the object is removed."""
        out = throng_object_info()
        with self.world._lock:
            self.world._call(lib.throng_object_get, self._c,
                             ctypes.byref(out))
            return _object_info_dict(self.world, out)

    @property
    def valid(self):
        """True while the object lives in an open world."""
        w = self.world
        if w._ptr is None:
            return False
        out = throng_object_info()
        with w._lock:
            return lib.throng_object_get(w._handle(), self._c,
                                         ctypes.byref(out)) == Status.OK

    def __eq__(self, other):
        return (isinstance(other, WorldObject) and
                other.world is self.world and other.id == self.id and
                other.generation == self.generation)

    def __hash__(self):
        return hash((id(self.world), self.id, self.generation))

    def __repr__(self):
        return "<throng.WorldObject %s id=%d generation=%d>" % (
            self.kind, self.id, self.generation)

    def remove(self):
        self.world.remove_object(self)


NavSample = namedtuple("NavSample", "direction distance density inside "
                       "at_goal")
NavSample.__doc__ = ("What a navigation field says at a point "
                     "(throng_nav_sample): direction (unit, towards the "
                     "nearest goal), distance (metres at cost 1; inf where "
                     "no goal is reachable), density (agents per m^2), "
                     "inside (the grid), at_goal.")

NavArrival = namedtuple("NavArrival",
                        "agent field goal removed position host_key")
NavArrival.__doc__ = ("An agent that arrived at a navigation field's goal "
                      "during the last step (throng_nav_arrival): agent "
                      "(stale when removed), field, goal (index), removed, "
                      "position, host_key (0 for none).")


class NavField(WorldObject):
    """A navigation field (throng_nav_field_add): for every cell of its
    grid the travel time to the nearest goal round the world's obstacles
    and walls, and the direction to go."""

    __slots__ = ()

    def sample(self, point):
        """The field at `point` (throng_nav_field_sample), a NavSample."""
        w = self.world
        p = _vec3(point, w.dimensions, "point")
        out = throng_nav_sample()
        w._call(lib.throng_nav_field_sample, self._c, p, ctypes.byref(out))
        n = w.dimensions
        return NavSample(tuple(out.direction[:n]), out.distance, out.density,
                         bool(out.inside), bool(out.at_goal))

    def distances(self):
        """Every cell's distance in metres (inf where impassable or
        unreachable), copied (throng_nav_field_distances): a float32 NumPy
        array shaped (size[1], size[0]) in 2D, (size[2], size[1],
        size[0]) in 3D, or a flat list without NumPy."""
        w = self.world
        with w._lock:
            info = self.information()
            n = info["cells"]
            if _np is not None:
                out = _np.empty(max(n, 1), dtype=_np.float32)
                w._call(lib.throng_nav_field_distances, self._c,
                        out.ctypes.data_as(_c_float_p), n, None)
                return out[:n].reshape(tuple(reversed(info["size"])))
            buf = (ctypes.c_float * max(n, 1))()
            w._call(lib.throng_nav_field_distances, self._c,
                    ctypes.cast(buf, _c_float_p), n, None)
            return list(buf[:n])

    def information(self):
        """The field's description and the figures of its builds
        (throng_nav_field_get), as a dict."""
        w = self.world
        out = throng_nav_field_info()
        w._call(lib.throng_nav_field_get, self._c, ctypes.byref(out))
        d = getattr(out, "def")
        n = w.dimensions
        goals = []
        for i in range(d.goal_count):
            g = d.goals[i]
            goals.append(dict(kind=NavGoalKind(g.kind).name.lower(),
                              a=tuple(g.a[:n]), b=tuple(g.b[:n])))
        regions = [dict(min=tuple(d.regions[i].min[:n]),
                        max=tuple(d.regions[i].max[:n]),
                        cost=d.regions[i].cost)
                   for i in range(d.region_count)]
        return dict(origin=tuple(d.origin[:n]), cell_size=d.cell_size,
                    size=tuple(d.size[:n]), goals=goals,
                    clearance=d.clearance, has_costs=bool(d.costs),
                    regions=regions, density_interval=d.density_interval,
                    density_radius=d.density_radius,
                    density_cost=d.density_cost, cells=out.cells,
                    solid_cells=out.solid_cells,
                    margin_cells=out.margin_cells,
                    reached_cells=out.reached_cells, builds=out.builds,
                    last_cells=out.last_cells,
                    last_full=bool(out.last_full),
                    last_seconds=out.last_seconds,
                    last_rounds=out.last_rounds,
                    last_tiles=out.last_tiles)

    def set_costs(self, costs):
        """Replaces the per-cell costs (throng_nav_field_set_costs): one
        per cell, x fastest (any sequence or NumPy array), or None for
        none; the field is rebuilt before the next step."""
        w = self.world
        keep = None
        pointer = None
        if costs is not None:
            cells = self.information()["cells"]
            keep, pointer, got = _float_block(costs)
            if got != cells:
                raise OutOfRangeError("the field has %d cells, costs holds %d"
                                      % (cells, got))
        w._call(lib.throng_nav_field_set_costs, self._c, pointer)
        del keep

    def update(self):
        """Rebuilds the field now when its geometry or costs changed
        (throng_nav_field_update)."""
        self.world._call(lib.throng_nav_field_update, self._c)

    def count_agents(self):
        """The world's agents per cell as the field's density count counts
        them now (throng_nav_field_count_agents): a uint32 NumPy array
        shaped as distances(), or a flat list without NumPy."""
        w = self.world
        with w._lock:
            info = self.information()
            n = info["cells"]
            if _np is not None:
                out = _np.empty(max(n, 1), dtype=_np.uint32)
                w._call(lib.throng_nav_field_count_agents, self._c,
                        out.ctypes.data_as(_c_u32_p), n, None)
                return out[:n].reshape(tuple(reversed(info["size"])))
            buf = (ctypes.c_uint32 * max(n, 1))()
            w._call(lib.throng_nav_field_count_agents, self._c,
                    ctypes.cast(buf, _c_u32_p), n, None)
            return list(buf[:n])

    def supply_counts(self, counts):
        """Counts per cell (one per cell, x fastest: any sequence or NumPy
        array) that the field's next density count takes instead of
        counting the world's agents, once (throng_nav_field_supply_counts);
        None withdraws counts not yet used."""
        w = self.world
        keep = None
        pointer = None
        if counts is not None:
            cells = self.information()["cells"]
            if _np is not None and not isinstance(counts, (list, tuple)):
                keep = _np.ascontiguousarray(counts,
                                             dtype=_np.uint32).reshape(-1)
                pointer, got = keep.ctypes.data_as(_c_u32_p), keep.size
            else:
                flat = [int(c) for c in _flatten(counts)]
                keep = (ctypes.c_uint32 * max(len(flat), 1))(*flat)
                pointer, got = ctypes.cast(keep, _c_u32_p), len(flat)
            if got != cells:
                raise OutOfRangeError("the field has %d cells, counts holds "
                                      "%d" % (cells, got))
        w._call(lib.throng_nav_field_supply_counts, self._c, pointer)
        del keep


def _float_block(values):
    """C floats of a sequence or array: (what keeps them, pointer,
    count)."""
    if _np is not None and not isinstance(values, (list, tuple)):
        keep = _np.ascontiguousarray(values, dtype=_np.float32).reshape(-1)
        return keep, keep.ctypes.data_as(_c_float_p), keep.size
    flat = list(_flatten(values))
    keep = (ctypes.c_float * max(len(flat), 1))(*flat)
    return keep, ctypes.cast(keep, _c_float_p), len(flat)


def _nav_goal(goal, dims):
    """A throng_nav_goal from a point (a tuple) or a dict kind=, a=, b=."""
    g = throng_nav_goal()
    if isinstance(goal, dict):
        kind = goal.get("kind", "point")
        g.kind = (NavGoalKind[kind.upper()] if isinstance(kind, str)
                  else NavGoalKind(kind))
        g.a = _vec3(goal["a"], dims, "goal a")
        if "b" in goal:
            g.b = _vec3(goal["b"], dims, "goal b")
    else:
        g.kind = NavGoalKind.POINT
        g.a = _vec3(goal, dims, "goal")
    return g


# ------------------------------------------------------------------------
# The world's memory: blocks that Python owns
# ------------------------------------------------------------------------
#
# Every World hands the library an allocator (throng_world_def.allocator)
# whose blocks are Python objects (_Block). The world's heap holds one
# reference to each block the library has allocated; the library's free
# drops that reference. A column view holds another reference, through its
# base object, so memory a view points into is freed only when both are
# gone: a view outlives close(), a growth that moved the columns, and the
# World object itself, and never reads freed memory.

_libc = ctypes.CDLL(None)  # the process's malloc (a sanitizer's, if any)
_posix_memalign = _libc.posix_memalign
_posix_memalign.argtypes = [_P(ctypes.c_void_p), ctypes.c_size_t,
                            ctypes.c_size_t]
_posix_memalign.restype = ctypes.c_int
_c_free = _libc.free
_c_free.argtypes = [ctypes.c_void_p]
_c_free.restype = None


class _Block:
    """One block of a world's memory, freed when its last reference goes
    (the world's heap, or a view)."""

    __slots__ = ("address", "size")

    def __init__(self, size, alignment):
        out = ctypes.c_void_p()
        alignment = max(alignment, ctypes.sizeof(ctypes.c_void_p))
        if _posix_memalign(ctypes.byref(out), alignment, max(size, 1)) != 0 \
                or not out.value:
            raise MemoryError("throng: no memory for %d bytes" % size)
        self.address = out.value
        self.size = size

    def __del__(self, _free=_c_free):
        address = getattr(self, "address", None)
        if address:
            _free(address)


_ALLOC_FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t,
                             ctypes.c_size_t, ctypes.c_void_p)
_FREE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t,
                            ctypes.c_void_p)


class _Heap:
    """A world's throng_allocator: `blocks` maps each address the library
    holds to its _Block. The callbacks never raise into C (a ctypes
    callback that raises returns garbage): a failed allocation returns
    NULL, which the library reports as OutOfMemoryError."""

    def __init__(self):
        blocks = self.blocks = {}
        new_block = _Block

        def alloc(size, alignment, user):
            try:
                block = new_block(size, alignment)
                blocks[block.address] = block
                return block.address
            except BaseException:  # noqa: B902 (nothing may reach C)
                return None

        def free(address, size, user):
            try:
                blocks.pop(address, None)
            except BaseException:  # noqa: B902
                pass

        self._alloc = _ALLOC_FN(alloc)
        self._free = _FREE_FN(free)

    def fill(self, allocator):
        allocator.alloc = ctypes.cast(self._alloc, ctypes.c_void_p).value
        allocator.free = ctypes.cast(self._free, ctypes.c_void_p).value
        allocator.user = None


class _Pin:
    """Held by the base of every column view: while any is alive, the
    world steps with stable columns (World._views)."""

    __slots__ = ("__weakref__",)

# ------------------------------------------------------------------------
# Zero-copy columns
# ------------------------------------------------------------------------

_COLUMN_NAMES = ("px", "py", "pz", "vx", "vy", "vz", "fx", "fy", "fz",
                 "ux", "uy", "uz", "group", "host_key")


# The element type of each column: float32, but the group ids (uint32) and
# host keys (uint64); (ctypes type, NumPy dtype name, memoryview format).
_COLUMN_TYPES = {"group": (ctypes.c_uint32, "uint32", "I"),
                 "host_key": (ctypes.c_uint64, "uint64", "Q")}
_FLOAT_COLUMN = (ctypes.c_float, "float32", "f")


def _empty_view(use_numpy, kind=_FLOAT_COLUMN):
    if use_numpy:
        a = _np.empty(0, dtype=kind[1])
        a.flags.writeable = False
        return a
    return memoryview(b"").cast(kind[2])


def _view(world, pointer, count, use_numpy, kind=_FLOAT_COLUMN):
    """A read-only 1-D view of `count` C floats at `pointer`, sharing the
    memory (no copy). Its base holds the _Block the column lives in, so
    the memory stays valid as long as the view (see "The world's memory"
    above), and a _Pin that the world counts: while a view is alive, the
    world's steps keep the columns in place (World._sync_stable)."""
    if not pointer or count == 0:
        return _empty_view(use_numpy, kind)
    ctype, dtype, fmt = kind
    address = ctypes.cast(pointer, ctypes.c_void_p).value
    block = world._heap.blocks.get(address)
    if block is None or count * ctypes.sizeof(ctype) > block.size:
        raise RuntimeError("throng: a column at 0x%x is not a block of the "
                           "binding's allocator" % address)
    base = (ctype * count).from_address(address)
    base._throng_block = block
    base._throng_pin = pin = _Pin()
    world._views.add(pin)
    if use_numpy:
        a = _np.frombuffer(base, dtype=dtype, count=count)
        a.flags.writeable = False
        return a
    return memoryview(base).cast("B").cast(fmt).toreadonly()


class Columns:
    """Zero-copy views of the structure-of-arrays columns, row i being the
    agent world.agent_at(i). Attributes px, py, pz, vx, vy, vz (velocity),
    fx, fy, fz (unit heading) and ux, uy, uz (unit up, 3D only) are 1-D
    read-only NumPy float32 arrays of length `count` (memoryviews of
    format 'f' without NumPy); the z and up columns are None in 2D.

    A view never reads freed memory, whatever happens to the world; what
    it shows afterwards:

    - world.step(): the live state. While any view of a world is alive,
      its steps keep the columns in place (stable columns), so the view
      shows the state after the step, in the step's new row order (row i
      is world.agent_at(i) again). Programs that hold no views do not pay
      for this.
    - agent.position = ... and the other setters: the new value, in place.
    - add_agent(): the live columns while they have room; when an add
      grows them, they move, and older views keep the values they held
      just before (a frozen copy). The new agent's row is never in an
      older view (its length is the count when it was taken).
    - remove(): the live columns (removal moves the last row into the
      hole); rows at and past the new count are leftovers.
    - close() (or leaving the `with` block, or the World being collected):
      the values at the moment of closing, frozen.

    This Columns object itself follows the same rules, but is for the row
    count it was made with: after add_agent, remove or close, reading an
    attribute raises StaleColumnsError (fetch world.columns() again);
    after a step it stays valid."""

    def __init__(self, world, use_numpy):
        c = throng_columns()
        world._call(lib.throng_world_columns, ctypes.byref(c))
        self._world = world
        self._epoch = world._epoch
        self.count = c.count
        self.dims = world.dimensions
        self.numpy = use_numpy
        self._views = {}
        self._addresses = {}
        for name in _COLUMN_NAMES:
            pointer = getattr(c, name)
            kind = _COLUMN_TYPES.get(name, _FLOAT_COLUMN)
            if pointer:
                self._addresses[name] = ctypes.cast(
                    pointer, ctypes.c_void_p).value
                self._views[name] = _view(world, pointer, c.count, use_numpy,
                                          kind)
            elif self.dims == 2 and (name[1] == "z" or name[0] == "u"):
                self._addresses[name] = None  # absent in 2D
                self._views[name] = None
            else:  # an empty world may hand out NULL columns
                self._addresses[name] = None
                self._views[name] = _empty_view(use_numpy, kind)
        world._columns_at = self._addresses["px"]

    @property
    def valid(self):
        """False once an add, remove or close has changed the rows (a step
        does not: the views follow it)."""
        return (self._world._ptr is not None and
                self._world._epoch == self._epoch)

    def address(self, name):
        """The C pointer of column `name` (an int, None when absent)."""
        return self._addresses[name]

    def _get(self, name):
        if not self.valid:
            raise StaleColumnsError(
                "these columns were fetched before an add, a remove or "
                "close; call world.columns() again")
        return self._views[name]

    @property
    def positions(self):
        """(px, py) or (px, py, pz): zero-copy, one view per axis."""
        return tuple(self._get(n) for n in ("px", "py", "pz")[:self.dims])

    @property
    def velocities(self):
        return tuple(self._get(n) for n in ("vx", "vy", "vz")[:self.dims])

    @property
    def headings(self):
        return tuple(self._get(n) for n in ("fx", "fy", "fz")[:self.dims])

    def __repr__(self):
        return "<throng.Columns count=%d dims=%d %s%s>" % (
            self.count, self.dims, "numpy" if self.numpy else "memoryview",
            "" if self.valid else " stale")


for _name in _COLUMN_NAMES:
    setattr(Columns, _name,
            property(lambda self, n=_name: self._get(n),
                     doc="zero-copy column %s" % _name))
del _name

# ------------------------------------------------------------------------
# Task pools: a step's parallel loops on Python's threads
# ------------------------------------------------------------------------
#
# throng_world_set_task_hooks hands every parallel loop of a step (and of a
# query that rebuilds the grid) to the host as one task over items
# [0, n): enqueue_task splits it into ranges and runs them on the host's
# workers, finish_task waits for them. Each range is one call back into C
# (a ctypes call, so the GIL is released while it runs and the ranges run
# in parallel). The result is the same, to the bit, as on any number of
# OpenMP threads.

_TASK_FN = ctypes.CFUNCTYPE(None, ctypes.c_uint32, ctypes.c_uint32,
                            ctypes.c_uint32, ctypes.c_void_p)
_ENQUEUE_FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_uint32, ctypes.c_uint32,
                               ctypes.c_void_p, ctypes.c_void_p)
_FINISH_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


class TaskPoolError(RuntimeError):
    """The task pool's executor failed during a step (or a query): its
    cause is the executor's exception. The call itself completed, with
    the same result as ever: the ranges the executor did not run ran on
    the calling thread."""


class TaskPool:
    """Runs a world's parallel loops on Python threads instead of the
    library's OpenMP threads (throng_world_set_task_hooks).

    workers: the most ranges that run at once, 1 .. MAX_WORKERS (default
      os.cpu_count()); each running range has its own worker index below
      it, as the library requires. 1 runs everything inline on the thread
      that steps.
    executor: a concurrent.futures.Executor to run ranges on (at most
      workers - 1 at a time; the stepping thread runs ranges too, so a
      step called from inside the executor cannot deadlock it). Default:
      the pool's own ThreadPoolExecutor, made on first use and shut down
      by close().

    Give it to World(task_pool=) or world.task_pool; one pool may serve
    several worlds. A world holds its pool (and the C callbacks) while the
    hooks are installed, so neither can be collected under it. Nothing
    the executor does can reach C: a submit that raises, or a future that
    fails or is cancelled, leaves its ranges to the stepping thread, and
    the step then raises TaskPoolError after completing."""

    def __init__(self, workers=None, executor=None):
        if workers is None:
            workers = os.cpu_count() or 1
        self.workers = _int_in(workers, 1, MAX_WORKERS, "workers")
        self._executor = executor
        self._own = None
        self._own_lock = threading.Lock()

    def __repr__(self):
        return "<throng.TaskPool workers=%d%s>" % (
            self.workers, "" if self._executor is None else " executor=%r"
            % (self._executor,))

    def executor(self):
        """The executor ranges run on (None with one worker)."""
        if self.workers == 1:
            return None
        if self._executor is not None:
            return self._executor
        with self._own_lock:
            if self._own is None:
                import concurrent.futures
                self._own = concurrent.futures.ThreadPoolExecutor(
                    max_workers=self.workers - 1,
                    thread_name_prefix="throng-task")
            return self._own

    def close(self):
        """Shuts down the pool's own executor (not one it was given)."""
        with self._own_lock:
            own, self._own = self._own, None
        if own is not None:
            own.shutdown(wait=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _TaskJob:
    """One loop handed over by enqueue_task: its ranges, claimed one at a
    time by whoever runs drain(), each with a free worker index."""

    def __init__(self, fn, ranges, context, indices):
        self.fn = fn
        self.ranges = ranges
        self.next = 0
        self.context = context
        self.indices = indices
        self.lock = threading.Lock()
        self.futures = []

    def _claim(self):
        with self.lock:
            if self.next == len(self.ranges):
                return None
            r = self.ranges[self.next]
            self.next += 1
            return r

    def drain(self):
        worker = self.indices.get()
        try:
            while True:
                r = self._claim()
                if r is None:
                    return
                self.fn(r[0], r[1], worker, self.context)
        finally:
            self.indices.put(worker)


class _TaskHooks:
    """A world's C callbacks onto a TaskPool. The callbacks never raise
    into C: whatever goes wrong is kept in `error` and reported by the
    world after the call (World._call)."""

    def __init__(self, pool):
        import queue
        if not isinstance(pool, TaskPool):
            raise TypeError("task_pool must be a throng.TaskPool, got %r"
                            % (pool,))
        self.pool = pool
        self.error = None
        self.jobs = {}
        self.next_id = 1
        self.fns = {}
        self.indices = queue.LifoQueue()
        for i in reversed(range(pool.workers)):
            self.indices.put(i)

        def enqueue(task, item_count, min_range, context, user):
            try:
                return self._enqueue(task, item_count, min_range, context)
            except BaseException as exc:  # noqa: B902 (nothing may reach C)
                # Items may be unrun: C counts them and refuses the step.
                self.error = self.error or exc
                return None

        def finish(handle, user):
            try:
                self._finish(handle)
            except BaseException as exc:  # noqa: B902
                self.error = self.error or exc

        self._enqueue_c = _ENQUEUE_FN(enqueue)
        self._finish_c = _FINISH_FN(finish)

    def addresses(self):
        return (ctypes.cast(self._enqueue_c, ctypes.c_void_p).value,
                ctypes.cast(self._finish_c, ctypes.c_void_p).value)

    def _enqueue(self, task, item_count, min_range, context):
        fn = self.fns.get(task)
        if fn is None:
            fn = self.fns[task] = _TASK_FN(task)
        workers = self.pool.workers
        # About four ranges per worker, so a slow one holds no one up.
        size = max(min_range, 1, -(-item_count // (4 * workers)))
        ranges = [(b, min(b + size, item_count))
                  for b in range(0, item_count, size)]
        job = _TaskJob(fn, ranges, context, self.indices)
        executor = self.pool.executor()
        if executor is None or len(ranges) < 2:
            job.drain()
            return None
        for _ in range(min(workers - 1, len(ranges) - 1)):
            try:
                job.futures.append(executor.submit(job.drain))
            except BaseException as exc:  # noqa: B902
                self.error = self.error or exc
                break
        handle = self.next_id
        self.next_id += 1
        self.jobs[handle] = job
        return handle

    def _finish(self, handle):
        import concurrent.futures
        job = self.jobs.pop(handle)
        # The stepping thread is a worker too; whatever is left when it
        # runs out of ranges is being run, or was never started.
        job.drain()
        # A future cancelled before it started is not waited for (wait()
        # would wait for the executor to notice, and the executor may be
        # the thread that steps); the others are running or done.
        started = [f for f in job.futures if not f.cancel()]
        concurrent.futures.wait(started)
        for f in started:
            if f.exception() is not None:
                self.error = self.error or f.exception()
        # A future that failed before draining left ranges behind.
        job.drain()

    def take_error(self):
        error, self.error = self.error, None
        return error


StepStats = namedtuple("StepStats", [n for n, _ in throng_step_stats._fields_])
StepStats.__doc__ = ("What the last step did (throng_step_stats): times in "
                     "wall-clock seconds, simd the kernel path's name.")

# ------------------------------------------------------------------------
# The world
# ------------------------------------------------------------------------

class World:
    """A throng world. Keywords mirror throng_world_def:

    dimensions        2 or 3
    boundary          "unbounded" (default) or "periodic"
    box               periodic box edges in metres, `dimensions` numbers
                      (default 100 each), each at least 3 neighbour radii
    neighbour_radius  metres, > 0 (default 1)
    cell_size         grid cell edge in metres; 0 (default): the radius
    threads           threads per step, 0 = OpenMP default
    seed              seed of the counter-based random numbers (default 1)
    initial_capacity  agents to reserve room for
    simd              the kernels' instruction set: "auto" (default, the
                      widest this CPU and build offer), "scalar", "sse2",
                      "avx2", "avx512", "neon" or "wasm" (or a Simd); a
                      path the machine lacks raises UnsupportedError. The
                      path a world runs is its `simd` attribute.

    Use it as a context manager, or call close(); a world that is garbage
    collected unclosed is destroyed then."""

    def __init__(self, dimensions=2, boundary="unbounded", box=None,
                 neighbour_radius=1.0, cell_size=0.0, threads=0, seed=1,
                 initial_capacity=0, max_dt=None, max_substeps=None,
                 simd="auto", task_pool=None):
        self._init_state()
        d = lib.throng_world_def_default()
        self._heap.fill(d.allocator)
        d.dimensions = _int_in(dimensions, -0x80000000, 0x7FFFFFFF,
                               "dimensions")
        d.boundary = _enum(Boundary, boundary, "boundary")
        if box is not None:
            if dimensions not in (2, 3):
                raise OutOfRangeError("dimensions must be 2 or 3, got %r"
                                      % (dimensions,))
            d.box_size = _vec3(box, dimensions, "box")
            if dimensions == 2:
                d.box_size[2] = 100.0  # ignored in 2D; keep it finite
        d.neighbour_radius = float(neighbour_radius)
        d.cell_size = float(cell_size)
        d.threads = _int_in(threads, -0x80000000, 0x7FFFFFFF, "threads")
        d.seed = _u64v(seed, "seed")
        d.initial_capacity = _u32v(initial_capacity, "initial_capacity")
        if max_dt is not None:
            d.max_dt = float(max_dt)
        if max_substeps is not None:
            d.max_substeps = _u32v(max_substeps, "max_substeps")
        d.simd = _enum(Simd, simd, "simd")
        hooks = None
        if task_pool is not None:
            hooks = _TaskHooks(task_pool)
            d.enqueue_task, d.finish_task = hooks.addresses()
            d.worker_count = task_pool.workers
        ptr = _w()
        why = ctypes.create_string_buffer(256)
        d.error = ctypes.cast(why, ctypes.c_char_p)
        d.error_capacity = ctypes.sizeof(why)
        status = lib.throng_world_create(ctypes.byref(d), ctypes.byref(ptr))
        if status != Status.OK:
            # throng_world_create has no world to hold the detail: its
            # sentence came back in the def, and the definition is named.
            raise _error(status, "%s (dimensions=%d, "
                         "boundary=%s, box=%s, neighbour_radius=%g, "
                         "cell_size=%g, threads=%d, initial_capacity=%d, "
                         "simd=%s)" % (
                             why.value.decode("utf-8", "replace") or
                             "throng_world_create: " + status_string(status),
                             d.dimensions,
                             Boundary(d.boundary).name.lower(),
                             tuple(d.box_size[:d.dimensions]),
                             d.neighbour_radius, d.cell_size, d.threads,
                             d.initial_capacity, Simd(d.simd).name.lower()))
        self._hooks = hooks
        self._adopt(ptr.value, d.boundary, d.box_size, d.neighbour_radius,
                    d.seed, d.threads)

    def _init_state(self):
        """The Python side of a world, before it has a C world."""
        self._ptr = None
        self._id = 0
        self._lock = threading.RLock()
        self._epoch = 0
        self._group_names = {}
        self._object_kinds = {}
        # The world's memory (see "The world's memory" above), the live
        # column views (their _Pin objects), whether steps keep the
        # columns in place, and where the views' columns are.
        self._heap = _Heap()
        self._views = weakref.WeakSet()
        self._stable = False
        self._columns_at = None
        # The installed task pool's hooks (held while C holds them).
        self._hooks = None

    def _adopt(self, ptr, boundary, box, neighbour_radius, seed, threads):
        """Takes ownership of a created or loaded C world."""
        self._ptr = ptr
        # Every handle of this world carries it (throng_world_id).
        self._id = lib.throng_world_id(ptr)
        self.dimensions = lib.throng_world_dimensions(ptr)
        self.boundary = None if boundary is None else Boundary(boundary)
        self.box = tuple(box[:self.dimensions])
        self.neighbour_radius = neighbour_radius
        self.seed = seed
        self._threads = threads
        # The path the world runs ("auto" resolved), fixed at creation.
        self.simd = self.stats().simd

    # Lifecycle ----------------------------------------------------------

    def close(self, _destroy=lib.throng_world_destroy):
        """Destroys the world (idempotent). Handles are unusable afterwards
        (ValueError); column views taken before stay readable and show the
        values at the moment of closing."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed before the world existed
            return
        with lock:
            if self._ptr is not None:
                ptr, self._ptr = self._ptr, None
                self._epoch += 1
                _destroy(ptr)
                # C holds the task hooks no more.
                self._hooks = None
                # The library has freed every block; any it had not is no
                # longer used by anyone but views.
                self._heap.blocks.clear()

    def __del__(self):
        try:
            self.close()
        except Exception:  # never raise from a finaliser
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def closed(self):
        return self._ptr is None

    def _handle(self):
        if self._ptr is None:
            raise ValueError("operation on a closed throng.World")
        return self._ptr

    def _call(self, fn, *args):
        """Calls fn(world, *args) and raises the status's ThrongError with
        the world's last error when it refuses."""
        with self._lock:
            status = fn(self._handle(), *args)
            hook_error = (self._hooks.take_error()
                          if self._hooks is not None else None)
            if status == Status.ERR_BUSY:  # no sentence was recorded
                raise _error(status, "")
            if status != 0:
                detail = lib.throng_world_last_error(self._ptr)
                raise _error(status, detail.decode("utf-8", "replace")
                             if detail else "") from hook_error
            if hook_error is not None:
                raise TaskPoolError(
                    "%s: the task pool failed (%s: %s); the ranges it did "
                    "not run ran on the calling thread, and the call "
                    "completed" % (getattr(fn, "__name__", "throng"),
                                   type(hook_error).__name__, hook_error)
                ) from hook_error

    def __repr__(self):
        if self._ptr is None:
            return "<throng.World closed>"
        return "<throng.World %dD %s agents=%d step=%d>" % (
            self.dimensions, self.boundary.name.lower(), self.agent_count,
            self.step_count)

    # Scalars ------------------------------------------------------------

    def _query(self, fn):
        with self._lock:
            return fn(self._handle())

    agent_count = property(
        lambda s: s._query(lib.throng_world_agent_count),
        doc="live agents")
    step_count = property(lambda s: s._query(lib.throng_world_step_count),
                          doc="completed steps")
    bytes = property(lambda s: s._query(lib.throng_world_bytes),
                     doc="heap bytes the world holds")
    hash = property(lambda s: s._query(lib.throng_world_hash),
                    doc="64-bit hash of the whole simulation state")
    definition_hash = property(
        lambda s: s._query(lib.throng_world_definition_hash),
        doc="64-bit hash of the settings, objects and groups (no agents)")

    @property
    def canonical_order(self):
        """Cells ordered by host key, random streams keyed by it: the
        results depend on the keyed agents' states alone (off by
        default; throng_world_set_canonical_order)."""
        return bool(self._query(lib.throng_world_canonical_order))

    @canonical_order.setter
    def canonical_order(self, on):
        self._call(lib.throng_world_set_canonical_order, bool(on))

    @property
    def neighbour_skin(self):
        """Metres past the neighbour radius that ORCA's neighbour lists,
        kept across ticks, reach (0: no lists, the default;
        throng_world_set_neighbour_skin)."""
        return float(self._query(lib.throng_world_neighbour_skin))

    @neighbour_skin.setter
    def neighbour_skin(self, skin):
        self._call(lib.throng_world_set_neighbour_skin, float(skin))

    def settings(self):
        """The world's settings as a throng_world_def."""
        out = throng_world_def()
        self._call(lib.throng_world_get_def, ctypes.byref(out))
        return out

    def export_agent(self, agent):
        """The agent's whole state (a throng_agent_state): columns,
        behaviour state, its group by id and its target by host key."""
        handle = _agent_c(agent, self, "export")
        out = throng_agent_state()
        self._call(lib.throng_agent_export, handle, ctypes.byref(out))
        return out

    def import_agent(self, state):
        """Adds an agent with a state exported from a world of the same
        definition; returns its Agent."""
        if not isinstance(state, throng_agent_state):
            raise TypeError("state must be a throng_agent_state")
        out = throng_agent()
        with self._lock:
            self._epoch += 1
            self._call(lib.throng_agent_import, ctypes.byref(state),
                       ctypes.byref(out))
            self._forget_moved_views()
        return Agent(self, out.slot, out.generation)

    def import_agents(self, states):
        """Adds agents with the given states in one call
        (throng_agents_import): the same agents and rows as import_agent
        on each in turn, every state checked before any is added; returns
        their Agents in order. A target key must name an agent already in
        the world."""
        states = list(states)
        for st in states:
            if not isinstance(st, throng_agent_state):
                raise TypeError("states must be throng_agent_state records")
        n = len(states)
        arr = (throng_agent_state * max(n, 1))(*states)
        out = (throng_agent * max(n, 1))()
        with self._lock:
            self._epoch += 1
            self._call(lib.throng_agents_import, _u32(n), arr, out)
            self._forget_moved_views()
        return [Agent(self, out[i].slot, out[i].generation)
                for i in range(n)]

    def remove_agents(self, agents):
        """Removes agents in one call (throng_agents_remove), as remove on
        each in turn; a stale handle or one named twice raises and
        removes none."""
        handles = [_agent_c(a, self, "remove_agents") for a in agents]
        n = len(handles)
        arr = (throng_agent * max(n, 1))(*handles)
        with self._lock:
            self._handle()
            self._epoch += 1
            self._call(lib.throng_agents_remove, _u32(n), arr)
    object_count = property(
        lambda s: s._query(lib.throng_world_object_count),
        doc="live static objects")

    def __len__(self):
        return self.agent_count

    @property
    def last_error(self):
        """throng_world_last_error: the last refused call's sentence."""
        with self._lock:
            return lib.throng_world_last_error(self._handle()).decode()

    @property
    def threads(self):
        """Threads per step (0 = OpenMP default); the result of a step
        never depends on it."""
        return self._threads

    @threads.setter
    def threads(self, value):
        value = _int_in(value, -0x80000000, 0x7FFFFFFF, "threads")
        self._call(lib.throng_world_set_threads, value)
        self._threads = value

    @property
    def task_pool(self):
        """The TaskPool whose threads run the steps' parallel loops, or
        None (OpenMP threads, `threads` of them). Setting it installs the
        pool's hooks (throng_world_set_task_hooks); None removes them.
        Results are the same, to the bit, either way."""
        return None if self._hooks is None else self._hooks.pool

    @task_pool.setter
    def task_pool(self, pool):
        with self._lock:
            self._handle()
            if pool is None:
                self._call(lib.throng_world_set_task_hooks, None, None, None,
                           0)
                self._hooks = None
                return
            hooks = _TaskHooks(pool)
            enqueue, finish = hooks.addresses()
            self._call(lib.throng_world_set_task_hooks, enqueue, finish,
                       None, pool.workers)
            # Held from here on: C calls them at every step.
            self._hooks = hooks

    # Stepping -----------------------------------------------------------

    def set_step_limits(self, max_dt, max_substeps):
        """A step longer than max_dt runs as equal ticks of at most max_dt,
        at most max_substeps of them; longer steps are clamped."""
        self._call(lib.throng_world_set_step_limits, float(max_dt),
                   _u32v(max_substeps, "max_substeps"))

    def step(self, dt, steps=1):
        """Advances the world by dt seconds, `steps` times. Column views
        taken before show the state after it (see Columns)."""
        dt = float(dt)
        for _ in range(_u32v(steps, "steps")):
            with self._lock:
                self._sync_stable()
                self._call(lib.throng_world_step, dt)

    def tick_begin(self, dt):
        """Runs one tick of dt seconds up to and including the move
        (throng_world_tick_begin) and returns the contact passes it may
        run; tick_contact runs them, tick_finish ends the tick."""
        passes = _u32(0)
        with self._lock:
            self._sync_stable()
            self._call(lib.throng_world_tick_begin, float(dt),
                       ctypes.byref(passes))
        return passes.value

    def tick_contact(self):
        """Runs the open tick's next contact pass
        (throng_world_tick_contact); returns (moved, settles): the agents
        it moved, and whether a pass that moved none anywhere ends the
        passes."""
        moved, settles = _u32(0), ctypes.c_bool(False)
        self._call(lib.throng_world_tick_contact, ctypes.byref(moved),
                   ctypes.byref(settles))
        return moved.value, bool(settles.value)

    def tick_set_positions(self, agents, positions):
        """Overwrites agents' positions between the stages of the open tick
        (throng_world_tick_set_positions), keeping the tick's grid; every
        handle and position is checked before any is written."""
        handles = [_agent_c(a, self, "tick_set_positions") for a in agents]
        positions = [tuple(p) for p in positions]
        if len(positions) != len(handles):
            raise ValueError("one position per agent")
        n = len(handles)
        arr = (throng_agent * max(n, 1))(*handles)
        flat = (_f * max(3 * n, 1))()
        for i, p in enumerate(positions):
            for k in range(3):
                flat[3 * i + k] = float(p[k]) if k < len(p) else 0.0
        self._call(lib.throng_world_tick_set_positions, _u32(n), arr, flat)

    def tick_finish(self):
        """Ends the open tick (throng_world_tick_finish): arrivals, the step
        count and the stats, as at the end of a tick of step."""
        self._call(lib.throng_world_tick_finish)

    def _sync_stable(self):
        """Stable columns on while a view of this world is alive, off
        otherwise (then a step trades columns with spare buffers, which
        costs nothing extra)."""
        want = len(self._views) > 0
        if want != self._stable:
            self._call(lib.throng_world_set_stable_columns, want)
            self._stable = want

    def _forget_moved_views(self):
        """After an add: when the columns grew (moved), the views taken
        before are frozen copies that no step can change, so they no
        longer need stable columns."""
        if self._columns_at is None or not len(self._views):
            return
        c = throng_columns()
        self._call(lib.throng_world_columns, ctypes.byref(c))
        if ctypes.cast(c.px, ctypes.c_void_p).value != self._columns_at:
            self._views = weakref.WeakSet()
            self._columns_at = None

    def stats(self):
        """A StepStats of the last step."""
        s = throng_step_stats()
        self._call(lib.throng_world_stats, ctypes.byref(s))
        values = {n: getattr(s, n) for n, _ in s._fields_}
        values["simd"] = s.simd.decode() if s.simd else None
        return StepStats(**values)

    # Agents -------------------------------------------------------------

    def add_agent(self, position=None, velocity=None, mass=None,
                  max_force=None, max_speed=None, radius=None, group=None,
                  host_key=None, target_point=None, target_agent=None,
                  progress=None):
        """Adds an agent and returns its Agent handle. Unnamed fields take
        throng_agent_def_default's values (mass 1 kg, max_force 10 N,
        max_speed 1 m/s, radius 0.25 m, group 0, at rest at the origin).
        group: a Group, a group name, or None for the default group.
        target_point,
        target_agent and progress, when given, are set right after; if
        one is refused the agent is removed again, so a refused call adds
        nothing. Column views taken before keep showing the live columns
        (without the new row) unless the add grew the columns: then they
        keep the values they held before it (see Columns)."""
        d = lib.throng_agent_def_default()
        n = self.dimensions
        if position is not None:
            d.position = _vec3(position, n, "position")
        if velocity is not None:
            d.velocity = _vec3(velocity, n, "velocity")
        if mass is not None:
            d.mass = float(mass)
        if max_force is not None:
            d.max_force = float(max_force)
        if max_speed is not None:
            d.max_speed = float(max_speed)
        if radius is not None:
            d.radius = float(radius)
        d.group = self._group_c(group)
        if host_key is not None:
            d.host_key = _u64v(host_key, "host_key")
        out = throng_agent()
        with self._lock:
            self._epoch += 1
            self._call(lib.throng_agent_add, ctypes.byref(d),
                       ctypes.byref(out))
            self._forget_moved_views()
            agent = Agent(self, out.slot, out.generation)
            try:
                if target_point is not None:
                    agent.target_point = target_point
                if target_agent is not None:
                    agent.target_agent = target_agent
                if progress is not None:
                    agent.progress = progress
            except BaseException:
                lib.throng_agent_remove(self._ptr, out)
                raise
        return agent

    def remove(self, agent):
        """Removes an agent (O(1)); its handle is stale afterwards. An
        agent of another world raises StaleHandleError. Column views taken
        before show the live columns, in which the last row has moved
        into the removed agent's (see Columns)."""
        handle = _agent_c(agent, self, "remove")
        with self._lock:
            self._handle()
            self._epoch += 1
            self._call(lib.throng_agent_remove, handle)

    def find_agent(self, host_key):
        """The agent carrying `host_key`; NotFoundError when none does."""
        out = throng_agent()
        self._call(lib.throng_agent_find, _u64v(host_key, "host_key"),
                   ctypes.byref(out))
        return Agent(self, out.slot, out.generation)

    def agent_at(self, index):
        """The agent at row `index` of the columns."""
        out = throng_agent()
        self._call(lib.throng_agent_at, _u32v(index, "index"),
                   ctypes.byref(out))
        return Agent(self, out.slot, out.generation)

    def agents(self):
        """Every live agent, in row order."""
        with self._lock:
            return [self.agent_at(i) for i in range(self.agent_count)]

    # Groups -------------------------------------------------------------

    @property
    def default_group(self):
        """The default group (id 0): agents added without a group."""
        out = throng_group()
        self._call(lib.throng_world_default_group, ctypes.byref(out))
        return self._group(out, "default")

    def _group(self, c, name=None):
        group = Group(self, c.id, c.generation)
        if name is not None:
            self._group_names[(c.id, c.generation)] = name
        return group

    def create_group(self, name=None, flocking=None, wander=None,
                     combine=None, avoidance=None, motion=None,
                     layers=None):
        """Creates a group and returns its Group handle.

        name: optional, unique, at most 63 bytes of UTF-8.
        flocking: dict of throng_flocking fields (separation_weight,
          alignment_radius, field_of_view, separation_mode, ...). Radii
          you do not give default to min(C default, neighbour_radius),
          as the world's default group does.
        wander: dict of throng_wander fields (weight, max_turn_rate, ...).
        combine: "weighted_average" (default), "weighted_sum" or
          "priority".
        avoidance: dict of throng_avoidance fields (mode "orca",
          time_horizon, responsibility, ...).
        motion: dict of throng_motion fields (max_turn_rate, min_speed).
        layers: dict of throng_layers fields (layer, mask).
        Add behaviours with group.add_behaviour()."""
        d = lib.throng_group_def_default()
        flocking = dict(flocking or {})
        for radius in ("separation_radius", "alignment_radius",
                       "cohesion_radius"):
            if radius not in flocking:
                value = getattr(d.flocking, radius)
                setattr(d.flocking, radius,
                        min(value, self.neighbour_radius))
        _fill_flocking(d.flocking, flocking)
        _fill_wander(d.wander, dict(wander or {}))
        if combine is not None:
            d.combine = _enum(CombineMode, combine, "combine")
        _fill_avoidance(d.avoidance, dict(avoidance or {}))
        _fill(d.motion, dict(motion or {}), "motion")
        _fill(d.layers, dict(layers or {}), "layers")
        encoded = None
        if name is not None:
            encoded = name.encode("utf-8")
            if b"\0" in encoded:
                raise OutOfRangeError("group name must not contain NUL")
            d.name = encoded
        out = throng_group()
        self._call(lib.throng_group_create, ctypes.byref(d),
                   ctypes.byref(out))
        return self._group(out, name)

    def group(self, key):
        """The Group named `key` (a str; throng_group_find: NotFoundError
        when none is), or `key` itself when it is a live Group of this
        world (StaleHandleError for a removed one or another world's)."""
        if isinstance(key, Group):
            self._check_group(key, "group")
            return key
        if not isinstance(key, str):
            raise TypeError("group: expected a name or a throng.Group, got "
                            "%r" % (key,))
        out = throng_group()
        encoded = key.encode("utf-8")
        if b"\0" in encoded:
            raise NotFoundError("no group is named %r" % key)
        self._call(lib.throng_group_find, encoded, ctypes.byref(out))
        return self._group(out, key)

    def _check_group(self, group, what):
        if group.world is not self:
            raise StaleHandleError("%s: the group belongs to another world"
                                   % what)
        with self._lock:
            if not lib.throng_group_valid(self._handle(), group._c):
                raise StaleHandleError("%s: the group was removed" % what)

    def _group_c(self, value, what="group"):
        """The C handle of a Group of this world, a group name, or None
        (the null handle: the default group)."""
        if value is None:
            return throng_group()
        if isinstance(value, str):
            return self.group(value)._c
        if not isinstance(value, Group):
            raise TypeError("%s: expected a throng.Group, a group name or "
                            "None, got %r" % (what, value))
        if value.world is not self:
            raise StaleHandleError("%s: the group belongs to another world"
                                   % what)
        return value._c

    def remove_group(self, group):
        """Removes a group (see Group.remove)."""
        handle = self._group_c(group, "remove_group")
        if group is None:
            raise TypeError("remove_group: expected a throng.Group")
        self._call(lib.throng_group_remove, handle)
        self._group_names.pop((handle.id, handle.generation), None)

    # Static objects -----------------------------------------------------

    def _new_object(self, fn, kind, *args):
        out = throng_object()
        self._call(fn, *args, ctypes.byref(out))
        self._object_kinds[(out.id, out.generation)] = kind
        return WorldObject(self, out.id, out.generation, kind)

    def _object(self, object_id, generation):
        if object_id == 0:
            return None
        kind = self._object_kinds.get((object_id, generation))
        obj = WorldObject(self, object_id, generation, kind)
        if obj.kind == "nav_field":
            return NavField(self, object_id, generation, "nav_field")
        return obj

    def add_obstacle(self, definition=None, **fields):
        """Adds an obstacle (throng_obstacle_add) from an ObstacleDef or
        its fields as keywords: a sphere (circle in 2D; the default kind)
        with center and radius, or kind="box" with min and max. A field
        the kind does not read must be left out (else InvalidArgError,
        as C says: "min is for boxes")."""
        d = _object_def(ObstacleDef, definition, fields)
        c = lib.throng_obstacle_def_default()
        _fill_def(c, d, self.dimensions)
        if c.kind == ObjectKind.BOX and d.radius is None:
            c.radius = 0.0  # a box has no radius; the default is a sphere's
        return self._new_object(lib.throng_obstacle_add,
                                _OBJECT_KIND_NAMES.get(c.kind),
                                ctypes.byref(c))

    def add_wall(self, definition=None, **fields):
        """Adds a wall (throng_wall_add) from a WallDef or its fields: a
        two-sided segment from a to b (2D worlds only; the default kind),
        or kind="plane" through point with normal towards the side agents
        belong on (a line in 2D)."""
        d = _object_def(WallDef, definition, fields)
        c = lib.throng_wall_def_default()
        _fill_def(c, d, self.dimensions)
        return self._new_object(lib.throng_wall_add,
                                _OBJECT_KIND_NAMES.get(c.kind),
                                ctypes.byref(c))

    def add_path(self, definition=None, **fields):
        """Adds a polyline path (throng_path_add) from a PathDef or its
        fields: points (each `dimensions` numbers, or an (n, dims) NumPy
        array), radius (the corridor, default 1) and closed."""
        d = _object_def(PathDef, definition, fields)
        c = lib.throng_path_def_default()
        n = self.dimensions
        keep = None
        if d.points is not None:
            try:
                rows = [_vec3(p, n, "path point") for p in d.points]
            except TypeError:
                raise TypeError("points must be a sequence of points")
            keep = (ctypes.c_float * max(3 * len(rows), 1))()
            for i, row in enumerate(rows):
                keep[3 * i:3 * i + 3] = list(row)
            c.points = ctypes.cast(keep, _c_float_p)
            c.point_count = _u32v(len(rows), "point count")
        if d.radius is not None:
            c.radius = float(d.radius)
        if d.closed is not None:
            c.closed = bool(d.closed)
        return self._new_object(lib.throng_path_add, "path",
                                ctypes.byref(c))

    def add_flow_field(self, definition=None, **fields):
        """Adds a flow field (throng_flow_field_add) from a FlowFieldDef
        or its fields: a grid of vectors sampled bilinearly (2D) or
        trilinearly (3D), cell (i, j[, k]) holding the vector at origin +
        cell_size * (i, j, k). size: points per axis (`dimensions` ints).
        vectors: size[0] * size[1] (* size[2]) vectors of `dimensions`
        floats, x fastest, as a flat sequence, nested sequences or any
        NumPy array of that many floats (e.g. shaped (ny, nx, 2)).
        Copied."""
        d = _object_def(FlowFieldDef, definition, fields)
        n = self.dimensions
        c = lib.throng_flow_field_def_default()
        if d.origin is not None:
            c.origin = _vec3(d.origin, n, "origin")
        if d.cell_size is not None:
            c.cell_size = float(d.cell_size)
        if d.size is not None:
            size = list(d.size)
            if len(size) != n:
                raise OutOfRangeError("size must have %d entries, got %d"
                                      % (n, len(size)))
            for a, v in enumerate(size):
                c.size[a] = _u32v(v, "size[%d]" % a)
        cells = 1
        for a in range(n):
            cells *= c.size[a]
        keep = None
        if d.vectors is not None:
            want = cells * n
            if _np is not None and not isinstance(d.vectors, (list, tuple)):
                keep = _np.ascontiguousarray(d.vectors, dtype=_np.float32)
                keep = keep.reshape(-1)
                got = keep.size
                pointer = keep.ctypes.data_as(_c_float_p)
            else:
                flat = list(_flatten(d.vectors))
                got = len(flat)
                keep = (ctypes.c_float * max(got, 1))(*flat)
                pointer = ctypes.cast(keep, _c_float_p)
            if got != want:
                raise OutOfRangeError(
                    "a flow field of size %s needs %d floats, got %d"
                    % (tuple(c.size[:n]), want, got))
            c.vectors = pointer
        return self._new_object(lib.throng_flow_field_add, "flow_field",
                                ctypes.byref(c))

    def add_nav_field(self, definition=None, **fields):
        """Adds a navigation field (throng_nav_field_add) from a
        NavFieldDef or its fields: origin, cell_size, size (cells per
        axis), goals (points, or dicts kind="point"/"segment"/"box", a,
        b), clearance, costs, regions (dicts min, max, cost),
        density_interval, density_radius, density_cost. Built at once; a
        NavField."""
        d = _object_def(NavFieldDef, definition, fields)
        n = self.dimensions
        c = lib.throng_nav_field_def_default()
        if d.origin is not None:
            c.origin = _vec3(d.origin, n, "origin")
        if d.cell_size is not None:
            c.cell_size = float(d.cell_size)
        if d.size is not None:
            size = list(d.size)
            if len(size) != n:
                raise OutOfRangeError("size must have %d entries, got %d"
                                      % (n, len(size)))
            for a, v in enumerate(size):
                c.size[a] = _u32v(v, "size[%d]" % a)
        keep = []
        if d.goals is not None:
            goals = [_nav_goal(g, n) for g in d.goals]
            arr = (throng_nav_goal * max(len(goals), 1))(*goals)
            keep.append(arr)
            c.goals = ctypes.cast(arr, ctypes.POINTER(throng_nav_goal))
            c.goal_count = _u32v(len(goals), "goal count")
        if d.regions is not None:
            regions = []
            for r in d.regions:
                reg = throng_nav_region()
                reg.min = _vec3(r["min"], n, "region min")
                reg.max = _vec3(r["max"], n, "region max")
                reg.cost = float(r["cost"])
                regions.append(reg)
            arr = (throng_nav_region * max(len(regions), 1))(*regions)
            keep.append(arr)
            c.regions = ctypes.cast(arr, ctypes.POINTER(throng_nav_region))
            c.region_count = _u32v(len(regions), "region count")
        if d.costs is not None:
            cells = 1
            for a in range(n):
                cells *= c.size[a]
            block, pointer, got = _float_block(d.costs)
            if got != cells:
                raise OutOfRangeError("a field of %d cells needs %d costs, "
                                      "got %d" % (cells, cells, got))
            keep.append(block)
            c.costs = pointer
        for name in ("clearance", "density_radius", "density_cost"):
            if getattr(d, name) is not None:
                setattr(c, name, float(getattr(d, name)))
        if d.density_interval is not None:
            c.density_interval = _u32v(d.density_interval,
                                       "density_interval")
        out = throng_object()
        self._call(lib.throng_nav_field_add, ctypes.byref(c),
                   ctypes.byref(out))
        del keep
        self._object_kinds[(out.id, out.generation)] = "nav_field"
        return NavField(self, out.id, out.generation, "nav_field")

    def nav_arrivals(self):
        """The agents that arrived at a navigation field's goal during the
        last step (throng_world_nav_arrivals), a list of NavArrival."""
        count = _u32()
        with self._lock:
            self._call(lib.throng_world_nav_arrivals, None, 0,
                       ctypes.byref(count), None)
            n = count.value
            buf = (throng_nav_arrival * max(n, 1))()
            self._call(lib.throng_world_nav_arrivals, buf, n,
                       ctypes.byref(count), None)
        d = self.dimensions
        return [NavArrival(Agent(self, a.agent.slot, a.agent.generation),
                           self._object(a.field.id, a.field.generation),
                           a.goal, bool(a.removed), tuple(a.position[:d]),
                           a.host_key)
                for a in buf[:min(n, count.value)]]

    # The spellings of 0.4, kept as short forms of the verbs above.

    def add_obstacle_sphere(self, center, radius):
        """add_obstacle(center=center, radius=radius)."""
        return self.add_obstacle(center=center, radius=radius)

    def add_obstacle_box(self, min, max):  # noqa: A002 (the C names)
        """add_obstacle(kind="box", min=min, max=max)."""
        return self.add_obstacle(kind="box", min=min, max=max)

    def add_wall_segment(self, a, b):
        """add_wall(a=a, b=b)."""
        return self.add_wall(a=a, b=b)

    def add_wall_plane(self, point, normal):
        """add_wall(kind="plane", point=point, normal=normal)."""
        return self.add_wall(kind="plane", point=point, normal=normal)

    def create_path(self, points, radius, closed=False):
        """add_path(points=points, radius=radius, closed=closed)."""
        return self.add_path(points=points, radius=radius, closed=closed)

    def create_flow_field(self, origin, cell_size, size, vectors):
        """add_flow_field(origin=, cell_size=, size=, vectors=)."""
        return self.add_flow_field(origin=origin, cell_size=cell_size,
                                   size=size, vectors=vectors)

    def remove_object(self, obj):
        """Removes a static object; behaviours naming it go quiet. An
        object of another world raises StaleHandleError."""
        if not isinstance(obj, WorldObject):
            raise TypeError("expected a throng.WorldObject, got %r" % (obj,))
        if obj.world is not self:
            raise StaleHandleError(
                "remove_object: the object belongs to another world")
        self._call(lib.throng_object_remove, obj._c)
        self._object_kinds.pop((obj.id, obj.generation), None)

    def object_at(self, index):
        """The index-th live object (0 .. object_count - 1), in the order
        objects were first given their ids (throng_world_object_at)."""
        out = throng_object()
        self._call(lib.throng_world_object_at, _u32v(index, "index"),
                   ctypes.byref(out))
        return self._object(out.id, out.generation)

    def objects(self):
        """Every live object, as WorldObject handles."""
        with self._lock:
            return [self.object_at(i) for i in range(self.object_count)]

    # Snapshots and rebinding --------------------------------------------

    @property
    def snapshot_size(self):
        """The size in bytes of the world's snapshot as it is now."""
        out = ctypes.c_size_t()
        self._call(lib.throng_world_snapshot_size, ctypes.byref(out))
        return out.value

    def to_bytes(self):
        """The world's snapshot (throng_world_save) as bytes: its whole
        state, which World.load continues bit for bit. A NaN or infinity
        in an agent column raises NotFiniteError and nothing is made."""
        with self._lock:
            size = self.snapshot_size
            buf = ctypes.create_string_buffer(max(size, 1))
            written = ctypes.c_size_t()
            self._call(lib.throng_world_save, buf, size,
                       ctypes.byref(written))
            return buf.raw[:written.value]

    def save(self, path):
        """Writes the world's snapshot to the file at `path` (a str, bytes
        or os.PathLike), replacing it whole (throng_world_save_file: a
        temporary file beside it, fsync, rename): the file holds its old
        contents or the complete snapshot, never a part. IOError_ (also
        an OSError) with the step that failed and the system's reason."""
        encoded = _path_bytes(path)
        self._call(lib.throng_world_save_file, encoded)

    def __reduce__(self):
        # pickle and copy.deepcopy go through a snapshot.
        return (World.load, (self.to_bytes(),))

    @classmethod
    def load(cls, source, task_pool=None):
        """A new world from a snapshot: `source` is the bytes (bytes,
        bytearray, memoryview, any buffer) of World.to_bytes, or the path
        (str or os.PathLike) of a file World.save wrote (throng_world_load,
        throng_world_load_file). A refused snapshot raises
        BadSnapshotError (truncated, wrong checksum, contents no world
        could have), VersionError (a newer format) or IOError_ (a file
        that cannot be read), with the library's reason, and makes no
        world.

        The new world has its own id: handles of the saved world are
        refused by it; world.rebind(handle) translates them. It runs
        Simd "auto" and has no task pool unless one is given here (hooks
        are not saved)."""
        world = cls.__new__(cls)
        world._init_state()
        d = lib.throng_world_load_def_default()
        world._heap.fill(d.allocator)
        why = ctypes.create_string_buffer(256)
        d.error = ctypes.cast(why, ctypes.c_char_p)
        d.error_capacity = ctypes.sizeof(why)
        ptr = _w()
        if isinstance(source, (str, os.PathLike)):
            encoded = _path_bytes(source)
            status = lib.throng_world_load_file(encoded, ctypes.byref(d),
                                                ctypes.byref(ptr))
            head = b""
            if status == Status.OK:
                with open(encoded, "rb") as f:
                    head = f.read(_SNAPSHOT_HEAD.size + 40)
            what = "throng_world_load_file"
        else:
            try:
                view = memoryview(source).cast("B")
            except TypeError:
                raise TypeError("World.load: expected snapshot bytes or a "
                                "path, got %r" % (source,))
            data = source if isinstance(source, bytes) else view.tobytes()
            status = lib.throng_world_load(data, len(data), ctypes.byref(d),
                                           ctypes.byref(ptr))
            head = data[:_SNAPSHOT_HEAD.size + 40]
            what = "throng_world_load"
        if status != Status.OK:
            raise _error(status, why.value.decode("utf-8", "replace") or
                         "%s: %s" % (what, status_string(status)))
        settings = _snapshot_settings(head)
        world._adopt(ptr.value, settings["boundary"], settings["box"],
                     settings["neighbour_radius"], settings["seed"],
                     settings["threads"])
        if task_pool is not None:
            world.task_pool = task_pool
        return world

    def rebind(self, handle):
        """This world's handle of the agent or object that `handle` named
        in the world this one was loaded from (throng_agent_rebind,
        throng_object_rebind): an Agent or WorldObject of that World
        (closed or not), or a C handle (throng_agent, throng_object, as
        .c_handle gives) kept from it, in this process or another. A
        handle of this world that is live comes back as it is. Anything
        else, and an agent or object that no longer lives here, raises
        StaleHandleError."""
        if isinstance(handle, (Agent, WorldObject, Group)):
            handle = handle._c
        if isinstance(handle, throng_group):
            out = throng_group()
            self._call(lib.throng_group_rebind, handle, ctypes.byref(out))
            return self._group(out)
        if isinstance(handle, throng_agent):
            out = throng_agent()
            self._call(lib.throng_agent_rebind, handle, ctypes.byref(out))
            return Agent(self, out.slot, out.generation)
        if isinstance(handle, throng_object):
            out = throng_object()
            self._call(lib.throng_object_rebind, handle, ctypes.byref(out))
            return self._object(out.id, out.generation)
        raise TypeError("rebind: expected an Agent, a WorldObject, a Group "
                        "or a C "
                        "handle, got %r" % (handle,))

    # Queries ------------------------------------------------------------

    # The first result buffer of a query, in handles.
    _QUERY_START = 64

    def query_radius(self, point, radius, max_results=None):
        """The agents within `radius` metres of `point` (inclusive), as a
        list of Agent in an unspecified but deterministic order. With
        max_results, at most that many.

        The result buffer grows with the results, not with max_results:
        the first call gets room for 64 handles, and when C reports more
        (it reports the total), one more call gets room for the total, or
        max_results if that is smaller."""
        p = _vec3(point, self.dimensions, "point")
        radius = float(radius)
        limit = None if max_results is None else _u32v(max_results,
                                                       "max_results")
        capacity = self._QUERY_START
        if limit is not None:
            capacity = min(capacity, limit)
        count = _u32()
        with self._lock:
            while True:
                buf = (throng_agent * max(capacity, 1))()
                self._call(lib.throng_world_query_radius, p, radius, buf,
                           capacity, ctypes.byref(count), None)
                self._query_capacity = capacity  # for the tests
                if count.value <= capacity or (limit is not None and
                                               capacity >= limit):
                    break
                capacity = count.value if limit is None else min(
                    count.value, limit)
        found = min(count.value, capacity)
        return [Agent(self, buf[i].slot, buf[i].generation)
                for i in range(found)]

    # Columns ------------------------------------------------------------

    def columns(self, numpy=None):
        """Zero-copy views of the columns (see Columns: what they show
        after a step, add_agent, remove and close). numpy: True for NumPy
        arrays, False for memoryviews; default: NumPy when installed."""
        if numpy is None:
            numpy = _np is not None
        elif numpy and _np is None:
            raise ImportError("numpy is not installed")
        with self._lock:
            return Columns(self, bool(numpy))

    @property
    def positions(self):
        """(px, py[, pz]): one zero-copy 1-D view per axis (columns(); see
        Columns for what they show later)."""
        return self.columns().positions

    @property
    def velocities(self):
        return self.columns().velocities

    @property
    def headings(self):
        return self.columns().headings

    def _copy(self, names):
        names = names[:self.dimensions]
        with self._lock:
            c = self.columns()
            if _np is not None:
                out = _np.empty((c.count, len(names)), dtype=_np.float32)
                for a, name in enumerate(names):
                    out[:, a] = getattr(c, name)
                return out
            cols = [getattr(c, name) for name in names]
            return [tuple(col[i] for col in cols) for i in range(c.count)]

    def positions_copy(self):
        """An (n, dims) float32 array (a list of tuples without NumPy) of
        the positions in row order: a copy, valid for ever."""
        return self._copy(("px", "py", "pz"))

    def velocities_copy(self):
        return self._copy(("vx", "vy", "vz"))

    def headings_copy(self):
        return self._copy(("fx", "fy", "fz"))


@dataclasses.dataclass
class ObstacleDef:
    """throng_obstacle_def. None leaves a field at
    throng_obstacle_def_default's value (a sphere of radius 1 at the
    origin, everything else 0), but a box's radius at 0. kind: "sphere"
    or "box" (or an ObjectKind)."""
    kind: object = None
    center: object = None
    radius: object = None
    min: object = None
    max: object = None


@dataclasses.dataclass
class WallDef:
    """throng_wall_def. kind: "segment" (default; a, b) or "plane"
    (point, normal)."""
    kind: object = None
    a: object = None
    b: object = None
    point: object = None
    normal: object = None


@dataclasses.dataclass
class PathDef:
    """throng_path_def: points (copied), radius (default 1), closed."""
    points: object = None
    radius: object = None
    closed: object = None


@dataclasses.dataclass
class NavFieldDef:
    """throng_nav_field_def: origin (the grid's low corner, default 0),
    cell_size (default 1), size (cells per axis), goals (a sequence of
    goals: a point as a tuple of `dimensions` numbers, or a dict
    kind="point"/"segment"/"box" with a (and b)), clearance (default 0),
    costs (one per cell, x fastest, or None), regions (dicts min, max,
    cost), density_interval, density_radius (default 1), density_cost."""
    origin: object = None
    cell_size: object = None
    size: object = None
    goals: object = None
    clearance: object = None
    costs: object = None
    regions: object = None
    density_interval: object = None
    density_radius: object = None
    density_cost: object = None


@dataclasses.dataclass
class FlowFieldDef:
    """throng_flow_field_def: origin (default 0), cell_size (default 1),
    size (points per axis, default 1 each), vectors (copied)."""
    origin: object = None
    cell_size: object = None
    size: object = None
    vectors: object = None


def _object_def(cls, definition, fields):
    if definition is None:
        return cls(**fields)
    if fields:
        raise TypeError("give a %s or keywords, not both" % cls.__name__)
    if not isinstance(definition, cls):
        raise TypeError("expected a throng.%s, got %r"
                        % (cls.__name__, definition))
    return definition


def _fill_def(c, d, dims):
    """The fields of an ObstacleDef or WallDef that are not None into its
    C struct: vectors of `dims` numbers, kinds by name or ObjectKind."""
    for name, ctype in c._fields_:
        value = getattr(d, name)
        if value is None:
            continue
        if name == "kind":
            value = _enum(ObjectKind, value, "kind")
        elif ctype is c_float3:
            value = _vec3(value, dims, name)
        else:
            value = float(value)
        setattr(c, name, value)


def _path_bytes(path):
    """A file path for C: str, bytes or os.PathLike, without NUL."""
    try:
        encoded = os.fsencode(path)
    except TypeError:
        raise TypeError("expected a path (str, bytes or os.PathLike), got "
                        "%r" % (path,))
    if b"\0" in encoded:
        raise OutOfRangeError("a path must not contain NUL")
    return encoded


# The start of a snapshot's settings (after its 40-byte header; throng.h,
# src/snapshot_codec.c), the same in every format version up to 3: dimensions,
# boundary, box, neighbour radius, the grid's edge, reach and cells,
# threads, seed. The C API has no getters for these, and a loaded World
# reports them as attributes as a created one does.
_SNAPSHOT_HEAD = struct.Struct("<II3ff3f3i3iiQ")


def _snapshot_settings(head):
    version = struct.unpack_from("<I", head, 8)[0]
    if version > SNAPSHOT_VERSION or len(head) < 40 + _SNAPSHOT_HEAD.size:
        # A newer format than this binding knows: C read it, Python
        # cannot say what the settings are.
        return dict(dimensions=None, boundary=None, box=(), seed=None,
                    neighbour_radius=None, threads=0)
    fields = _SNAPSHOT_HEAD.unpack_from(head, 40)
    return dict(dimensions=fields[0], boundary=fields[1],
                box=fields[2:5], neighbour_radius=fields[5],
                threads=fields[15], seed=fields[16])


def _flatten(values):
    for v in values:
        if isinstance(v, (int, float)):
            yield float(v)
        else:
            try:
                iter(v)
            except TypeError:
                yield float(v)
            else:
                yield from _flatten(v)


# ------------------------------------------------------------------------
# Recording trajectories (throng.h, "Recording trajectories")
# ------------------------------------------------------------------------


def recorder_supported():
    """True when the library was built with SQLite (the recorder works)."""
    return bool(lib.throng_recorder_supported())


class Recorder:
    """Records a world's agents to an SQLite file in JuPedSim's trajectory
    format (version 1), every `every`-th call of record():

        with throng.Recorder(world, "run.sqlite", fps=1 / dt) as rec:
            for _ in range(steps):
                world.step(dt)
                rec.record()
        run = throng.read_recording("run.sqlite")

    The keywords are throng_recorder_def's fields: every, fps,
    queue_frames, wait_when_full, replace, and area=((xmin, ymin),
    (xmax, ymax)) for the walkable area (default: derived). close() (or
    leaving the `with` block) drains the writer and closes the file; a
    failure of the writer raises from record(), flush() and close() with
    its sentence. The world may be closed first: record() then raises
    StaleHandleError, close() still finishes the file."""

    def __init__(self, world, path, every=1, fps=10.0, queue_frames=8,
                 wait_when_full=True, replace=False, area=None):
        self._ptr = None
        self._world = world
        d = lib.throng_recorder_def_default()
        d.every = _u32v(every, "every")
        d.fps = float(fps)
        d.queue_frames = _u32v(queue_frames, "queue_frames")
        d.wait_when_full = bool(wait_when_full)
        d.replace = bool(replace)
        if area is not None:
            (x0, y0), (x1, y1) = area
            d.area_min[0], d.area_min[1] = float(x0), float(y0)
            d.area_max[0], d.area_max[1] = float(x1), float(y1)
        # The recorder's memory comes from a heap of its own, which lives
        # as long as this object: closing the world frees the world's
        # blocks, not the recorder's.
        self._heap = _Heap()
        self._heap.fill(d.allocator)
        self._lock = world._lock
        out = ctypes.c_void_p()
        world._call(lib.throng_recorder_open, _path_bytes(path),
                    ctypes.byref(d), ctypes.byref(out))
        self._ptr = out.value
        self.path = os.fspath(path)
        self.every = d.every
        self.fps = d.fps

    def _handle(self):
        if self._ptr is None:
            raise ValueError("operation on a closed throng.Recorder")
        return self._ptr

    def _check(self, status):
        if status == Status.ERR_BUSY:
            raise _error(status, "")
        if status != 0:
            detail = lib.throng_recorder_last_error(self._ptr)
            raise _error(status, detail.decode("utf-8", "replace")
                         if detail else "")

    def record(self):
        """Call once after each step: every `every`-th call copies the
        agents for the writer (see throng_recorder_record)."""
        with self._lock:
            self._check(lib.throng_recorder_record(self._handle()))

    def flush(self):
        """Waits until every frame recorded so far is committed."""
        with self._lock:
            self._check(lib.throng_recorder_flush(self._handle()))

    def stats(self):
        """throng_record_stats as a dict."""
        s = throng_record_stats()
        with self._lock:
            self._check(lib.throng_recorder_stats(self._handle(),
                                                  ctypes.byref(s)))
        return _struct_to_dict(s)

    @property
    def last_error(self):
        with self._lock:
            return lib.throng_recorder_last_error(self._ptr).decode()

    def close(self):
        """Drains the queue, writes the last metadata and closes the file
        (idempotent)."""
        lock = getattr(self, "_lock", None)
        if lock is None or getattr(self, "_ptr", None) is None:
            return
        with lock:
            if self._ptr is None:
                return
            # A failure's sentence goes with the recorder: read it first.
            flushed = lib.throng_recorder_flush(self._ptr)
            detail = lib.throng_recorder_last_error(self._ptr)
            detail = detail.decode("utf-8", "replace") if detail else ""
            status = lib.throng_recorder_close(self._ptr)
            if status == Status.ERR_BUSY:
                raise _error(status, "")
            self._ptr = None
            self._heap.blocks.clear()
        if status != 0:
            raise _error(status, detail if flushed != 0 else "")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 (nothing may escape __del__)
            pass


Recording = namedtuple("Recording", [
    "frame", "id", "x", "y", "z", "ori_x", "ori_y", "ori_z", "fps",
    "dimensions", "metadata", "geometry", "frames"])
Recording.__doc__ = """A recording read back (read_recording): one entry
per row of trajectory_data, in (frame, id) order: frame and id (int64),
x, y, ori_x, ori_y (float64; z and ori_z too in 3D, else None); fps and
dimensions; metadata, the metadata table as a dict of strings; geometry,
the WKT text; frames, throng_frames as (frame, step, agents) arrays (empty
for a file another program wrote). Arrays are NumPy arrays when NumPy is
installed, else array.array."""


def read_recording(path):
    """Reads a recording (throng's, or any JuPedSim version-1 file) with
    Python's sqlite3 module, as arrays: see Recording."""
    import array
    import sqlite3
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(path)
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        metadata = {str(k): str(v) for k, v in
                    con.execute("SELECT key, value FROM metadata")}
        columns = {r[1] for r in
                   con.execute("PRAGMA table_info(trajectory_data)")}
        three = "pos_z" in columns
        names = ["frame", "id", "pos_x", "pos_y", "ori_x", "ori_y"]
        if three:
            names += ["pos_z", "ori_z"]
        rows = con.execute("SELECT %s FROM trajectory_data ORDER BY frame, "
                           "id" % ", ".join(names)).fetchall()
        geometry = con.execute("SELECT wkt FROM geometry").fetchone()
        frames = []
        has_frames = con.execute(
            "SELECT count(*) FROM sqlite_master WHERE name = "
            "'throng_frames'").fetchone()[0]
        if has_frames:
            frames = con.execute("SELECT frame, step, agents FROM "
                                 "throng_frames ORDER BY frame").fetchall()
    finally:
        con.close()
    kinds = ["q", "q"] + ["d"] * (len(names) - 2)
    if _np is not None:
        cols = [_np.array([r[k] for r in rows],
                          dtype=_np.int64 if kinds[k] == "q"
                          else _np.float64)
                for k in range(len(names))]
        fr = [_np.array([f[k] for f in frames], dtype=_np.int64)
              for k in range(3)]
    else:
        cols = [array.array(kinds[k], (r[k] for r in rows))
                for k in range(len(names))]
        fr = [array.array("q", (f[k] for f in frames)) for k in range(3)]
    dims = int(metadata.get("dimensions", 3 if three else 2))
    return Recording(
        frame=cols[0], id=cols[1], x=cols[2], y=cols[3],
        z=cols[6] if three else None, ori_x=cols[4], ori_y=cols[5],
        ori_z=cols[7] if three else None,
        fps=float(metadata["fps"]) if "fps" in metadata else None,
        dimensions=dims, metadata=metadata,
        geometry=geometry[0] if geometry else None,
        frames=tuple(fr))

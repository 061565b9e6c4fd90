"""What a household can hold: ALFWorld's six task types, the splits, the room kinds and their receptacles, the object
types and where each is usually found, what can be heated / cooled / cleaned / looked at, the target receptacles, the
tool each task type needs, and the size of each room kind's layout pool. Data only; `world.py` generates from it."""

from __future__ import annotations

# --- task types (ALFWorld's six, under the names verl-agent reports them) ---------------------------------------

PICK = "pick_and_place"
LOOK = "look_at_obj_in_light"
CLEAN = "pick_clean_then_place_in_recep"
HEAT = "pick_heat_then_place_in_recep"
COOL = "pick_cool_then_place_in_recep"
TWO = "pick_two_obj_and_place"
TASK_TYPES = (PICK, LOOK, CLEAN, HEAT, COOL, TWO)

SPLITS = ("train", "valid_seen", "valid_unseen", "dev")

# --- receptacles -------------------------------------------------------------------------------------------------

OPENABLE = frozenset({"cabinet", "drawer", "fridge", "microwave", "safe"})

# Per room kind: receptacle type -> (min count, max count). Tools the task types need are always present.
ROOMS: dict[str, dict[str, tuple[int, int]]] = {
    "kitchen": {
        "cabinet": (2, 4),
        "countertop": (1, 2),
        "drawer": (1, 2),
        "fridge": (1, 1),
        "microwave": (1, 1),
        "sinkbasin": (1, 1),
        "stoveburner": (0, 2),
        "diningtable": (0, 1),
        "coffeemachine": (0, 1),
        "garbagecan": (1, 1),
        "shelf": (0, 2),
        "toaster": (0, 1),
    },
    "bedroom": {
        "bed": (1, 1),
        "desk": (0, 1),
        "dresser": (0, 1),
        "drawer": (1, 3),
        "shelf": (1, 2),
        "sidetable": (1, 2),
        "garbagecan": (1, 1),
        "laundryhamper": (0, 1),
        "safe": (0, 1),
        "cabinet": (0, 2),
    },
    "livingroom": {
        "sofa": (1, 1),
        "armchair": (0, 1),
        "coffeetable": (1, 1),
        "sidetable": (1, 2),
        "tvstand": (0, 1),
        "cabinet": (1, 3),
        "drawer": (1, 2),
        "shelf": (0, 2),
        "dresser": (0, 1),
        "garbagecan": (1, 1),
    },
    "bathroom": {
        "toilet": (1, 1),
        "sinkbasin": (1, 2),
        "bathtubbasin": (0, 1),
        "cabinet": (2, 4),
        "countertop": (1, 1),
        "drawer": (0, 2),
        "shelf": (0, 2),
        "towelholder": (0, 1),
        "garbagecan": (1, 1),
    },
}
MIN_RECEPTACLES, MAX_RECEPTACLES = 8, 13

# Where a lamp stands (the `look_at_obj_in_light` tool): a desklamp on one of these, or a floorlamp on its own.
LAMP_HOSTS = ("desk", "sidetable", "dresser")

# --- objects ------------------------------------------------------------------------------------------------------

# Object type -> receptacle types it is found in (its priors: where a searcher should look first).
FOUND_IN: dict[str, tuple[str, ...]] = {
    # kitchen
    "apple": ("countertop", "diningtable", "fridge", "garbagecan"),
    "bread": ("countertop", "diningtable", "fridge", "cabinet"),
    "bowl": ("cabinet", "countertop", "diningtable", "shelf", "sinkbasin"),
    "butterknife": ("countertop", "drawer", "diningtable"),
    "cup": ("cabinet", "countertop", "diningtable", "fridge", "sinkbasin", "shelf"),
    "egg": ("countertop", "fridge", "diningtable", "garbagecan"),
    "fork": ("countertop", "drawer", "diningtable", "sinkbasin"),
    "kettle": ("stoveburner", "cabinet", "countertop"),
    "knife": ("countertop", "drawer", "diningtable"),
    "lettuce": ("countertop", "fridge", "diningtable"),
    "mug": ("cabinet", "countertop", "coffeemachine", "shelf", "sinkbasin"),
    "pan": ("stoveburner", "cabinet", "countertop"),
    "plate": ("cabinet", "countertop", "diningtable", "shelf"),
    "pot": ("stoveburner", "cabinet", "countertop"),
    "potato": ("countertop", "fridge", "diningtable", "garbagecan"),
    "spatula": ("countertop", "drawer", "diningtable"),
    "spoon": ("countertop", "drawer", "diningtable", "sinkbasin"),
    "tomato": ("countertop", "fridge", "diningtable", "garbagecan"),
    "winebottle": ("cabinet", "countertop", "fridge", "shelf"),
    "saltshaker": ("cabinet", "countertop", "shelf"),
    # bedroom and living room
    "alarmclock": ("desk", "sidetable", "dresser", "shelf"),
    "book": ("bed", "desk", "shelf", "sidetable", "sofa", "coffeetable"),
    "cd": ("desk", "drawer", "shelf", "safe", "sidetable"),
    "cellphone": ("bed", "desk", "drawer", "sidetable", "sofa", "dresser"),
    "creditcard": ("desk", "drawer", "dresser", "sidetable", "coffeetable", "armchair"),
    "keychain": ("drawer", "dresser", "safe", "sidetable", "coffeetable", "shelf"),
    "pen": ("desk", "drawer", "shelf", "sidetable"),
    "pencil": ("desk", "drawer", "shelf", "sidetable"),
    "pillow": ("bed", "sofa", "armchair"),
    "remotecontrol": ("sofa", "coffeetable", "tvstand", "armchair", "sidetable"),
    "statue": ("shelf", "coffeetable", "sidetable", "dresser", "tvstand"),
    "vase": ("shelf", "coffeetable", "sidetable", "tvstand", "cabinet"),
    "watch": ("drawer", "dresser", "sidetable", "safe", "coffeetable"),
    "box": ("shelf", "coffeetable", "sofa", "cabinet", "tvstand"),
    # bathroom
    "candle": ("countertop", "shelf", "toilet", "cabinet"),
    "cloth": ("cabinet", "countertop", "bathtubbasin", "drawer", "sinkbasin"),
    "soapbar": ("countertop", "sinkbasin", "bathtubbasin", "toilet", "cabinet"),
    "soapbottle": ("countertop", "cabinet", "shelf", "toilet"),
    "spraybottle": ("cabinet", "countertop", "toilet", "shelf"),
    "toiletpaper": ("cabinet", "toilet", "countertop", "shelf", "drawer"),
    "towel": ("towelholder", "countertop", "bathtubbasin", "cabinet"),
}

HEATABLE = ("apple", "bread", "cup", "egg", "mug", "plate", "potato", "tomato")
COOLABLE = ("apple", "bread", "cup", "egg", "lettuce", "mug", "pan", "plate", "pot", "potato", "tomato", "winebottle")
CLEANABLE = {
    "kitchen": (
        "apple",
        "bowl",
        "butterknife",
        "cup",
        "egg",
        "fork",
        "knife",
        "lettuce",
        "mug",
        "pan",
        "plate",
        "pot",
        "potato",
        "spatula",
        "spoon",
        "tomato",
    ),
    "bathroom": ("cloth", "soapbar"),
}
LOOKABLE = (
    "alarmclock",
    "book",
    "cd",
    "cellphone",
    "creditcard",
    "keychain",
    "pen",
    "pencil",
    "pillow",
    "remotecontrol",
    "statue",
    "vase",
    "watch",
    "box",
)

# Receptacle types a task may ask the agent to put something in or on.
TARGETS = {
    "kitchen": (
        "cabinet",
        "countertop",
        "diningtable",
        "drawer",
        "fridge",
        "garbagecan",
        "microwave",
        "shelf",
        "sinkbasin",
        "stoveburner",
        "coffeemachine",
    ),
    "bedroom": (
        "bed",
        "desk",
        "dresser",
        "drawer",
        "shelf",
        "sidetable",
        "garbagecan",
        "safe",
        "laundryhamper",
        "cabinet",
    ),
    "livingroom": (
        "sofa",
        "armchair",
        "coffeetable",
        "sidetable",
        "tvstand",
        "cabinet",
        "drawer",
        "shelf",
        "dresser",
        "garbagecan",
    ),
    "bathroom": ("toilet", "countertop", "cabinet", "drawer", "shelf", "garbagecan", "bathtubbasin", "sinkbasin"),
}

# Which room kinds each task type is set in, and the tool it needs.
ROOMS_FOR = {
    PICK: ("kitchen", "bedroom", "livingroom", "bathroom"),
    TWO: ("kitchen", "bedroom", "livingroom", "bathroom"),
    LOOK: ("bedroom", "livingroom"),
    CLEAN: ("kitchen", "bathroom"),
    HEAT: ("kitchen",),
    COOL: ("kitchen",),
}
TOOL = {CLEAN: "sinkbasin", HEAT: "microwave", COOL: "fridge"}

# Layouts: a fixed pool per room kind, generated from a master seed. Seen layouts serve train / valid_seen / dev;
# the rest only valid_unseen.
LAYOUTS_PER_ROOM = 48
SEEN_LAYOUTS = 40
